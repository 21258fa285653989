# Sourced by the benchmarks that go through every ruleset: the rulesets, and the clients
# bench/rulesets.sh and bench/parity.sh share, pinned to CPU 1 while the server runs on
# CPU 0 (bench/run.sh and bench/memory-budget.sh take only the list).
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$bench_dir/median.sh"

# Every ruleset as NAME:PATH, playback first: the others are measured against it. Read
# from the binary's registry (`$binary rulesets`: NAME/VERSION PATH a line, newest version
# first); a path is listed once, by its ruleset's name, as an unpinned body gets its newest.
rulesets=()
while read -r name path; do
  [[ " ${rulesets[*]} " == *":$path "* ]] || rulesets+=("${name%%/*}:$path")
done < <("${binary:?clients.sh: set binary before sourcing it}" rulesets)
(( ${#rulesets[@]} )) || { echo "clients.sh: $binary rulesets listed none" >&2; exit 1; }

# post PORT PATH BODY [WRITE_OUT]: one POST of the JSON file BODY; prints curl's
# WRITE_OUT (default: the seconds it took)
post() {
  local write_out='%{time_total}\n'
  [[ $# -ge 4 ]] && write_out=$4
  taskset -c 1 curl -s -o /dev/null -w "$write_out" --data-binary @"$3" \
    -H 'Content-Type: application/json' "http://127.0.0.1:$1$2"
}

# mbps BYTES SECONDS: MB/s of a body of BYTES over the median of SECONDS (a line each)
mbps() { awk -v s="$1" -v t="$(printf %s "$2" | median)" 'BEGIN { printf "%.1f", s / t / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# small PORT PATH BODY SECS: req/s of POSTs of BODY at c=64 for SECS seconds (as JSON, or
# as CONTENT_TYPE when set)
small() {
  BODY=$3 taskset -c 1 wrk -t1 -c64 -d"$4s" -s "$bench_dir/post.lua" "http://127.0.0.1:$1$2" |
    awk '/^Requests\/sec/ { printf "%.0f", $2 }'
}
