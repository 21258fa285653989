#!/usr/bin/env bash
# What one server setting costs, counted in instructions instead of seconds: the server
# runs under callgrind (valgrind) with VARIABLE=BASE, then with VARIABLE=TRIED, each
# under the same wrk load (c=64, small playback bodies); see bench/instructions.sh for
# how a count per request is taken and what it leaves out.
# Usage: bench/setting-instructions.sh BINARY VARIABLE BASE TRIED [SECONDS]   (default 10)
# KEEP=DIR keeps the callgrind files there (callgrind_annotate DIR/callgrind.VALUE.*).
# Needs valgrind and wrk (Debian).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1 variable=$2 base=$3 tried=$4
export SECS=${5:-10}
work=$(mktemp -d)
server_pid=
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
source "$here/../.ci/start-server.sh"
source "$here/instructions.sh"

# Prints the requests and instructions per request of the server with VARIABLE=$1.
per_request() {
  local out=$work/callgrind.$1
  export "$variable=$1"  # for this server only
  instructions_per_request "$out" "$binary"
  unset "$variable"
  if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP" && cp "$out".* "$KEEP/"; fi
}

read -r base_requests base_cost < <(per_request "$base")
read -r tried_requests tried_cost < <(per_request "$tried")
awk -v b="$base_cost" -v t="$tried_cost" -v br="$base_requests" -v tr="$tried_requests" \
    -v bn="$base" -v tn="$tried" -v var="$variable" 'BEGIN {
  printf "%s=%s: %d requests, %d instructions/request\n", var, bn, br, b
  printf "%s=%s: %d requests, %d instructions/request\n", var, tn, tr, t
  printf "instructions per request: %+.2f %%\n", (t / b - 1) * 100 }'
