#!/usr/bin/env bash
# The cost of a repro against the check of the same log (issue 21, part 5): for each
# ruleset, a log of EVENTS events or runs (default 1,000,000; refresh's JSON form:
# 100,000, see REFRESH_JSON_RUNS) whose last step
# diverges, as JSON and as NDJSON; `device-oracle check --steps failing` and
# `device-oracle repro` on it, alternately, ROUNDS times (default 5): the median wall
# time and peak RSS of each and the median of the pairwise time differences. The
# model's own cost (its state graph and the shortest route) is what a repro of a
# 50-event log adds to its check, measured the same way (median of 31 pairs).
# The bound, for both forms: the median of (repro − check) over the pairs at most 1 ms
# for the model, with 5 % of the check allowed for the noise of a shared machine; exit
# status 1 when broken.
# Usage: [RULESETS="playback refresh"] [EVENTS=N] [ROUNDS=N] bench/repro.sh [BINARY]
#        default BINARY: swift build -c release, then its binary
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
binary=${1:-}
if [[ -z $binary ]]; then
  (cd "$repo" && swift build -c release --product device-oracle >&2)
  binary=$(cd "$repo" && swift build -c release --show-bin-path)/device-oracle
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rulesets=${RULESETS:-playback haptics audio-session refresh}
python3 - "$binary" "$work" "${EVENTS:-1000000}" $rulesets <<'PY'
import json, os, subprocess, sys
binary, work, events, rulesets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

# Refresh's JSON answer is held whole within a 64 MiB budget, and every run's step
# repeats the store before and after it: a JSON log of a million runs is a 422 by
# design (its NDJSON form streams). Its JSON log has this many runs.
REFRESH_JSON_RUNS = 100_000

def log(ruleset, count, name):
    """The ruleset's random plan walks, their events (refresh: runs) repeated to `count`,
    with a wrong `observed` on the last: the head members of the first walk, every
    walk's events."""
    sequence = "runs" if ruleset == "refresh" else "events"
    plan = json.loads(subprocess.run([binary, "plan", ruleset, "--coverage", "random", "--count", "10",
                                      "--max-length", "1000", "--seed", "21"], capture_output=True, check=True).stdout)
    head = {k: v for k, v in plan["sequences"][0]["request"].items() if k != sequence}
    pool = [e for s in plan["sequences"] for e in s["request"][sequence]]
    chosen = [pool[i % len(pool)] for i in range(count)]
    last = chosen[-1]
    path = os.path.join(work, f"{name}.json")
    def write_json(events):
        with open(path, "w") as f:
            json.dump(dict(head, **{sequence: events}), f, separators=(",", ":"))
    if ruleset == "refresh":
        # A run's outcome follows from its fault alone: observe another.
        outcome = {None: "succeeded", "error": "failed", "expire": "expired", "crash": "crashed"}[(last.get("fault") or {}).get("kind")]
        chosen[-1] = dict(last, observed={"outcome": "crashed" if outcome != "crashed" else "failed"})
        write_json(chosen[-REFRESH_JSON_RUNS:])
    else:
        # The last event's canonical step: replay the whole log once, then observe a
        # state field of it with a value it has at another step (not null: a field
        # given as null is one left out).
        write_json(chosen)
        steps = json.loads(subprocess.run([binary, "check", ruleset, path, "--steps", "all"],
                                          capture_output=True).stdout)["steps"]
        after = steps[-1]["after"]
        field, wrong = next((k, step["after"][k]) for k in sorted(after) for step in steps[-1000:]
                            if not isinstance(after[k], (dict, list)) and step["after"].get(k) not in (None, after[k]))
        chosen[-1] = dict(last, observed={field: wrong})
        write_json(chosen)
    ndjson = os.path.join(work, f"{name}.ndjson")
    with open(ndjson, "w") as f:
        f.write(json.dumps(head, separators=(",", ":")) + "\n")
        for event in chosen:
            f.write(json.dumps(event, separators=(",", ":")) + "\n")
    return path, ndjson

for ruleset in rulesets:
    log(ruleset, events, ruleset)
    log(ruleset, 50, f"{ruleset}-tiny")
PY

# Timed from a fresh, small process: a child forked from the one that held the logs
# would count its pages in the peak RSS.
python3 - "$binary" "$work" "${ROUNDS:-5}" $rulesets <<'PY'
import os, statistics, subprocess, sys, time
binary, work, rounds, rulesets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

def run(args):
    """Wall seconds and peak RSS (MiB) of one command, its output thrown away."""
    start = time.perf_counter()
    process = subprocess.Popen([binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)

def pairs(check, repro, n):
    checks, repros, differences = [], [], []
    for _ in range(n):
        c, r = run(check), run(repro)
        assert c[2] == 1, f"the check did not fail: {check}"
        assert r[2] == 0, f"the repro did not answer: {repro}"
        checks.append(c); repros.append(r); differences.append(r[0] - c[0])
    median = lambda xs, i: statistics.median(x[i] for x in xs)
    return median(checks, 0), median(repros, 0), statistics.median(differences), median(checks, 1), median(repros, 1)

broken = False
print("| ruleset | form | MB | check s | repro s | repro − check (median of pairs) | check RSS MiB | repro RSS MiB | model: 50-event repro − check |")
print("|---|---|---|---|---|---|---|---|---|")
for ruleset in rulesets:
    path, ndjson, tiny = (os.path.join(work, f"{ruleset}{suffix}") for suffix in (".json", ".ndjson", "-tiny.json"))
    # A 50-event log: process start and parsing are the same, the difference is the model.
    _, _, model, _, _ = pairs(["check", ruleset, tiny, "--steps", "failing"], ["repro", ruleset, tiny], 31)
    for form, file, flags in [("JSON", path, []), ("NDJSON", ndjson, ["--ndjson"])]:
        check, repro, difference, check_rss, repro_rss = pairs(["check", ruleset, file, "--steps", "failing"] + flags,
                                                               ["repro", ruleset, file] + flags, rounds)
        size = os.path.getsize(file) / 1e6
        print(f"| {ruleset} | {form} | {size:.0f} | {check:.3f} | {repro:.3f} | {difference * 1000:+.1f} ms | "
              f"{check_rss:.0f} | {repro_rss:.0f} | {model * 1000:+.2f} ms |", flush=True)
        if difference > check * 0.05 + 0.001:
            broken = True
            print(f"  broken: {ruleset} {form} repro − check {difference * 1000:.1f} ms over 5 % of {check:.3f} s + 1 ms")
sys.exit(1 if broken else 0)
PY
