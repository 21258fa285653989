#!/usr/bin/env python3
"""Writes the benchmark bodies of every ruleset: a small one (a typical CI check) and a
large one (an hour-long device log, about 3 MB), deterministic (one LCG, as the shared
harness's gen-large.py uses). Usage: bench/bodies/generate.py [OUTDIR] (default: here)."""
import json
import pathlib
import sys

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
out.mkdir(parents=True, exist_ok=True)


def lcg(seed=12345):
    x = seed
    while True:
        x = (x * 1103515245 + 12345) % 2**31
        yield x


def write(name, body):
    path = out / name
    path.write_text(json.dumps(body, separators=(",", ":")) + "\n")
    print(f"{path}: {path.stat().st_size} bytes")


def playback(n):
    kinds = ["interruptionBegan", "interruptionEnded", "outputDisconnected", "userPaused", "userPlayed"]
    events, rand = [], lcg()
    for _ in range(n):
        x = next(rand)
        event = {"type": kinds[(x >> 16) % len(kinds)]}
        if event["type"] == "interruptionEnded":
            event["shouldResume"] = (x >> 8) % 4 != 0
        events.append(event)
    return {"initial": {"isPlaying": True, "resumeAfterInterruption": False}, "events": events}


def haptics(n):
    kinds = ["saveTapped", "saveSucceeded", "saveTapped", "saveFailed", "engineStopped", "appBackgrounded",
             "appForegrounded", "hapticFailed", "engineReset"]
    events, rand = [], lcg()
    for _ in range(n):
        events.append({"type": kinds[(next(rand) >> 16) % len(kinds)]})
    pattern = [{"eventType": "hapticTransient", "relativeTime": 0,
                "parameters": {"hapticIntensity": 0.65, "hapticSharpness": 0.35}}]
    return {"pattern": pattern, "events": events}


def audio_session(n):
    kinds = ["launched", "playSound", "playSound", "enteredBackground", "enteredForeground", "interruptionBegan",
             "interruptionEnded", "routeChanged", "deactivationFailed", "deactivationSucceeded",
             "mediaServicesLost", "mediaServicesReset"]
    events, rand = [], lcg()
    for _ in range(n):
        x = next(rand)
        event = {"type": kinds[(x >> 16) % len(kinds)]}
        if event["type"] == "playSound":
            event["name"] = "coin"
        elif event["type"] == "routeChanged":
            event["reason"] = (x >> 8) % 9
        elif event["type"] == "interruptionEnded":
            event["shouldResume"] = (x >> 8) % 2 == 0
        events.append(event)
    return {"category": "ambient", "events": events}


def refresh(runs, ids):
    rand, body = lcg(), {"runs": []}
    faults = [None, None, None, {"kind": "error", "stage": "download"}, {"kind": "expire", "stage": "write"},
              {"kind": "crash", "stage": "cursor"}]
    for r in range(runs):
        x = next(rand)
        items = [{"id": str((x >> 4) % ids + k), "title": f"t{(x >> 8) % 97}"} for k in range(5)]
        run = {"at": 900 * r, "pages": [{"items": items, "nextCursor": f"c{r}"}]}
        fault = faults[(x >> 16) % len(faults)]
        if fault:
            run["fault"] = dict(fault, page=0)
        body["runs"].append(run)
    body["config"] = {
        "tasks": [{"identifier": "com.example.app.refresh", "kind": "appRefresh"}],
        "infoPlist": {"BGTaskSchedulerPermittedIdentifiers": ["com.example.app.refresh"],
                      "UIBackgroundModes": ["fetch"]}}
    return body


write("playback-small.json", {"initial": {"isPlaying": True, "resumeAfterInterruption": False},
                              "events": [{"type": "interruptionBegan"}, {"type": "userPaused"},
                                         {"type": "interruptionEnded", "shouldResume": True},
                                         {"type": "outputDisconnected"}]})
write("playback-large.json", playback(100_000))
write("haptics-small.json", haptics(4))
write("haptics-large.json", haptics(120_000))
write("audio-session-small.json", audio_session(6))
write("audio-session-large.json", audio_session(100_000))
write("refresh-small.json", refresh(3, 10))
write("refresh-large.json", refresh(20_000, 40))
