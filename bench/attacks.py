#!/usr/bin/env python3
"""Writes request bodies whose cost grew faster than their size (issue 16), at a given
count n: bench/quadratic.sh times each at n and 2n. Deterministic.
Usage: bench/attacks.py OUTDIR N"""
import json
import pathlib
import sys

out, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)


def write(name, body):
    (out / name).write_text(json.dumps(body, separators=(",", ":")) + "\n")


# Playback: every event names a session of its own.
write("sessions.json", {"events": [{"type": "userPlayed", "session": f"s{i}"} for i in range(n)]})
# /check: every case refused (a ruleset this build does not serve).
write("batch-refused.json", {"cases": [{"name": f"c{i}", "ruleset": "nope", "request": {}} for i in range(n)]})
# One object with n members, keys in descending order: each new key sorts first.
write("object-members.json", {"events": [], "observedFinal": {f"k{n - i:08d}": 0 for i in range(n)}})
# n unknown members, each a long name near a known one: did-you-mean on every one.
write("unknown-members.json", {"events": [{"type": "userPlayed", "x" * 40 + str(i): 1} for i in range(n)]})
# n events each with a problem: the 422 lists 50 and counts the rest.
write("problems.json", {"events": [{"type": "nope"} for _ in range(n)]})
# /rulesets/playback/coverage: every log refused.
write("coverage-refused.json", {"logs": [{"events": [{"type": "nope"}]} for _ in range(n)]})
# /check: every case's request repeats a key, so each case looks for its own duplicates.
case = '{"name":"c","ruleset":"playback","request":{"events":[],"events":[]}}'
(out / "batch-duplicates.json").write_text('{"cases":[' + ",".join([case] * n) + "]}\n")
# Haptics: a pattern of n empty events, each a handful of violations with a pointer.
write("pattern.json", {"pattern": [{} for _ in range(n)]})
