#!/usr/bin/env python3
"""Writes the NDJSON form and the unified-log form of a JSON benchmark body (streaming.md,
oslog.md): NAME.ndjson (a head line with every member but the sequence and observedFinal,
one line per element, an observedFinal tail when given) and NAME.oslog.ndjson (a capture as
`log stream --style ndjson` prints it: each of those lines as the app's record, among 19
records of other subsystems, processes and event types for each of the app's, the mix
bench/oslog.sh uses), of at most the first MAX lines (default 4,000: some 70 MB of capture,
which a benchmark reads in about a second). Usage: bench/bodies/forms.py BODY.json OUT_PREFIX [MAX]

`record` and `others` are the capture's records, which bench/oslog.sh imports too."""
import json
import sys

app = "/private/var/containers/Bundle/Application/5F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0/Player.app/Player"
others = [("Route", "com.apple.coreaudio", 88, "/usr/sbin/mediaserverd", "logEvent",
           "Updated route: Speaker (built-in), category AVAudioSessionCategoryPlayback"),
          ("Network", "com.example.player", 412, app, "logEvent", "GET https://api.example.com/v2/feed?page=3 200 in 182 ms"),
          ("", "", 62, "/System/Library/CoreServices/SpringBoard.app/SpringBoard", "stateEvent", ""),
          ("", "", 412, app, "activityCreateEvent", "")]


def record(n, message, category, subsystem, pid, image, event="logEvent"):
    s = n // 1000
    return json.dumps({"traceID": 18446744073709551615 - n % 1000, "eventMessage": message, "eventType": event,
        "source": None, "formatString": "%{public}s", "activityIdentifier": 0, "subsystem": subsystem,
        "category": category, "threadID": 107_000 + n % 13, "senderImageUUID": "1B2C3D4E-5F60-7182-93A4-B5C6D7E8F901",
        "backtrace": {"frames": [{"imageOffset": 48213 + n % 97, "imageUUID": "1B2C3D4E-5F60-7182-93A4-B5C6D7E8F901"}]},
        "bootUUID": "8C3B6F2E-4B0D-4A57-9E3E-2D6F0B1C9A44", "processImagePath": image, "senderImagePath": image,
        "timestamp": "2026-12-06 %02d:%02d:%02d.%06d-0700" % (s // 3600 % 24, s // 60 % 60, s % 60, n % 1000 * 1000),
        "machTimestamp": 183922117451 + n * 24, "messageType": "Default",
        "processImageUUID": "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9", "processID": pid,
        "senderProgramCounter": 48213, "parentActivityIdentifier": 0, "timezoneName": ""},
        separators=(",", ":")).replace("/", "\\/")  # the log tool escapes every '/'


def main():
    body = json.load(open(sys.argv[1]))
    prefix = sys.argv[2]
    sequence = "runs" if "runs" in body else "events"
    head = {k: v for k, v in body.items() if k not in (sequence, "observedFinal")}
    lines = [json.dumps(head, separators=(",", ":"))] if head else []
    lines += [json.dumps(e, separators=(",", ":")) for e in body.get(sequence, [])]
    if "observedFinal" in body:
        lines.append(json.dumps({"observedFinal": body["observedFinal"]}, separators=(",", ":")))
    with open(prefix + ".ndjson", "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(prefix + ".oslog.ndjson", "w", buffering=1 << 20) as out:
        out.write('Filtering the log data using "category == "DeviceOracle""\n')
        n = 0
        for line in lines[:int(sys.argv[3]) if len(sys.argv) > 3 else 4000]:
            for k in range(19):
                category, subsystem, pid, image, event, message = others[(n + k) % 4]
                out.write(record(n, message, category, subsystem, pid, image, event) + "\n")
                n += 1
            out.write(record(n, line, "DeviceOracle", "com.example.player", 412, app) + "\n")
            n += 1


if __name__ == "__main__":
    main()
