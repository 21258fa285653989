#!/usr/bin/env python3
"""Records the corpus that CorpusTests replays: a few hundred requests to every
ruleset endpoint (valid and refused, canonical and raw-notification events), the
model routes and the batch check, each with the exact answer BINARY gives.

Usage: Tests/Fixtures/corpus/record.py BINARY [OUT]   (OUT: corpus.jsonl beside this)

Run it with the binary of the commit whose answers are the reference; the test then
holds every later build to those bytes. Requests are deterministic: plans with fixed
seeds, then fixed mutations of them, plus the documentation's examples (README and docs/).
"""
import json
import pathlib
import re
import socket
import subprocess
import sys
import time

here = pathlib.Path(__file__).resolve().parent
binary = sys.argv[1]
out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else here / "corpus.jsonl"
root = here.parent.parent.parent
# README first, then docs/ (where most examples moved in issue 46), in name order.
pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))

ENDPOINTS = {
    "playback": "/playback/apply",
    "haptics": "/haptics/contract",
    "refresh": "/refresh/run",
    "audio-session": "/audio-session/run",
}
STATE = {
    "audio-session": ["foreground", "active", "interrupted", "categorySet", "observing", "deactivationPending"],
}
ROUTE_REASONS = {"unknown": 0, "newDeviceAvailable": 1, "oldDeviceUnavailable": 2, "categoryChange": 3,
                 "override": 4, "wakeFromSleep": 6, "noSuitableRouteForCategory": 7, "routeConfigurationChange": 8}


def start():
    server = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "warn"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()
    port = int(re.search(r'"port":(\d+)', line).group(1))
    return server, port


def exchange(port, method, path, body, content_type="application/json"):
    """One request on its own connection (Connection: close); the answer's status,
    head lines but Date, and payload with any chunked coding removed."""
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    if body is not None:
        head += f"Content-Length: {len(body)}\r\n"
    raw = (head + "\r\n").encode() + (body or b"")
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(raw)
        data = b""
        while chunk := s.recv(1 << 16):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = [line for line in lines[1:] if not line.lower().startswith("date:")]
    if any(line.lower() == "transfer-encoding: chunked" for line in headers):
        payload = dechunk(payload)
    return int(lines[0].split(" ")[1]), headers, payload


def dechunk(data):
    out, rest = b"", data
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return out
        out, rest = out + rest[:size], rest[size + 2:]


def observed_of(ruleset, step, answer):
    if ruleset == "playback":
        after = step["after"]
        return {"isPlaying": after["isPlaying"], "resumeAfterInterruption": after["resumeAfterInterruption"],
                "action": step["action"]}
    if ruleset == "haptics":
        return {"phase": step["after"]["phase"], "visible": step["visible"], "haptic": step["haptic"],
                "engine": step["after"]["engine"]}
    if ruleset == "refresh":
        after = step["after"]
        observed = {k: step[k] for k in ["outcome", "taskCompleted", "pagesCommitted", "commits", "tempFilesLeft",
                                         "nextEarliestBeginAt"]}
        observed.update(cursor=after["cursor"], lastSuccessAt=after["lastSuccessAt"], items=after["items"])
        return observed
    observed = dict(step["after"])
    observed.update(actions=step["actions"], soundPlayed=step["soundPlayed"])
    return observed


def observed_final_of(ruleset, answer):
    final = answer["final"]
    if ruleset == "playback":
        return final
    if ruleset == "haptics":
        return {"phase": final["phase"], "engine": final["engine"], "hapticRequests": answer["summary"]["hapticRequests"]}
    if ruleset == "refresh":
        return {"items": [item["id"] for item in final["items"]], "cursor": final["cursor"],
                "lastSuccessAt": final["lastSuccessAt"], "commits": answer["summary"]["commits"]}
    return final


