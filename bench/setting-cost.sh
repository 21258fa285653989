#!/usr/bin/env bash
# What one server setting costs: the server with VARIABLE=BASE against VARIABLE=TRIED, in
# ROUNDS alternating pairs, so both sides of a pair see the same machine; odd pairs run BASE
# first and even pairs TRIED first, so a machine that speeds up or slows down over the run
# does not count for either side (ABBA order). Each side is
# bench/cpu-per-request.sh: req/s under wrk (c=64, server on CPU 0, wrk on CPU 1) and
# server CPU µs per request. Other variables pass through (LOG_LEVEL=warn, say).
# Prints one line per pair and the medians of the pairs' changes (req/s down and CPU per
# request up are the cost).
# Usage: bench/setting-cost.sh BINARY VARIABLE BASE TRIED [ROUNDS] [SECONDS]   (defaults: 5, 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1 variable=$2 base=$3 tried=$4
rounds=${5:-5}
secs=${6:-5}
field() { grep -oE "$1=[0-9.]+" <<<"$2" | cut -d= -f2; }
costs=()
for ((round = 1; round <= rounds; round++)); do
  measure() { env "$variable=$1" "$here/cpu-per-request.sh" "$binary" /playback/apply "$here/bodies/playback-small.json" 64 "$secs"; }
  if ((round % 2)); then
    before=$(measure "$base"); after=$(measure "$tried")
  else
    after=$(measure "$tried"); before=$(measure "$base")
  fi
  line=$(awk -v br="$(field req/s "$before")" -v ar="$(field req/s "$after")" \
             -v bc="$(field total_us/req "$before")" -v ac="$(field total_us/req "$after")" 'BEGIN {
    printf "%.1f %.1f %.0f %.0f %.2f %.2f", (ar / br - 1) * 100, (ac / bc - 1) * 100, br, ar, bc, ac }')
  read -r throughput cpu br ar bc ac <<<"$line"
  printf 'pair %d: %s %s req/s %s µs/req, %s %s req/s %s µs/req: req/s %+.1f %%, CPU/req %+.1f %%\n' \
    "$round" "$base" "$br" "$bc" "$tried" "$ar" "$ac" "$throughput" "$cpu"
  costs+=("$throughput $cpu")
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'median over %d pairs: req/s %+.1f %%, server CPU per request %+.1f %%\n' "$rounds" \
  "$(printf '%s\n' "${costs[@]}" | cut -d' ' -f1 | median)" "$(printf '%s\n' "${costs[@]}" | cut -d' ' -f2 | median)"
