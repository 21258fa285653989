#!/usr/bin/env python3
"""Writes the unified-log captures of this directory: what `log stream --style ndjson
--predicate …` prints on a device, with the app's messages (category DeviceOracle) among
other subsystems', processes' and event types' records. Run it to regenerate them."""
import json

BOOT = "8C3B6F2E-4B0D-4A57-9E3E-2D6F0B1C9A44"
APP = "/private/var/containers/Bundle/Application/5F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0/Player.app/Player"
ms = [0]


def stamp(t):
    s, frac = divmod(t, 1_000_000)
    return "2026-12-06 10:%02d:%02d.%06d-0700" % (23 + s // 60, s % 60, frac)


def record(t, message, *, event="logEvent", category="DeviceOracle", subsystem="com.example.player",
           pid=412, image=APP, thread=0x1a2b3, trace=18446744073709551615, mtype="Default"):
    r = {"traceID": trace, "eventMessage": message, "eventType": event, "source": None,
         "formatString": "%{public}s", "activityIdentifier": 0, "subsystem": subsystem, "category": category,
         "threadID": thread, "senderImageUUID": "1B2C3D4E-5F60-7182-93A4-B5C6D7E8F901",
         "backtrace": {"frames": [{"imageOffset": 48213, "imageUUID": "1B2C3D4E-5F60-7182-93A4-B5C6D7E8F901"}]},
         "bootUUID": BOOT, "processImagePath": image, "senderImagePath": image,
         "timestamp": stamp(t), "machTimestamp": 183_922_117_451 + t * 24, "messageType": mtype,
         "processImageUUID": "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9", "processID": pid,
         "senderProgramCounter": 48213, "parentActivityIdentifier": 0, "timezoneName": ""}
    if event != "logEvent":
        for key in ("formatString", "messageType", "category", "subsystem"):
            r[key] = "" if key != "messageType" else r[key]
    return slashes(json.dumps(r, separators=(",", ":")))


def slashes(text):
    """The log tool writes JSON as Foundation does: every '/' escaped."""
    return text.replace("/", "\\/")


def noise(t):
    return [
        record(t, "Updated route: Speaker", category="Route", subsystem="com.apple.coreaudio", pid=88,
               image="/usr/sbin/mediaserverd", thread=0x3c1, trace=7_340_032),
        record(t + 11, "", event="stateEvent", pid=62, image="/System/Library/CoreServices/SpringBoard.app/SpringBoard",
               thread=0x2f9, trace=0),
        record(t + 17, "GET https://api.example.com/feed 200", category="Network", pid=412, thread=0x1a2b4,
               trace=9_223_372_036_854_775_808),
        record(t + 23, "activity", event="activityCreateEvent", pid=412, thread=0x1a2b4, trace=1),
    ]


def capture(name, messages, *, redact_at=None, lose_at=None):
    lines = ['Filtering the log data using "category == "DeviceOracle""']
    t = 1_000_000
    for position, message in enumerate(messages):
        lines += noise(t)
        t += 400_117
        if position == redact_at:
            lines.append(record(t, "<private>"))
            t += 5_003
        if position == lose_at:
            lines.append(json.dumps({"eventType": "lossEvent", "timestamp": stamp(t), "machTimestamp": 183_922_117_451,
                                     "eventMessage": "lost 12 unreliable messages", "bootUUID": BOOT, "processID": 0,
                                     "traceID": 0, "threadID": 0, "timezoneName": ""}, separators=(",", ":")))  # no '/'

            t += 5_003
        lines.append(record(t, json.dumps(message, separators=(",", ":"))))
        t += 250_409
    lines += noise(t)
    cut = record(t + 40, "Updated route: Headphones", category="Route", subsystem="com.apple.coreaudio", pid=88)
    lines.append(cut[: len(cut) // 2])  # the capture was stopped mid-record
    open(name, "w").write("\n".join(lines))


capture("playback.ndjson", [
    {"ruleset": "playback/1", "initial": {"isPlaying": True}},
    {"notification": "AVAudioSessionInterruptionNotification",
     "userInfo": {"AVAudioSessionInterruptionTypeKey": 1}, "observed": {"isPlaying": False}},
    {"notification": "AVAudioSessionInterruptionNotification",
     "userInfo": {"AVAudioSessionInterruptionTypeKey": 0, "AVAudioSessionInterruptionOptionKey": 1},
     "observed": {"isPlaying": True}},
    {"type": "userPaused", "observed": {"isPlaying": False}},
    {"observedFinal": {"isPlaying": False}},
])
capture("haptics.ndjson", [
    {"ruleset": "haptics/1", "supportsHaptics": True},
    {"type": "saveTapped", "observed": {"visible": "saving"}},
    {"type": "saveTapped"},
    {"type": "saveSucceeded", "observed": {"visible": "saved", "haptic": "play"}},
], redact_at=2)
capture("refresh.ndjson", [
    {"ruleset": "refresh/1", "schedule": {"intervalSeconds": 900, "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}},
    {"pages": [{"items": [{"id": "n1", "title": "Welcome"}], "nextCursor": "c1"}]},
    {"pages": [{"items": [{"id": "n2", "title": "Release notes"}], "nextCursor": "c2"}]},
], lose_at=2)
capture("audio-session.ndjson", [
    {"ruleset": "audio-session/1", "category": "ambient"},
    {"type": "launched"},
    {"type": "enteredBackground", "observed": {"actions": ["deactivate"]}},
    {"type": "playSound", "name": "coin", "observed": {"soundPlayed": True}},
])
