# Sourced by CI and the bench scripts. start_server LOG BINARY [FLAGS...] starts
# `BINARY serve` on 127.0.0.1 with a port the kernel picks, its output in LOG, and
# sets server_pid and port once the startup line names the port. If the server
# exits or says nothing within 10 s, prints LOG and exits 1. SERVER_CPUS (e.g. 0)
# pins the server to those CPUs from its start, as the shared bench does.
start_server() {
  local log=$1 binary=$2 pin=()
  shift 2
  [[ -n ${SERVER_CPUS:-} ]] && pin=(taskset -c "$SERVER_CPUS")
  "${pin[@]}" "$binary" serve --host 127.0.0.1 --port 0 "$@" >"$log" 2>&1 &
  server_pid=$!
  port=
  for _ in $(seq 1 200); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$log" | head -1)
    [[ -n $port ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "the server did not start:" >&2
  cat "$log" >&2
  exit 1
}
