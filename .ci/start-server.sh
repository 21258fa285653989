# Sourced by CI and the bench scripts. start_server LOG BINARY [FLAGS...] starts
# `BINARY serve` on 127.0.0.1 with a port the kernel picks, its output in LOG, and
# sets server_pid and port once the startup line names the port. If the server
# exits or says nothing within SERVER_START_SECONDS (10), prints LOG and exits 1.
# SERVER_CPUS (e.g. 0) pins the server to those CPUs from its start, as the shared
# bench does; SERVER_WRAPPER (e.g. "valgrind --tool=callgrind") runs it under a tool,
# in the same process, so server_pid is still the server's.
start_server() {
  local log=$1 binary=$2 pin=() wrapper=()
  shift 2
  : >"$log"  # before the server starts, so the wait below never reads a missing file
  [[ -n ${SERVER_CPUS:-} ]] && pin=(taskset -c "$SERVER_CPUS")
  [[ -n ${SERVER_WRAPPER:-} ]] && read -ra wrapper <<<"$SERVER_WRAPPER"
  "${pin[@]}" "${wrapper[@]}" "$binary" serve --host 127.0.0.1 --port 0 "$@" >"$log" 2>&1 &
  server_pid=$!
  port=
  for _ in $(seq 1 $((${SERVER_START_SECONDS:-10} * 20))); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$log" | head -1)
    [[ -n $port ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "the server did not start:" >&2
  cat "$log" >&2
  exit 1
}

# server_workdir: a new temporary folder in $work, and an EXIT trap that kills the
# server start_server started (if any) and removes the folder.
server_workdir() {
  work=$(mktemp -d)
  server_pid=
  trap server_cleanup EXIT
}
server_cleanup() {
  [[ -n ${server_pid:-} ]] && kill -KILL "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
