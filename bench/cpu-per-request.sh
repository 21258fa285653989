#!/usr/bin/env bash
# Server CPU time per request (user and system, µs) under a fixed wrk load: a steadier
# number than req/s on a shared machine, since it does not depend on who else runs.
# Usage: bench/cpu-per-request.sh [BINARY] [PATH] [BODY] [CONNECTIONS] [SECONDS]
#   defaults: .build/release/device-oracle /playback/apply bench/bodies/playback-small.json 64 5
# Needs wrk (Debian). Server on CPU 0, wrk on CPU 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../.build/release/device-oracle}
path=${2:-/playback/apply}
body=${3:-$here/bodies/playback-small.json}
conns=${4:-64}
secs=${5:-5}
pid=
log=$(mktemp)
trap 'kill "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
export BODY=$body
source "$here/../.ci/start-server.sh"
SERVER_CPUS=0 start_server "$log" "$binary" --log-level "${LOG_LEVEL:-warn}"
pid=$server_pid
ticks() { awk '{print $14, $15}' "/proc/$pid/stat"; }
taskset -c 1 wrk -t1 -c"$conns" -d1s -s "$here/post.lua" "http://127.0.0.1:$port$path" >/dev/null  # warm-up
read -r u0 s0 < <(ticks)
requests=$(taskset -c 1 wrk -t1 -c"$conns" -d"${secs}s" -s "$here/post.lua" "http://127.0.0.1:$port$path" | awk '/^REQUESTS/ {print $2}')
read -r u1 s1 < <(ticks)
hz=$(getconf CLK_TCK)
awk -v r="$requests" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v hz="$hz" -v secs="$secs" 'BEGIN {
  printf "requests=%d req/s=%.0f user_us/req=%.2f sys_us/req=%.2f total_us/req=%.2f\n",
    r, r / secs, u / hz * 1e6 / r, s / hz * 1e6 / r, (u + s) / hz * 1e6 / r }'
