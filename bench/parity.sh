#!/usr/bin/env bash
# What a ruleset's ratio to playback (bench/rulesets.sh) could be if it did playback's
# work per byte: the bound its body and answer sizes set, measured on one server.
#
# Large bodies: each POST twice, with ?steps=all and ?steps=none (curl time_total,
# median of N, the forms taking turns). The two differ only in the answer's bytes, so
# they give playback's cost per answer byte; what is left of a body's time is its
# request side (reading, running, findings). "At parity" is the ratio this ruleset would
# get if its request side cost playback's per request byte and its answer playback's
# per answer byte: the limit that its answer's size, fixed by the spec, puts on it.
#
# Small bodies: req/s at c=64 of playback's small body, of two playback logs cut to the
# ruleset's small body's size (one with as many request bytes, one with as many answer
# bytes: between them, a playback body of that size), and of the ruleset's own. What
# playback itself gets on a body that size is the limit for the ruleset. Measured
# ROUNDS times, medians of the rounds' ratios: req/s drifts by a tenth between runs here.
# Usage: [ROUNDS=K] bench/parity.sh BINARY [N] [SECS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:?usage: parity.sh BINARY [N] [SECS]}
n=${2:-15} secs=${3:-3} rounds=${ROUNDS:-3}
source "$here/../.ci/start-server.sh"
source "$here/clients.sh"
work=$(mktemp -d)
python3 "$here/bodies/generate.py" "$work" >/dev/null
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
SERVER_CPUS=0 start_server "$work/server.log" "$binary" --log-level warn

# timed PATH BODY: "seconds answer-bytes" of one POST
timed() { post "$port" "$1" "$2" '%{time_total} %{size_download}\n'; }
answer_bytes() { timed "$1" "$2" | cut -d' ' -f2; }
declare -A large_bytes
for entry in "${rulesets[@]}"; do
  name=${entry%%:*}
  large_bytes[$name]=$(stat -c %s "$work/$name-large.json")
  timed "${entry#*:}" "$work/$name-large.json" >/dev/null
done
for _ in $(seq 1 "$n"); do
  for entry in "${rulesets[@]}"; do
    name=${entry%%:*} path=${entry#*:}
    for steps in all none; do
      echo "$name $steps ${large_bytes[$name]} $(timed "$path?steps=$steps" "$work/$name-large.json")"
    done
  done
done >"$work/large.txt"

# Playback logs of 1 to 40 events, cut from the large one, and what they answer: for
# each small body, the shortest with as many request bytes and the shortest with as
# many answer bytes, so the two bracket a playback body of the ruleset's size.
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
log = json.load(open(f"{work}/playback-large.json"))["events"]
initial = json.load(open(f"{work}/playback-small.json"))["initial"]
for count in range(1, 41):
    open(f"{work}/cut-{count}.json", "w").write(json.dumps({"initial": initial, "events": log[:count]}, separators=(",", ":")))
EOF
for count in $(seq 1 40); do
  echo "$count $(stat -c %s "$work/cut-$count.json") $(answer_bytes /playback/apply "$work/cut-$count.json")"
done >"$work/cuts.txt"
# playback_cut COLUMN BYTES: "request-bytes answer-bytes file" of the first cut whose column
# (2 request, 3 answer) reaches BYTES
playback_cut() { awk -v c="$1" -v b="$2" -v w="$work" '$c >= b { print $2, $3, w "/cut-" $1 ".json"; exit }' "$work/cuts.txt"; }
rps() { small "$port" "$1" "$2" "$secs"; }
# Each small body's sizes and its two cuts, once: "request answer in_a out_a cut_a in_b out_b cut_b"
declare -A sized
for entry in "${rulesets[@]:1}"; do
  name=${entry%%:*}
  request=$(stat -c %s "$work/$name-small.json") answer=$(answer_bytes "${entry#*:}" "$work/$name-small.json")
  sized[$name]="$request $answer $(playback_cut 2 "$request") $(playback_cut 3 "$answer")"
done
for _ in $(seq 1 "$rounds"); do
  for entry in "${rulesets[@]:1}"; do
    name=${entry%%:*}
    read -r request answer in_a out_a by_request in_b out_b by_answer <<<"${sized[$name]}"
    echo "$name $request $answer $(rps /playback/apply "$work/playback-small.json")" \
      "$in_a $out_a $(rps /playback/apply "$by_request") $in_b $out_b $(rps /playback/apply "$by_answer")" \
      "$(rps "${entry#*:}" "$work/$name-small.json")"
  done
done >"$work/small.txt"

python3 - "$work" <<'EOF'
import collections, statistics, sys
work = sys.argv[1]

seconds, answer, size = collections.defaultdict(list), {}, {}
for line in open(f"{work}/large.txt"):
    name, steps, request, time, answered = line.split()
    seconds[name, steps].append(float(time)); answer[name, steps] = int(answered); size[name] = int(request)
t = {key: statistics.median(values) for key, values in seconds.items()}
per_answer = {name: (t[name, "all"] - t[name, "none"]) / (answer[name, "all"] - answer[name, "none"]) for name in size}
a = per_answer["playback"]
request_side = {name: (t[name, "none"] - a * answer[name, "none"]) / size[name] for name in size}
mbps = lambda name, time: size[name] / time / 1e6
print("| large body | answer B per request B | ms per answer MB | request side per byte, ÷ playback's | ÷ playback now | ÷ playback at parity |")
print("|---|---|---|---|---|---|")
for name in size:
    now = mbps(name, t[name, "all"]) / mbps("playback", t["playback", "all"])
    parity = mbps(name, request_side["playback"] * size[name] + a * answer[name, "all"]) / mbps("playback", t["playback", "all"])
    print(f"| {name} | {answer[name, 'all'] / size[name]:.1f} | {per_answer[name] * 1e9:.2f} | "
          f"{request_side[name] / request_side['playback']:.2f} | {now:.3f} | {parity:.3f} |")
print()
print("| small body, c=64 (request, answer bytes) | playback's small body, req/s | playback cut to as many request bytes: ÷ | cut to as many answer bytes: ÷ | the ruleset's own: ÷ |")
print("|---|---|---|---|---|")
rows = collections.defaultdict(list)
for line in open(f"{work}/small.txt"):
    name, request, answered, base, in_a, out_a, by_request, in_b, out_b, by_answer, own = line.split()
    base = int(base)
    rows[f"{name} ({request} B, {answered} B)", f"{in_a} B, {out_a} B", f"{in_b} B, {out_b} B"].append(
        (base, int(by_request) / base, int(by_answer) / base, int(own) / base))
for (name, cut_a, cut_b), values in rows.items():
    median = lambda k: statistics.median(v[k] for v in values)
    print(f"| {name} | {median(0):.0f} | ({cut_a}) {median(1):.2f} | ({cut_b}) {median(2):.2f} | {median(3):.2f} |")
EOF
