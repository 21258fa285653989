# Sourced by the bench scripts that count instructions instead of seconds (needs
# valgrind and wrk, and .ci/start-server.sh sourced first).
# instructions_per_request OUT BINARY [FLAGS...] runs `BINARY serve FLAGS` under callgrind
# (its counts in OUT.*, its output in OUT-server.log) under a wrk load of c=64 small playback bodies (BODY, default
# bench/bodies/playback-small.json) on PATH_TRIED (default /playback/apply); the counts are
# zeroed after a warm-up and dumped once the load ends, then divided by the requests wrk
# completed. Prints "REQUESTS INSTRUCTIONS_PER_REQUEST". SECS: seconds of load (default 10).
# Instruction counts do not depend on what else the machine runs, so one pair is a
# steady ratio where req/s swings by ±15 % here. Up to 64 requests still in flight when
# wrk stops are counted without being in wrk's total: the same few on both sides.
# Under callgrind the server runs ~50× slower, so work done per interval of time (the
# metrics' publishing, every 100 ms) is spread over more requests than at full speed.
# Callgrind counts user-space instructions only: the kernel's side of each request (its
# syscalls) is not in the count.
instructions_per_request() {
  local out=$1 binary=$2 bench total requests url
  shift 2
  bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  export BODY=${BODY:-$bench/bodies/playback-small.json}
  # Under valgrind the server takes seconds to start. Names uncompressed: each dump (OUT.1)
  # can be read by callgrind_annotate alone.
  SERVER_WRAPPER="valgrind --tool=callgrind --compress-strings=no --callgrind-out-file=$out" SERVER_START_SECONDS=60 \
    start_server "$out-server.log" "$binary" --log-level "${LOG_LEVEL:-warn}" "$@"
  url=http://127.0.0.1:$port${PATH_TRIED:-/playback/apply}
  wrk -t1 -c64 -d2s -s "$bench/post.lua" "$url" >/dev/null  # warm-up
  sleep 1
  callgrind_control -z "$server_pid" >/dev/null 2>&1
  requests=$(wrk -t1 -c64 -d"${SECS:-10}s" -s "$bench/post.lua" "$url" | awk '/^REQUESTS/ {print $2}')
  sleep 1  # the requests still in flight are answered
  callgrind_control -d "$server_pid" >/dev/null 2>&1
  kill -TERM "$server_pid"; wait "$server_pid" || true
  server_pid=
  total=$(cat "$out".* | awk '/^summary:/ {s += $2} END {print s}')
  awk -v t="$total" -v r="$requests" 'BEGIN { printf "%d %.0f\n", r, t / r }'
}
