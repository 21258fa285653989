#!/usr/bin/env bash
# What one server setting costs, counted in instructions instead of seconds: the server
# runs under callgrind (valgrind) with VARIABLE=BASE, then with VARIABLE=TRIED, each
# under the same wrk load (c=64, small playback bodies); the counts are zeroed after a
# warm-up and dumped once the load ends, then divided by the requests wrk completed.
# Instruction counts do not depend on what else the machine runs, so one pair is a
# steady ratio where req/s swings by ±15 % here. Up to 64 requests still in flight when
# wrk stops are counted without being in wrk's total: the same few on both sides.
# Under callgrind the server runs ~50× slower, so work done per interval of time (the
# metrics' publishing, every 100 ms) is spread over more requests than at full speed.
# Usage: bench/setting-instructions.sh BINARY VARIABLE BASE TRIED [SECONDS]   (default 10)
# KEEP=DIR keeps the callgrind files there (callgrind_annotate DIR/callgrind.VALUE.*).
# Needs valgrind and wrk (Debian).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1 variable=$2 base=$3 tried=$4
secs=${5:-10}
work=$(mktemp -d)
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
export BODY=$here/bodies/playback-small.json
source "$here/../.ci/start-server.sh"

# Prints the instructions per request of the server with VARIABLE=$1.
per_request() {
  local out=$work/callgrind.$1 total requests
  # The variable for this server only; under valgrind it takes seconds to start.
  export "$variable=$1"
  SERVER_WRAPPER="valgrind --tool=callgrind --callgrind-out-file=$out" SERVER_START_SECONDS=60 \
    start_server "$work/log.$1" "$binary" --log-level "${LOG_LEVEL:-warn}"
  unset "$variable"
  pid=$server_pid
  wrk -t1 -c64 -d2s -s "$here/post.lua" "http://127.0.0.1:$port/playback/apply" >/dev/null  # warm-up
  sleep 1
  callgrind_control -z "$pid" >/dev/null 2>&1
  requests=$(wrk -t1 -c64 -d"${secs}s" -s "$here/post.lua" "http://127.0.0.1:$port/playback/apply" |
             awk '/^REQUESTS/ {print $2}')
  sleep 1  # the requests still in flight are answered
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill -TERM "$pid"; wait "$pid" || true
  total=$(cat "$out".* | awk '/^summary:/ {s += $2} END {print s}')
  if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP" && cp "$out".* "$KEEP/"; fi
  awk -v t="$total" -v r="$requests" -v v="$1" 'BEGIN { printf "%s %d %.0f\n", v, r, t / r }'
}

read -r _ base_requests base_cost < <(per_request "$base")
read -r _ tried_requests tried_cost < <(per_request "$tried")
awk -v b="$base_cost" -v t="$tried_cost" -v br="$base_requests" -v tr="$tried_requests" \
    -v bn="$base" -v tn="$tried" -v var="$variable" 'BEGIN {
  printf "%s=%s: %d requests, %d instructions/request\n", var, bn, br, b
  printf "%s=%s: %d requests, %d instructions/request\n", var, tn, tr, t
  printf "instructions per request: %+.2f %%\n", (t / b - 1) * 100 }'