def wrong(value):
    """A value the device may have shown instead: another of the same kind, or a mismatch of type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + "X"
    if isinstance(value, list):
        return value[:-1] if value else ["unexpected"]
    return "unexpected"


def as_notification(event):
    """The raw AVAudioSession form of a canonical event, where one exists."""
    kind = event.get("type")
    if kind == "interruptionBegan":
        return {"notification": "AVAudioSessionInterruptionNotification", "userInfo": {"AVAudioSessionInterruptionTypeKey": 1}}
    if kind == "interruptionEnded":
        option = 1 if event.get("shouldResume") else 0
        return {"notification": "AVAudioSessionInterruptionNotification",
                "userInfo": {"AVAudioSessionInterruptionTypeKey": 0, "AVAudioSessionInterruptionOptionKey": option}}
    if kind == "routeChanged":
        reason = event.get("reason")
        number = ROUTE_REASONS.get(reason, reason if isinstance(reason, int) else 99)
        return {"notification": "AVAudioSessionRouteChangeNotification", "userInfo": {"AVAudioSessionRouteChangeReasonKey": number}}
    if kind == "mediaServicesWereLost":
        return {"notification": "AVAudioSessionMediaServicesWereLostNotification"}
    if kind == "mediaServicesWereReset":
        return {"notification": "AVAudioSessionMediaServicesWereResetNotification"}
    return None


def variants(ruleset, index, request, answer):
    """Valid forms first (as given, observed all right, one step wrong, ids, raw notifications),
    then one refused mutation chosen by `index`."""
    seq = "runs" if ruleset == "refresh" else "events"
    events = request[seq]
    yield "as given", request
    checked = json.loads(json.dumps(request))
    for event, step in zip(checked[seq], answer["steps"]):
        event["observed"] = observed_of(ruleset, step, answer)
    checked["observedFinal"] = observed_final_of(ruleset, answer)
    yield "observed, all right", checked
    if events:
        failing = json.loads(json.dumps(checked))
        k = index % len(events)
        field = sorted(failing[seq][k]["observed"])[index % len(failing[seq][k]["observed"])]
        failing[seq][k]["observed"][field] = wrong(failing[seq][k]["observed"][field])
        yield f"observed, {field} wrong at {k}", failing
        with_ids = json.loads(json.dumps(request))
        for n, event in enumerate(with_ids[seq]):
            event["id"] = f"line-{n}"
            if ruleset == "playback" and n % 2:
                event["session"] = f"s{n % 3}"
        yield "ids (and playback sessions)", with_ids
    if ruleset in ("playback", "audio-session") and any(as_notification(e) for e in events):
        raw = json.loads(json.dumps(request))
        raw[seq] = [as_notification(e) or e for e in raw[seq]]
        yield "raw notifications", raw

    refused = json.loads(json.dumps(request))
    mutation = index % 8
    if mutation == 0 and events:
        if ruleset == "refresh":
            refused[seq][0]["pages"] = 5
        else:
            refused[seq][-1]["type"] = "noSuchEvent"
        yield "refused: unknown event type or wrong member type", refused
    elif mutation == 1 and events:
        refused[seq][0]["observed"] = {"noSuchField": 1}
        yield "refused: unknown observed field", refused
    elif mutation == 2:
        refused[seq] = {}
        yield "refused: sequence not an array", refused
    elif mutation == 3:
        del refused[seq]
        yield "refused: sequence missing", refused
    elif mutation == 4:
        yield "refused: truncated JSON", json.dumps(request)[:-3]
    elif mutation == 5:
        refused["initial"] = {"noSuchState": True}
        yield "refused: unknown initial field", refused
    elif mutation == 6:
        refused["observedFinal"] = {"noSuchField": 0, "action": 1}
        yield "refused: unknown observedFinal field", refused
    elif mutation == 7 and events:
        refused[seq] = [42] + refused[seq] + [{"observed": []}]
        yield "refused: events not objects", refused


def readme_examples():
    """The documentation's `curl … -d '…'` examples, with their paths."""
    for line in (line for page in pages for line in page.read_text().splitlines()):
        match = re.match(r"^\$ curl .*?localhost:8080(/\S+) -d '(.*)'", line)
        if match:
            yield match.group(1), match.group(2)


HANDMADE = [
    ("playback", {"events": [{"notification": "AVAudioSessionInterruptionNotification", "userInfo": {}}]}),
    ("playback", {"events": [{"notification": "AVAudioSessionInterruptionNotification", "userInfo": {"AVAudioSessionInterruptionTypeKey": "1"}}]}),
    ("playback", {"events": [{"notification": "AVAudioSessionRouteChangeNotification", "userInfo": {"AVAudioSessionRouteChangeReasonKey": 2.0}}]}),
    ("playback", {"events": [{"notification": "AVAudioSessionMediaServicesWereResetNotification"}]}),
    ("playback", {"events": [{"notification": "NSSomethingElse", "userInfo": {"a": 1}}]}),
    ("playback", {"events": [{"type": "userPlayed", "notification": "AVAudioSessionInterruptionNotification"}]}),
    ("playback", {"events": [{"type": "routeChanged", "reason": "noSuchReason"}, {"type": "routeChanged"}]}),
    ("playback", {"events": [{"type": "interruptionEnded"}]}),
    ("playback", {"ruleset": "playback/2", "events": []}),
    ("playback", {"ruleset": "playback/1", "events": [], "extra": {"ignored": [1, 2]}}),
    ("playback", {"events": [{"type": "userPlayed", "session": 7}]}),
    ("playback", {"events": [{"type": "userPlayed", "id": 7}]}),
    ("playback", {"events": [{"type": "userPlayed", "observed": {"isPlaying": "yes", "action": None}}]}),
    ("audio-session", {"events": [{"notification": "AVAudioSessionInterruptionNotification", "userInfo": {"AVAudioSessionInterruptionTypeKey": 7}}]}),
    ("audio-session", {"events": [{"notification": "AVAudioSessionMediaServicesWereLostNotification"}, {"notification": "AVAudioSessionMediaServicesWereResetNotification"}]}),
    ("audio-session", {"category": "playback", "events": [{"type": "appLaunched"}]}),
    ("audio-session", {"category": "noSuchCategory", "events": []}),
    ("haptics", {"pattern": [], "events": [{"type": "saveTapped"}]}),
    ("haptics", {"pattern": [{"eventType": "hapticTransient", "relativeTime": 0}], "events": []}),
    ("haptics", {"timingToleranceMs": -1, "events": []}),
    ("refresh", {"runs": [{"at": "soon", "pages": []}]}),
    ("refresh", {"config": {"tasks": [], "infoPlist": ""}, "runs": []}),
    ("refresh", {"runs": [{"at": 0, "pages": [{"items": [{"id": "a", "revision": 1}, {"id": "a", "revision": 2}]}], "fault": {"kind": "crash", "stage": "download", "page": 9}}]}),
]


