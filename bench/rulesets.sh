#!/usr/bin/env bash
# Every ruleset on the benchmark bodies (bench/bodies/generate.py), in one run: the large
# body's MB/s (median of N curl POSTs, curl on CPU 1, the rulesets and the two binaries
# taking turns POST by POST) and the small body's req/s under wrk at c=64, each with its
# ratio to playback's; and, given a second binary (main's), playback's ratio to it.
# Servers pinned to CPU 0 (wrk on CPU 1), both started once; the small bodies are
# measured one binary after the other, ruleset by ruleset. ROUNDS=K repeats the whole
# measurement K times and ends with the median of each ratio over the rounds: on a
# shared machine one round's ratios swing by a quarter. The large body's wall clock
# includes curl receiving the answer, whose size per request byte differs by ruleset
# (the spec fixes its form), so each round also shows the server's own CPU time per
# byte of large request (utime + stime around its N POSTs) and playback's ÷ it: the
# engine's share of the ratio, without the client's.
# Usage: [ROUNDS=K] bench/rulesets.sh BINARY [BASELINE_BINARY] [N] [SECS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:?usage: rulesets.sh BINARY [BASELINE_BINARY] [N] [SECS]}
baseline=${2:-} n=${3:-10} secs=${4:-5}
source "$here/../.ci/start-server.sh"
source "$here/clients.sh"
work=$(mktemp -d)
python3 "$here/bodies/generate.py" "$work" >/dev/null

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
SERVER_CPUS=0 start_server "$work/new.log" "$binary" --log-level warn
pids+=("$server_pid") new_port=$port new_pid=$server_pid
if [[ -n $baseline ]]; then
  SERVER_CPUS=0 start_server "$work/base.log" "$baseline" --log-level warn
  pids+=("$server_pid") base_port=$port
fi

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# large_round: each ruleset's large body N times, the rulesets (and the two servers)
# taking turns POST by POST, so that load from a neighbour on this shared machine falls
# on every ruleset alike rather than on whichever was being measured when it came. Sets
# new_large and base_large (MB/s of the median POST) and new_cpu (the server's CPU
# nanoseconds per request byte, summed around its own POSTs).
large_round() {
  local entry name path size before
  local -A seconds=() base_seconds=() ticks=()
  for entry in "${rulesets[@]}"; do  # one each first, unmeasured
    name=${entry%%:*} path=${entry#*:}
    post "$new_port" "$path" "$work/$name-large.json" >/dev/null
    [[ -n $baseline ]] && post "$base_port" "$path" "$work/$name-large.json" >/dev/null
  done
  for _ in $(seq 1 "$n"); do
    for entry in "${rulesets[@]}"; do
      name=${entry%%:*} path=${entry#*:}
      before=$(cpu_ticks "$new_pid")
      seconds[$name]+="$(post "$new_port" "$path" "$work/$name-large.json")"$'\n'
      ticks[$name]=$(( ${ticks[$name]:-0} + $(cpu_ticks "$new_pid") - before ))
      [[ -n $baseline ]] && base_seconds[$name]+="$(post "$base_port" "$path" "$work/$name-large.json")"$'\n'
    done
  done
  for entry in "${rulesets[@]}"; do
    name=${entry%%:*}
    size=$(stat -c %s "$work/$name-large.json")
    new_large[$name]=$(mbps "$size" "${seconds[$name]}")
    new_cpu[$name]=$(awk -v s="$size" -v c="${ticks[$name]}" -v k="$(getconf CLK_TCK)" -v n="$n" \
      'BEGIN { printf "%.2f", c / k / n / s * 1e9 }')
    [[ -n $baseline ]] && base_large[$name]=$(mbps "$size" "${base_seconds[$name]}")
  done
  return 0
}

declare -A ratios  # "name kind" -> one ratio per round, a line each
for round in $(seq 1 "${ROUNDS:-1}"); do
  declare -A new_large=() new_small=() base_large=() base_small=() new_cpu=()
  large_round
  for entry in "${rulesets[@]}"; do
    name=${entry%%:*} path=${entry#*:}
    new_small[$name]=$(small "$new_port" "$path" "$work/$name-small.json" "$secs")
    [[ -n $baseline ]] && base_small[$name]=$(small "$base_port" "$path" "$work/$name-small.json" "$secs")
  done

  [[ ${ROUNDS:-1} -gt 1 ]] && echo "round $round"
  header="| ruleset | large MB/s | ÷ playback | server CPU ns/B (large) | playback's ÷ | small req/s c=64 | ÷ playback |"
  rule="|---|---|---|---|---|---|---|"
  [[ -n $baseline ]] && header+=" baseline large MB/s | baseline small req/s |" rule+="---|---|"
  echo "$header"
  echo "$rule"
  for entry in "${rulesets[@]}"; do
    name=${entry%%:*}
    large_ratio=$(ratio "${new_large[$name]}" "${new_large[playback]}")
    small_ratio=$(ratio "${new_small[$name]}" "${new_small[playback]}")
    cpu_ratio=$(ratio "${new_cpu[playback]}" "${new_cpu[$name]}")
    ratios["$name large"]+="$large_ratio"$'\n' ratios["$name small"]+="$small_ratio"$'\n'
    ratios["$name cpu"]+="$cpu_ratio"$'\n'
    line="| $name | ${new_large[$name]} | $large_ratio | ${new_cpu[$name]} | $cpu_ratio | ${new_small[$name]} | $small_ratio |"
    [[ -n $baseline ]] && line+=" ${base_large[$name]} | ${base_small[$name]} |"
    echo "$line"
  done
  if [[ -n $baseline ]]; then
    playback_large=$(ratio "${new_large[playback]}" "${base_large[playback]}")
    playback_small=$(ratio "${new_small[playback]}" "${base_small[playback]}")
    ratios["baseline large"]+="$playback_large"$'\n' ratios["baseline small"]+="$playback_small"$'\n'
    echo
    echo "playback against the baseline: large ${playback_large}×, small ${playback_small}×"
  fi
  echo
done

if [[ ${ROUNDS:-1} -gt 1 ]]; then
  echo "medians over $ROUNDS rounds"
  echo "| ruleset | large ÷ playback | server CPU per large byte, playback's ÷ | small c=64 ÷ playback |"
  echo "|---|---|---|---|"
  for entry in "${rulesets[@]:1}"; do
    name=${entry%%:*}
    echo "| $name | $(printf %s "${ratios[$name large]}" | median) | $(printf %s "${ratios[$name cpu]}" | median) | $(printf %s "${ratios[$name small]}" | median) |"
  done
  if [[ -n $baseline ]]; then
    echo
    echo "playback against the baseline: large $(printf %s "${ratios[baseline large]}" | median)×, small $(printf %s "${ratios[baseline small]}" | median)×"
  fi
fi
