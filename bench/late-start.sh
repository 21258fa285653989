#!/usr/bin/env bash
# What "initial": "unknown" costs (late-start.md): one 100k-event audio-session log
# checked with a known start, then with "initial": "unknown" (38 candidates), in
# ROUNDS alternating pairs of `device-oracle check` (one process per check, the
# whole answer written), and the ratio of the medians. The log is observed along its
# true path on about one event in ten, a field or two at a time, so candidates stay
# apart for a while; its true start is not the first candidate, so the JSON form
# walks the log twice. MIX=apart: only events that change no state (playSound), so all
# 38 candidates are followed apart to the end: the bound on a step's cost.
# Usage: [MIX=apart] bench/late-start.sh [BINARY] [ROUNDS] [EVENTS]   (defaults: release build, 7, 100000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../.build/release/device-oracle}
rounds=${2:-7} events=${3:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The true path: the log without observations, answered from its known start.
python3 - "$work" "$events" "${MIX:-lifecycle}" <<'PY'
import json, random, sys
work, count, mix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(47)
types = ["launched", "enteredBackground", "deactivationFailed", "deactivationSucceeded", "enteredForeground",
         "interruptionBegan", "mediaServicesLost", "mediaServicesReset", "willTerminate"]
events = []
for _ in range(count):
    roll = random.random()
    if mix == "apart":
        events.append({"type": "playSound", "name": random.choice(["coin", "jump"])})
    elif roll < 0.15:
        events.append({"type": "interruptionEnded", "shouldResume": random.random() < 0.5})
    elif roll < 0.25:
        events.append({"type": "playSound", "name": random.choice(["coin", "jump"])})
    else:
        events.append({"type": random.choice(types)})
start = {"foreground": True, "active": True, "interrupted": False, "categorySet": True, "observing": True,
         "deactivationPending": False}
json.dump({"initial": start, "events": events}, open(f"{work}/plain.json", "w"))
PY
"$binary" check audio-session "$work/plain.json" >"$work/truth.json" || true
python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
random.seed(7)
plain = json.load(open(f"{work}/plain.json"))
truth = json.load(open(f"{work}/truth.json"))
fields = ["foreground", "active", "interrupted", "categorySet", "observing", "deactivationPending"]
for event, step in zip(plain["events"], truth["steps"]):
    if random.random() < 0.1 and event["type"] != "playSound":
        event["observed"] = {field: step["after"][field] for field in random.sample(fields, 2)}
json.dump(plain, open(f"{work}/known.json", "w"))
plain["initial"] = "unknown"
json.dump(plain, open(f"{work}/unknown.json", "w"))
PY
echo "log: $events events, $(wc -c <"$work/known.json") bytes"
for form in known unknown; do
  "$binary" check audio-session "$work/$form.json" >"$work/$form.answer" && verdict=pass || verdict="exit $?"
  echo "$form: $verdict, $(python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print(len(a.get('initialCandidates', [1])), 'candidate(s), determinedAt', a.get('determinedAt'))" "$work/$form.answer")"
done

seconds() { local t0 t1; t0=$(date +%s%N); "$binary" check audio-session "$1" >/dev/null || true; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
known=() unknown=()
for ((round = 1; round <= rounds; round++)); do
  k=$(seconds "$work/known.json") u=$(seconds "$work/unknown.json")
  echo "pair $round: known ${k} ms, unknown ${u} ms"
  known+=("$k") unknown+=("$u")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mk=$(median "${known[@]}") mu=$(median "${unknown[@]}")
awk -v k="$mk" -v u="$mu" -v r="$rounds" 'BEGIN { printf "median over %d pairs: known %s ms, unknown %s ms, ratio %.2f (target <= 3)\n", r, k, u, u / k }'