def main():
    server, port = start()
    cases = []

    def record(name, path, body, method="POST", content_type="application/json"):
        raw = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))).encode()
        status, headers, payload = exchange(port, method, path, raw if method == "POST" else None, content_type)
        cases.append({"name": name, "method": method, "path": path, "contentType": content_type,
                      "body": raw.decode("utf-8"), "status": status, "headers": headers,
                      "answer": payload.decode("utf-8")})

    try:
        for ruleset, path in ENDPOINTS.items():
            for seed in range(1, 9):
                plan = json.loads(exchange(port, "POST", f"/rulesets/{ruleset}/plan",
                                           json.dumps({"coverage": "random", "seed": seed, "count": 2, "maxLength": 6}).encode())[2])
                for n, sequence in enumerate(plan["sequences"]):
                    for label, body in variants(ruleset, seed * 2 + n, sequence["request"], sequence["answer"]):
                        record(f"{ruleset} seed {seed} walk {n}: {label}", path, body)
            record(f"{ruleset}: empty body", path, b"")
            record(f"{ruleset}: top-level array", path, b"[]")
            record(f"{ruleset}: not JSON", path, b"events")
            record(f"{ruleset}: wrong media type", path, b"{}", content_type="text/plain")
            record(f"{ruleset}: GET", path, None, method="GET", content_type=None)
            record(f"{ruleset}: transitions plan", f"/rulesets/{ruleset}/plan", b"")
            record(f"{ruleset}: random plan, versioned name", f"/rulesets/{ruleset}/1/plan",
                   {"coverage": "random", "seed": 11, "count": 3, "maxLength": 12})
            record(f"{ruleset}: plan refused", f"/rulesets/{ruleset}/plan", {"coverage": "transitions", "seed": 1})
            record(f"{ruleset}: diagram", f"/rulesets/{ruleset}/diagram", None, method="GET", content_type=None)
            record(f"{ruleset}: diagram dot", f"/rulesets/{ruleset}/diagram?format=dot", None, method="GET", content_type=None)
            logs = [json.loads(c["body"]) for c in cases if c["path"] == path and c["status"] == 200][:6]
            record(f"{ruleset}: coverage", f"/rulesets/{ruleset}/coverage", {"logs": logs})
            record(f"{ruleset}: coverage refused", f"/rulesets/{ruleset}/coverage", {"logs": [{"events": 3}]})
            batch = [{"name": f"case {i}", "ruleset": ruleset, "request": log} for i, log in enumerate(logs)]
            batch.append({"name": "refused", "ruleset": ruleset, "request": {"events": "no"}})
            record(f"{ruleset}: batch check", "/check", {"cases": batch})
        for n, (ruleset, body) in enumerate(HANDMADE):
            record(f"handmade {n}: {ruleset}", ENDPOINTS[ruleset], body)
        for n, (path, body) in enumerate(readme_examples()):
            record(f"README example {n}", path.split("'")[0], body)
        for path in ["/rulesets", "/healthz", "/nowhere"]:
            record(f"GET {path}", path, None, method="GET", content_type=None)
    finally:
        server.terminate()
        server.wait()

    with out.open("w") as file:
        for case in cases:
            file.write(json.dumps(case, separators=(",", ":"), ensure_ascii=False) + "\n")
    print(f"{out}: {len(cases)} cases, {out.stat().st_size} bytes")


main()
