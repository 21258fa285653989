#!/usr/bin/env bash
# What the default access log costs: `--log-level warn` (no access lines, like the
# peers) against `info` (one line per request), in ROUNDS alternating pairs, so both
# sides of a pair see the same machine. Each side is bench/cpu-per-request.sh: req/s
# under wrk (c=64, server on CPU 0, wrk on CPU 1) and server CPU µs per request.
# Prints one line per pair and the medians of the pairs' changes (req/s down and CPU
# per request up are the cost).
# Usage: bench/access-log-cost.sh [BINARY] [ROUNDS] [SECONDS]   (defaults: release build, 5, 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../.build/release/device-oracle}
rounds=${2:-5}
secs=${3:-5}
field() { grep -oE "$1=[0-9.]+" <<<"$2" | cut -d= -f2; }
costs=()
for ((round = 1; round <= rounds; round++)); do
  warn=$(LOG_LEVEL=warn "$here/cpu-per-request.sh" "$binary" /playback/apply "$here/bodies/playback-small.json" 64 "$secs")
  info=$(LOG_LEVEL=info "$here/cpu-per-request.sh" "$binary" /playback/apply "$here/bodies/playback-small.json" 64 "$secs")
  line=$(awk -v wr="$(field req/s "$warn")" -v ir="$(field req/s "$info")" \
             -v wc="$(field total_us/req "$warn")" -v ic="$(field total_us/req "$info")" 'BEGIN {
    printf "%.1f %.1f %.0f %.0f %.2f %.2f", (ir / wr - 1) * 100, (ic / wc - 1) * 100, wr, ir, wc, ic }')
  read -r throughput cpu wr ir wc ic <<<"$line"
  printf 'pair %d: warn %s req/s %s µs/req, info %s req/s %s µs/req: req/s %+.1f %%, CPU/req %+.1f %%\n' \
    "$round" "$wr" "$wc" "$ir" "$ic" "$throughput" "$cpu"
  costs+=("$throughput $cpu")
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'median over %d pairs: req/s %+.1f %%, server CPU per request %+.1f %%\n' "$rounds" \
  "$(printf '%s\n' "${costs[@]}" | cut -d' ' -f1 | median)" "$(printf '%s\n' "${costs[@]}" | cut -d' ' -f2 | median)"
