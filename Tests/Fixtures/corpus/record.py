#!/usr/bin/env python3
"""Records the corpus that CorpusTests replays: a few hundred requests to every
ruleset endpoint (valid and refused, canonical and raw-notification events, JSON and
NDJSON), the model routes (plans and repros as JSON and as generated tests, coverage,
diagrams) and the batch check (JSON and JUnit), each with the exact answer BINARY gives.

Usage: Tests/Fixtures/corpus/record.py BINARY [OUT]   (OUT: corpus.jsonl beside this)

Run it with the binary of the commit whose answers are the reference; the test then
holds every later build to those bytes. Requests are deterministic: plans with fixed
seeds, then fixed mutations of them, plus the documentation's examples (README and
docs/); the model routes' cases come last, built from the logs recorded before them. A case has `accept` only when it
sends that header, `trailers` only when its chunked answer has some, so the cases
recorded before those members existed keep their bytes.
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


def exchange(port, method, path, body, content_type="application/json", accept=None, trailers=None):
    """One request on its own connection (Connection: close); the answer's status,
    head lines but Date, and payload with any chunked coding removed (its trailer
    lines appended to `trailers`, when given)."""
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    if accept:
        head += f"Accept: {accept}\r\n"
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
        payload, trailer_lines = dechunk(payload)
        if trailers is not None:
            trailers.extend(trailer_lines)
    return int(lines[0].split(" ")[1]), headers, payload


def dechunk(data):
    """The payload of a chunked body, and its trailer lines."""
    out, rest = b"", data
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            trailer = rest.split(b"\r\n\r\n")[0]
            return out, [line for line in trailer.decode("latin-1").split("\r\n") if line]
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


HEAD_MEMBERS = {
    "playback": {"ruleset", "initial", "observedFinal"},
    "haptics": {"ruleset", "initial", "observedFinal", "pattern", "expectedParameters", "supportsHaptics",
                "timingToleranceMs"},
    "refresh": {"ruleset", "observedFinal", "config", "store", "schedule"},
    "audio-session": {"ruleset", "initial", "observedFinal", "category"},
}
NDJSON = "application/x-ndjson"
# Strings a generated test writes into its Swift literals and comments as they are:
# quotes, backslashes, hashes, non-ASCII (none of the scalars generated Swift escapes).
AWKWARD_IDS = ['say "hi"', "back\\slash", "#hash", "\\#", '"#', '"""#', "caf\u00e9 \U0001F600", "tab\there", "x\\u0041"]


def sequence_of(ruleset):
    return "runs" if ruleset == "refresh" else "events"


def as_ndjson(ruleset, log, final_in_head=False, crlf=False, blank_lines=False):
    """The NDJSON form of a JSON log (streaming.md): a head line with the log's other
    members, one line per element, `observedFinal` as the tail line (or in the head)."""
    seq = sequence_of(ruleset)
    head = {k: v for k, v in log.items() if k in HEAD_MEMBERS[ruleset] and k != "observedFinal"}
    if final_in_head and "observedFinal" in log:
        head["observedFinal"] = log["observedFinal"]
    lines = [head] if head else []
    lines += log.get(seq) or []
    if not final_in_head and "observedFinal" in log:
        lines.append({"observedFinal": log["observedFinal"]})
    texts = [json.dumps(line, separators=(",", ":"), ensure_ascii=False) for line in lines]
    if blank_lines:
        texts = [t for text in texts for t in (text, " \t")]
    end = "\r\n" if crlf else "\n"
    return "".join(text + end for text in texts)


def first_mismatch(cases, path, log):
    """The step of a recorded log's first mismatch."""
    body = json.dumps(log, separators=(",", ":"))
    answer = next(json.loads(c["answer"]) for c in cases if c["path"] == path and c["body"] == body)
    return answer["mismatches"][0]["index"]


