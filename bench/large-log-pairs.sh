#!/usr/bin/env bash
# The 100k-event log against the Go peer in ROUNDS alternating pairs, since Go's time
# alone swings by half between runs on this shared machine: each pair is Go's median
# of N sequential POSTs, then DeviceOracle's (the shared harness's large-bench.sh, curl),
# both servers on CPU 0 and started once. Prints one line per pair, the median ratio,
# and each server's peak RSS, and DeviceOracle's RSS once it has been quiet for 1.5 s
# (the heap it kept for the next large request is given back after a quiet second).
# Usage: bench/large-log-pairs.sh BINARY WORK [ROUNDS] [N]
#        WORK: a set-up copy of ../shared/bench (bench/run.sh makes one)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:?usage: large-log-pairs.sh BINARY WORK [ROUNDS] [N]}
work=${2:?usage: large-log-pairs.sh BINARY WORK [ROUNDS] [N]}
rounds=${3:-5} n=${4:-10}
source "$here/../.ci/start-server.sh"
log=$(mktemp)
SERVER_CPUS=0 start_server "$log" "$binary" --log-level warn
oracle_pid=$server_pid oracle_port=$port
go_port=8083
taskset -c 0 "$work/build/go-peer" -addr "127.0.0.1:$go_port" >/dev/null 2>&1 &
go_pid=$!
trap 'kill "$oracle_pid" "$go_pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$go_port/" && break; sleep 0.1; done

mbs() { (cd "$work" && ./large-bench.sh "$1" "$n") | grep -oE 'req_MB/s=[0-9.]+' | cut -d= -f2; }
ratios=()
for ((round = 1; round <= rounds; round++)); do
  go=$(mbs "http://127.0.0.1:$go_port/playback/apply")
  oracle=$(mbs "http://127.0.0.1:$oracle_port/playback/apply")
  ratio=$(awk -v g="$go" -v o="$oracle" 'BEGIN { printf "%.2f", o / g }')
  echo "pair $round: go $go MB/s, oracle $oracle MB/s, ratio $ratio"
  ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -g |
  awk '{ v[NR] = $1 } END { printf "median ratio over %d pairs: %s\n", NR, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
mib() { awk -v key="$2" '$1 == key":" { printf "%d", $2 / 1024 }' "/proc/$1/status"; }
peak_go=$(mib "$go_pid" VmHWM) peak_oracle=$(mib "$oracle_pid" VmHWM)
sleep 1.5
echo "peak RSS: go $peak_go MiB, oracle $peak_oracle MiB; oracle after 1.5 s quiet: $(mib "$oracle_pid" VmRSS) MiB"
