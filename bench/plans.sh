#!/usr/bin/env bash
# Plans, diagrams and coverage (issue 8, item 6), against the release binary:
# - for every ruleset, the median time of a transitions plan and of each diagram
#   format over REPEAT requests (curl's time_total, keep-alive off): well under 100 ms;
# - one coverage request of 1,000 playback logs of 100 events each (about 4 MB): its
#   time, and the server's peak RSS growth while answering it (VmHWM after the
#   request minus VmRSS before it, the peak reset first through clear_refs): under
#   4× the body size.
# Exit status 1 when a bound is broken.
#
# Usage: bench/plans.sh [BINARY]    default: swift build -c release, then its binary
# Env:   REPEAT (default 20), LOGS (default 1000), EVENTS (default 100)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
repeat=${REPEAT:-20}
logs=${LOGS:-1000}
events=${EVENTS:-100}

binary=${1:-}
if [[ -z $binary ]]; then
  (cd "$repo" && swift build -c release --product device-oracle >&2)
  binary=$(cd "$repo" && swift build -c release --show-bin-path)/device-oracle
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
source "$repo/.ci/start-server.sh"
start_server "$work/server.out" "$binary" --log-level warn
base=http://127.0.0.1:$port
failed=0

# The median of REPEAT requests, in ms. Arguments: curl's own.
median_ms() {
  for _ in $(seq 1 "$repeat"); do
    curl -s -o /dev/null -w '%{time_total}\n' "$@"
  done | sort -n | awk '{ t[NR] = $1 } END { printf "%.2f", t[int((NR + 1) / 2)] * 1000 }'
}

echo "| ruleset | plan (transitions) ms | plan steps | diagram mermaid ms | diagram dot ms |"
echo "|---|---|---|---|---|"
for ruleset in playback/1 haptics/1 refresh/1 audio-session/1; do
  curl -s -o /dev/null -X POST "$base/rulesets/$ruleset/plan"  # warm-up
  plan=$(median_ms -X POST "$base/rulesets/$ruleset/plan")
  steps=$(curl -s -X POST "$base/rulesets/$ruleset/plan" | sed -n 's/.*"steps":\([0-9]*\),"sequences".*/\1/p')
  mermaid=$(median_ms "$base/rulesets/$ruleset/diagram?format=mermaid")
  dot=$(median_ms "$base/rulesets/$ruleset/diagram?format=dot")
  echo "| $ruleset | $plan | $steps | $mermaid | $dot |"
  for ms in "$plan" "$mermaid" "$dot"; do
    awk -v ms="$ms" 'BEGIN { exit !(ms >= 100) }' && failed=1
  done
done

python3 - "$work/coverage.json" "$logs" "$events" <<'PY'
import json, random, sys
path, logs, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(8)
# Lean events, about 40 bytes each as devices log them canonically: 100 make a 4 KB log.
kinds = [
    {"type": "userPlayed", "observed": {"isPlaying": True}},
    {"type": "interruptionBegan"},
    {"type": "interruptionEnded", "shouldResume": True},
    {"type": "userPaused", "observed": {"isPlaying": False}},
    {"type": "routeChanged", "reason": 2},
    {"type": "outputDisconnected"},
]
body = {"logs": [{"events": [rng.choice(kinds) for _ in range(events)]} for _ in range(logs)]}
with open(path, "w") as f:
    json.dump(body, f, separators=(",", ":"))
PY
size=$(stat -c %s "$work/coverage.json")
curl -s -o /dev/null -X POST "$base/rulesets/playback/1/plan"  # the answer path warmed up
rss_before=$(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status")
# Resets VmHWM to the current RSS (Linux, proc(5) "clear_refs"), so the peak is this request's.
echo 5 >"/proc/$server_pid/clear_refs" 2>/dev/null || echo "note: clear_refs not writable; VmHWM includes the startup peak" >&2
started=$(date +%s%N)
status=$(curl -s -o "$work/coverage.out" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data-binary @"$work/coverage.json" "$base/rulesets/playback/1/coverage")
ms=$((($(date +%s%N) - started) / 1000000))
hwm_after=$(awk '/^VmHWM/ {print $2}' "/proc/$server_pid/status")
growth=$((hwm_after - rss_before))
limit=$((4 * size / 1024))
coverage=$(sed -n 's/.*"transitionCoverage":\([0-9.e-]*\),.*/\1/p' "$work/coverage.out")
echo
echo "coverage of $logs logs × $events events: $((size / 1024)) KiB body, status $status, $ms ms, transitionCoverage $coverage"
echo "server RSS before $((rss_before / 1024)) MiB, peak during the request $((hwm_after / 1024)) MiB:" \
  "growth $((growth / 1024)) MiB = $(awk -v g="$growth" -v s="$size" 'BEGIN { printf "%.2f", g * 1024 / s }')× the body (limit 4×)"
[[ $status == 200 ]] || failed=1
((growth < limit)) || failed=1
exit $failed