def model_routes(record, cases):
    """Repro, coverage, the batch check as JUnit, plans as generated tests, and the
    NDJSON form of the ruleset endpoints: the answers rebuilt from the engine's output."""
    def logs(path, pattern, status=200):
        return [(c["name"], json.loads(c["body"])) for c in cases
                if c["path"] == path and c["status"] == status and re.search(pattern, c["name"])]

    def final_only(log, ruleset):
        """The log with its observed right at every step, and its observedFinal wrong."""
        log = json.loads(json.dumps(log))
        final = log["observedFinal"]
        field = sorted(final)[0]
        final[field] = wrong(final[field])
        return log

    all_batches = []
    for ruleset, path in ENDPOINTS.items():
        seq = sequence_of(ruleset)
        repro = f"/rulesets/{ruleset}/repro"
        failing = logs(path, r"wrong at")
        right = logs(path, r"observed, all right$")
        with_ids = logs(path, r"ids \(and playback sessions\)$")
        raw = logs(path, r"raw notifications$")
        assert len(failing) >= 8 and len(right) >= 4, ruleset

        # Repro: JSON bodies, every format.
        for name, log in failing[:4]:
            record(f"repro {name}", repro, log)
        for (name, log), fmt in zip(failing[6:9], ["json", "xctest", "swift-testing"]):
            record(f"repro {name}, format {fmt}", f"{repro}?format={fmt}", log)
        for name, log in failing[:3]:
            record(f"repro {name}, format xctest", f"{repro}?format=xctest", log)
            record(f"repro {name}, format swift-testing", f"{repro}?format=swift-testing", log)
        record(f"repro {failing[9][0]}, versioned name", f"/rulesets/{ruleset}/1/repro?format=xctest", failing[9][1])
        # A divergence in observedFinal alone.
        for name, log in right[:2]:
            diverged = final_only(log, ruleset)
            record(f"repro {name} but observedFinal", repro, diverged)
            record(f"repro {name} but observedFinal, format xctest", f"{repro}?format=xctest", diverged)
            record(f"repro {name} but observedFinal, format swift-testing", f"{repro}?format=swift-testing", diverged)
        # Ids (and playback's sessions) on a failing log; ids a Swift literal must keep as they are.
        name, log = failing[10]
        log = json.loads(json.dumps(log))
        for n, event in enumerate(log[seq]):
            event["id"] = f"{n}: " + " ".join(AWKWARD_IDS)
            if ruleset == "playback" and n % 2:
                event["session"] = f"s{n % 3}"
        record(f"repro {name}, awkward ids and sessions", repro, log)
        record(f"repro {name}, awkward ids and sessions, format xctest", f"{repro}?format=xctest", log)
        record(f"repro {name}, awkward ids and sessions, format swift-testing", f"{repro}?format=swift-testing", log)
        # Raw notifications before the first mismatch of a failing log.
        if raw:
            for name, failed in failing[11:13]:
                mixed = json.loads(json.dumps(failed))
                first = first_mismatch(cases, path, failed)
                mixed[seq] = [as_notification(e) or e for e in mixed[seq][:first]] + mixed[seq][first:]
                record(f"repro {name}, raw notifications before it", repro, mixed)
                record(f"repro {name}, raw notifications before it, format swift-testing", f"{repro}?format=swift-testing",
                       mixed)
        # Refused: nothing to reproduce, an invalid log, a bad query.
        record(f"repro {right[2][0]}: nothing to reproduce (pass)", repro, right[2][1])
        unchecked = logs(path, r"as given$")[0]
        record(f"repro {unchecked[0]}: nothing to reproduce (unchecked)", repro, unchecked[1])
        record(f"repro {unchecked[0]}: nothing to reproduce, format xctest", f"{repro}?format=xctest", unchecked[1])
        invalid = logs(path, r"refused", 422)
        record(f"repro {invalid[0][0]}", repro, invalid[0][1])
        record(f"repro {invalid[1][0]}, format swift-testing", f"{repro}?format=swift-testing", invalid[1][1])
        record(f"repro {ruleset}: not JSON", repro, b"{\"events\":")
        if ruleset == "playback":
            record(f"repro {ruleset}: unknown format", f"{repro}?format=junit", failing[0][1])
            record(f"repro {ruleset}: format twice", f"{repro}?format=json&format=xctest", failing[0][1])
            record(f"repro {ruleset}: wrong media type", repro, json.dumps(failing[0][1]), content_type="text/plain")

        # Repro: NDJSON bodies.
        for name, log in failing[:4]:
            record(f"repro ndjson {name}", repro, as_ndjson(ruleset, log), content_type=NDJSON)
        for name, log in failing[4:6]:
            record(f"repro ndjson {name}, format xctest", f"{repro}?format=xctest", as_ndjson(ruleset, log),
                   content_type=NDJSON)
            record(f"repro ndjson {name}, format swift-testing", f"{repro}?format=swift-testing",
                   as_ndjson(ruleset, log), content_type=NDJSON)
        name, log = failing[6]
        record(f"repro ndjson {name}, observedFinal in the head, CRLF and blank lines", repro,
               as_ndjson(ruleset, log, final_in_head=True, crlf=True, blank_lines=True), content_type=NDJSON)
        record(f"repro jsonl {name}", repro, as_ndjson(ruleset, log), content_type="application/jsonl")
        name, log = right[0]
        diverged = final_only(log, ruleset)
        record(f"repro ndjson {name} but observedFinal", repro, as_ndjson(ruleset, diverged), content_type=NDJSON)
        record(f"repro ndjson {name} but observedFinal, format xctest", f"{repro}?format=xctest",
               as_ndjson(ruleset, diverged), content_type=NDJSON)
        name, log = failing[10]
        log = json.loads(json.dumps(log))
        for n, event in enumerate(log[seq]):
            event["id"] = f"line-{n}"
            if ruleset == "playback" and n % 2:
                event["session"] = f"s{n % 3}"
        record(f"repro ndjson {name}, ids and sessions", repro, as_ndjson(ruleset, log), content_type=NDJSON)
        record(f"repro ndjson {right[1][0]}: nothing to reproduce", repro, as_ndjson(ruleset, right[1][1]),
               content_type=NDJSON)
        record(f"repro ndjson {ruleset}: a line not JSON", repro,
               as_ndjson(ruleset, failing[0][1]).replace("\n", "\n{\"type\":\n", 1) if ruleset != "refresh"
               else as_ndjson(ruleset, failing[0][1]).replace("\n", "\n{\"at\":\n", 1), content_type=NDJSON)
        record(f"repro ndjson {ruleset}: an unknown element member", repro,
               as_ndjson(ruleset, failing[1][1]) + "{\"noSuchMember\":1}\n", content_type=NDJSON)

        # Coverage: several logs, failing and passing, with initial states; refused.
        every = [log for _, log in right[:3] + failing[:3] + with_ids[:2] + raw[:2]]
        record(f"coverage {ruleset}: passing, failing, ids, raw notifications", f"/rulesets/{ruleset}/coverage",
               {"logs": every})
        initial = [log for _, log in logs(path, r"as given$") if "initial" in log][:4]
        record(f"coverage {ruleset}: failing logs and logs with initial states, versioned name",
               f"/rulesets/{ruleset}/1/coverage", {"logs": [log for _, log in failing[3:6]] + initial + [{seq: []}]})
        record(f"coverage {ruleset}: invalid logs among good ones", f"/rulesets/{ruleset}/coverage",
               {"logs": [right[0][1], invalid[0][1], failing[0][1], invalid[2][1]]})
        record(f"coverage {ruleset}: not an object", f"/rulesets/{ruleset}/coverage", {"logs": [3]})
        if ruleset == "playback":
            record(f"coverage {ruleset}: no logs", f"/rulesets/{ruleset}/coverage", {"logs": []})
            record(f"coverage {ruleset}: ndjson", f"/rulesets/{ruleset}/coverage", as_ndjson(ruleset, right[0][1]),
                   content_type=NDJSON)

        # The batch check as JUnit XML.
        batch = [{"name": f"{label} {n}", "ruleset": ruleset if n % 2 else f"{ruleset}/1", "request": log}
                 for label, group in [("passing", right[:2]), ("failing", failing[:3]), ("unchecked", with_ids[:1]),
                                      ("invalid", invalid[:2])]
                 for n, (_, log) in enumerate(group)]
        all_batches += batch
        record(f"check {ruleset} as JUnit", "/check", {"cases": batch}, accept="application/xml")
        record(f"check {ruleset} as JUnit (text/xml)", "/check", {"cases": batch[:4]}, accept="text/xml")
        record(f"check {ruleset} as JSON (Accept prefers it)", "/check", {"cases": batch[2:5]},
               accept="application/json, application/xml;q=0.5")

        # Plans as generated tests.
        plan = f"/rulesets/{ruleset}/plan"
        record(f"plan {ruleset}: transitions, format xctest", f"{plan}?format=xctest", b"")
        if ruleset in ("playback", "haptics"):
            record(f"plan {ruleset}: transitions, format swift-testing", f"{plan}?format=swift-testing",
                   {"coverage": "transitions", "maxLength": 6})
        record(f"plan {ruleset}: random, format xctest", f"/rulesets/{ruleset}/1/plan?format=xctest",
               {"coverage": "random", "seed": 42, "count": 3, "maxLength": 8})
        record(f"plan {ruleset}: random, format swift-testing", f"{plan}?format=swift-testing",
               {"coverage": "random", "seed": 7, "count": 1, "maxLength": 30})
        record(f"plan {ruleset}: random, format json", f"{plan}?format=json",
               {"coverage": "random", "seed": 3, "count": 2, "maxLength": 4})
        if ruleset == "playback":
            record(f"plan {ruleset}: unknown format", f"{plan}?format=mermaid", b"")
            record(f"plan {ruleset}: format twice", f"{plan}?format=xctest&format=xctest", b"")
        record(f"plan {ruleset}: refused, format xctest", f"{plan}?format=xctest", {"coverage": "random", "count": 11})

        # The ruleset endpoint's NDJSON form, and `steps=` on both forms.
        for (name, log), steps in zip([failing[0], right[0], failing[1]], ["", "?steps=failing", "?steps=none"]):
            record(f"ndjson {name}{steps}", path + steps, as_ndjson(ruleset, log), content_type=NDJSON)
        for name, log in failing[2:3]:
            for steps in ["all", "failing", "none"]:
                record(f"ndjson {name}, steps={steps}", f"{path}?steps={steps}", as_ndjson(ruleset, log),
                       content_type=NDJSON)
        name, log = failing[4]
        record(f"ndjson {name}, observedFinal in the head, CRLF and blank lines", path,
               as_ndjson(ruleset, log, final_in_head=True, crlf=True, blank_lines=True), content_type=NDJSON)
        record(f"jsonl {name}", path, as_ndjson(ruleset, log), content_type="application/jsonl")
        if raw:
            record(f"ndjson {raw[0][0]}", path, as_ndjson(ruleset, raw[0][1]), content_type=NDJSON)
        record(f"ndjson {with_ids[0][0]}", path + "?steps=failing", as_ndjson(ruleset, with_ids[0][1]),
               content_type=NDJSON)
        record(f"ndjson {ruleset}: empty body", path, b"", content_type=NDJSON)
        record(f"ndjson {ruleset}: a bad head line", path, "{\"initial\":3}\n", content_type=NDJSON)
        record(f"ndjson {ruleset}: a bad line after good ones", path,
               as_ndjson(ruleset, failing[5][1]) + "[1]\n" + as_ndjson(ruleset, failing[5][1]), content_type=NDJSON)
        record(f"ndjson {ruleset}: observedFinal in head and tail", path,
               as_ndjson(ruleset, right[1][1], final_in_head=True) + json.dumps({"observedFinal": right[1][1]["observedFinal"]}),
               content_type=NDJSON)
        record(f"ndjson {ruleset}: unknown steps", path + "?steps=some", as_ndjson(ruleset, failing[0][1]),
               content_type=NDJSON)
        for name, log in failing[6:7]:
            for steps in ["failing", "none"]:
                record(f"{name}, steps={steps}", f"{path}?steps={steps}", log)

    # One batch of every ruleset, and names JUnit must write as references.
    odd = [{"name": "tab\there, line\nbreak, return\r & <angle> \"quoted\" 'single' caf\u00e9", "ruleset": "playback",
            "request": all_batches[2]["request"]},
           {"name": "no such ruleset", "ruleset": "nothing/9", "request": {"events": []}}]
    record("check every ruleset as JUnit", "/check", {"cases": all_batches + odd}, accept="application/xml")
    record("check odd names as JUnit", "/check", {"cases": odd}, accept="text/xml, application/json;q=0.9")
    record("check as JUnit, a tie gets JSON", "/check", {"cases": odd}, accept="application/xml, application/json")
    record("check as JUnit, refused batch", "/check", {"cases": [{"name": 3}]}, accept="application/xml")


def main():
    server, port = start()
    cases = []

    def record(name, path, body, method="POST", content_type="application/json", accept=None):
        raw = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))).encode()
        trailers = []
        try:
            status, headers, payload = exchange(port, method, path, raw if method == "POST" else None, content_type,
                                                accept, trailers)
        except (OSError, ValueError, IndexError) as error:
            sys.exit(f"{name}: no answer ({error}); the server {'died' if server.poll() is not None else 'lives'}")
        case = {"name": name, "method": method, "path": path, "contentType": content_type}
        # Members the first corpus did not have are written only when used, so its lines stay as they were.
        if accept:
            case["accept"] = accept
        case.update({"body": raw.decode("utf-8"), "status": status, "headers": headers, "answer": payload.decode("utf-8")})
        if trailers:
            case["trailers"] = trailers
        cases.append(case)

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
        model_routes(record, cases)
    finally:
        server.terminate()
        server.wait()

    with out.open("w") as file:
        for case in cases:
            file.write(json.dumps(case, separators=(",", ":"), ensure_ascii=False) + "\n")
    print(f"{out}: {len(cases)} cases, {out.stat().st_size} bytes")


main()
