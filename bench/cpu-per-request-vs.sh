#!/usr/bin/env bash
# Server cost per small request, this tree's release build against a baseline commit's
# (default e049b41, the last one measured before issue 45's regression), alternately in
# one run. Both are built as the container builds them (release, static Swift runtime);
# the baseline once, in a worktree cached under .build/baseline-COMMIT.
#
# Two measures, each in PAIRS alternating pairs (baseline first), medians per side:
#  instructions  per request under callgrind (bench/instructions.sh): the main measure,
#                since an instruction count does not move with the four other builds on
#                this 2-core machine, where CPU time per request swings by 20-40 % from
#                run to run. It leaves out the kernel's side of each request.
#  cpu           server user and system time per request (bench/cpu-per-request.sh,
#                server on CPU 0, wrk on CPU 1): catches what the count leaves out (more
#                syscalls per request), as a ratio of medians within the run.
# Usage: bench/cpu-per-request-vs.sh [PAIRS] [SECONDS]     (defaults 3 and 5)
# Env:   BASE (commit, default e049b41), MEASURE (instructions, cpu or both; default both),
#        BODY and PATH_TRIED (default the small playback body at /playback/apply).
# KEEP=DIR keeps the callgrind files (callgrind_annotate DIR/base.1.* against DIR/tree.1.*).
# Needs valgrind and wrk (Debian).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
pairs=${1:-3}
export SECS=${2:-5}
base=${BASE:-e049b41}
measure=${MEASURE:-both}
work=$(mktemp -d)
server_pid=
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
source "$repo/.ci/start-server.sh"
source "$here/instructions.sh"
source "$here/median.sh"

# Builds the release binary of the tree at $1 and prints its path.
release_binary() {
  (cd "$1" && swift build -c release --static-swift-stdlib --product device-oracle >&2)
  echo "$(cd "$1" && swift build -c release --static-swift-stdlib --show-bin-path)/device-oracle"
}
baseline_tree=$repo/.build/baseline-$base
if [[ ! -d $baseline_tree ]]; then
  git -C "$repo" worktree add --detach "$baseline_tree" "$base" >&2
fi
echo "== build $base (cached in $baseline_tree) and this tree" >&2
base_binary=$(release_binary "$baseline_tree")
tree_binary=$(release_binary "$repo")
path=${PATH_TRIED:-/playback/apply}
body=${BODY:-$here/bodies/playback-small.json}

# report NAME UNIT: reads "side value" lines, prints each side's values, medians and ratio.
report() {
  awk -v name="$1" -v unit="$2" '{v[$1] = v[$1] " " $2} END {
    printf "%s (%s): base%s | tree%s\n", name, unit, v["base"], v["tree"] }' "$work/$1"
  local b t
  b=$(awk '$1 == "base" {print $2}' "$work/$1" | median)
  t=$(awk '$1 == "tree" {print $2}' "$work/$1" | median)
  awk -v name="$1" -v b="$b" -v t="$t" -v base="$base" 'BEGIN {
    printf "%s median: %s %s, tree %s, tree/base %.3f\n", name, base, b, t, t / b }'
}

for ((i = 1; i <= pairs; i++)); do
  for side in base tree; do
    binary=$base_binary
    [[ $side == tree ]] && binary=$tree_binary
    if [[ $measure != cpu ]]; then
      read -r requests cost < <(instructions_per_request "$work/$side.$i" "$binary")
      echo "pair $i $side: $requests requests, $cost instructions/request" >&2
      echo "$side $cost" >>"$work/instructions"
      if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP" && cp "$work/$side.$i".* "$KEEP/"; fi
    fi
    if [[ $measure != instructions ]]; then
      line=$("$here/cpu-per-request.sh" "$binary" "$path" "$body" 64 "$SECS")
      echo "pair $i $side: $line" >&2
      sed -n 's/.*user_us\/req=\([0-9.]*\).*total_us\/req=\([0-9.]*\).*/\1 \2/p' <<<"$line" |
        { read -r user total; echo "$side $user" >>"$work/user_us"; echo "$side $total" >>"$work/total_us"; }
    fi
  done
done
[[ $measure != cpu ]] && report instructions "per request"
[[ $measure != instructions ]] && { report user_us "µs per request"; report total_us "µs per request"; }
exit 0
