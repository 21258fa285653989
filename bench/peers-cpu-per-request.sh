#!/usr/bin/env bash
# Server CPU time per small request (user + system, µs) of DeviceOracle, the Go peer
# and nginx's fixed 200 (the protocol limit), each pinned to CPU 0 under the same wrk
# load (c=64, POST /playback/apply with the shared small body, wrk on CPU 1), the
# three taking turns for ROUNDS rounds; medians per server. On this shared machine
# the pinned req/s of compare.sh swings by 3x with the other builds on CPU 0, while the
# CPU a request costs moves far less: a server that has its core to itself answers
# 1 / (CPU per request) requests a second, so the inverse ratio of the medians is the
# c=64 req/s ratio the core allows. Go's runtime threads and nginx's worker are all on
# CPU 0 and counted (the server and its children).
# Usage: bench/peers-cpu-per-request.sh BINARY [ROUNDS] [SECONDS]   (defaults 5 and 5)
# Env: WORK (default /tmp/device-oracle-peer-bench): a writable copy of ../shared/bench
# on which setup.sh has run (bench/run.sh makes it); the Go peer is built there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:?usage: peers-cpu-per-request.sh BINARY [ROUNDS] [SECONDS]}
rounds=${2:-5} secs=${3:-5}
work=${WORK:-/tmp/device-oracle-peer-bench}
(cd "$work/peers/go" && go build -o "$work/build/go-peer" .)
mkdir -p /tmp/bench-nginx
out=$(mktemp -d)
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$out"' EXIT
export BODY=$work/bodies/small.json
source "$here/median.sh"
declare -A start=(
  [nginx]="nginx -p /tmp/bench-nginx -e /tmp/bench-nginx/error.log -c $work/peers/nginx/nginx.conf -g 'daemon off; worker_processes 1;'"
  [go]="$work/build/go-peer -addr 127.0.0.1:8082"
  [oracle]="$binary serve --host 127.0.0.1 --port 8091 --log-level warn"
)
declare -A ports=([nginx]=8081 [go]=8082 [oracle]=8091)

# Clock ticks (user + system) of a process and its children.
ticks() {
  local p total=0
  for p in "$1" $(ps -o pid= --ppid "$1"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
# measure NAME: prints "µs-per-request req/s" of one server under the load.
measure() {
  local url=http://127.0.0.1:${ports[$1]}/playback/apply t0 t1 requests i
  bash -c "exec taskset -c 0 ${start[$1]}" >"$out/$1.log" 2>&1 &
  pid=$!
  for ((i = 0; i < 100; i++)); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' -d @"$BODY" "$url" || true) == 200 ]] && break
    sleep 0.1
  done
  taskset -c 1 wrk -t1 -c64 -d1s -s "$here/post.lua" "$url" >/dev/null  # warm-up
  t0=$(ticks "$pid")
  requests=$(taskset -c 1 wrk -t1 -c64 -d"${secs}s" -s "$here/post.lua" "$url" | awk '/^REQUESTS/ {print $2}')
  t1=$(ticks "$pid")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  pid=
  awk -v r="$requests" -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v secs="$secs" \
    'BEGIN { printf "%.2f %.0f\n", t / hz * 1e6 / r, r / secs }'
}

for ((round = 1; round <= rounds; round++)); do
  for name in nginx go oracle; do
    read -r us rps < <(measure "$name")
    echo "round $round $name: $us µs/request, $rps req/s" >&2
    echo "$name $us $rps" >>"$out/all"
  done
done
for name in nginx go oracle; do
  echo "$name $(awk -v n="$name" '$1 == n {print $2}' "$out/all" | median) $(awk -v n="$name" '$1 == n {print $3}' "$out/all" | median)"
done | awk '{us[$1] = $2; rps[$1] = $3} END {
  for (n in us) printf "%s: median %.2f µs CPU per request, median %.0f req/s\n", n, us[n], rps[n]
  printf "req/s the core allows, oracle / go: %.2f (CPU per request go / oracle)\n", us["go"] / us["oracle"]
  printf "req/s the core allows, oracle / nginx: %.2f (CPU per request nginx / oracle)\n", us["nginx"] / us["oracle"] }'
