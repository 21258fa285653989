#!/usr/bin/env python3
"""Writes a playback/1 NDJSON log of about SIZE bytes (streaming.md), quickly: a head line,
then one block of a few thousand distinct event lines repeated, then an observedFinal tail.

The block uses the event mix of bench/bodies/generate.py (the same LCG) plus routeChanged,
raw notifications, sessions, `id`, `at` and extra device fields; most events carry an
`observed` computed here by the rules of playback.md, so the verdict is real. Each block
starts by pausing every session it uses, without `at`, so every block starts from the same
state and no block boundary reads as out of order. The first block alone has PLANTED wrong
observed values, so the whole log has exactly that many mismatches.

Prints one JSON line with what the log must give: stepCount, mismatchCount, final.
Usage: generate.py OUT SIZE_BYTES"""
import json
import sys

PLANTED = 3
BLOCK_EVENTS = 4000
SESSIONS = [None, None, None, None, "car", "watch"]  # None: the "default" session
REASONS = {0: "unknown", 1: "newDeviceAvailable", 2: "oldDeviceUnavailable", 3: "categoryChange",
           4: "override", 6: "wakeFromSleep", 7: "noSuitableRouteForCategory", 8: "routeConfigurationChange"}


def lcg(seed=12345):
    x = seed
    while True:
        x = (x * 1103515245 + 12345) % 2**31
        yield x


def dumps(obj):
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def event_for(x):
    """One event line's rules-relevant part and what the rules see: (line fields, kind, shouldResume)."""
    pick = (x >> 16) % 20
    if pick < 14:  # bench/bodies/generate.py's mix, plus routeChanged
        kinds = ["interruptionBegan", "interruptionEnded", "outputDisconnected", "userPaused", "userPlayed",
                 "userPlayed", "routeChanged"]
        kind = kinds[pick % len(kinds)]
        fields = {"type": kind}
        if kind == "interruptionEnded":
            fields["shouldResume"] = (x >> 8) % 4 != 0
            return fields, kind, fields["shouldResume"]
        if kind == "routeChanged":
            reason = [0, 1, 1, 2, 2, 3, 5, 8][(x >> 8) % 8]  # 5 is not a known reason
            fields["reason"] = REASONS[reason] if (x >> 4) % 3 == 0 and reason in REASONS else reason
            return fields, ("disconnect" if reason == 2 else "none"), None
        return fields, kind, None
    # raw notifications, as a device log carries them
    raw = pick - 14
    name = ["AVAudioSessionInterruptionNotification", "interruption", "AVAudioSession.routeChangeNotification",
            "AVAudioSessionInterruptionNotification", "routeChange",
            "AVAudioSessionSilenceSecondaryAudioHintNotification"][raw]
    fields = {"notification": name}
    if raw in (0, 1):
        began = (x >> 8) % 2 == 0
        info = {"AVAudioSessionInterruptionTypeKey": (1 if raw == 0 else "began") if began else (0 if raw == 0 else "ended")}
        if began:
            fields["userInfo"] = info
            return fields, "interruptionBegan", None
        option = (x >> 4) % 3  # 0: missing (shouldResume false, a warning)
        if option:
            info["AVAudioSessionInterruptionOptionKey"] = 1 if option == 1 else ["shouldResume"]
        fields["userInfo"] = info
        return fields, "interruptionEnded", option != 0
    if raw == 3:  # the ended form with a reason key the rules ignore
        fields["userInfo"] = {"AVAudioSessionInterruptionTypeKey": 0, "AVAudioSessionInterruptionOptionKey": 0,
                              "AVAudioSessionInterruptionReasonKey": 0}
        return fields, "interruptionEnded", False
    if raw in (2, 4):
        reason = [2, 1, 3][(x >> 8) % 3]
        fields["userInfo"] = {"AVAudioSessionRouteChangeReasonKey": reason}
        return fields, ("disconnect" if reason == 2 else "none"), None
    fields["userInfo"] = {"AVAudioSessionSilenceSecondaryAudioHintTypeKey": 1}
    return fields, "none", None


def apply(state, kind, should_resume):
    playing, resume = state
    if kind == "interruptionBegan":
        return False, playing
    if kind == "interruptionEnded":
        return resume and should_resume, False
    if kind in ("userPaused", "outputDisconnected", "disconnect"):
        return False, False
    if kind == "userPlayed":
        return True, False
    return state


def block(rand, first, states, planted):
    """BLOCK_EVENTS lines; `states` is every session's state, carried on."""
    lines = []
    for session in sorted({s or "" for s in SESSIONS}):  # the reset lines: no `at`
        fields = {"type": "userPaused"} if not session else {"type": "userPaused", "session": session}
        states[session or None] = (False, False)
        lines.append(dumps(fields))
    at = 1_700_000_000_000
    for k in range(BLOCK_EVENTS - len(lines)):
        x = next(rand)
        fields, kind, should_resume = event_for(x)
        session = SESSIONS[(x >> 12) % len(SESSIONS)]
        line = {}
        if (x >> 3) % 2:
            line["id"] = f"log-{first + k}"
        line.update(fields)
        if session:
            line["session"] = session
        at += (x >> 5) % 900
        line["at"] = at
        if (x >> 7) % 4 == 0:
            line["device"] = {"model": "iPhone15,2", "os": "17.4.1"}
        before = states[session]
        after = apply(before, kind, should_resume)
        states[session] = after
        if (x >> 9) % 5:  # most events say what the device showed
            action = "play" if not before[0] and after[0] else "pause" if before[0] and not after[0] else "none"
            observed = {}
            which = (x >> 10) % 7 + 1  # a non-empty subset of the three fields
            if which & 1:
                observed["isPlaying"] = after[0]
            if which & 2:
                observed["resumeAfterInterruption"] = after[1]
            if which & 4:
                observed["action"] = action
            if planted[0] and k % 997 == 500:  # a wrong value, in the first block only
                planted[0] -= 1
                observed = {"isPlaying": not after[0]}
            line["observed"] = observed
        lines.append(dumps(line))
    return lines


def main():
    out, size = sys.argv[1], int(float(sys.argv[2]))
    rand, states = lcg(), {}
    head = dumps({"initial": {"isPlaying": False, "resumeAfterInterruption": False}})
    planted = [PLANTED]
    first = block(rand, 0, states, planted)
    assert planted[0] == 0
    final_first = states[None]
    repeated = b"".join(block(rand, BLOCK_EVENTS, states, [0]))
    first_bytes = b"".join(first)
    repeats = max(0, -(-(size - len(head) - len(first_bytes) - 64) // len(repeated)))
    final = states[None] if repeats else final_first
    tail = dumps({"observedFinal": {"isPlaying": final[0], "resumeAfterInterruption": final[1]}})
    with open(out, "wb") as f:
        f.write(head)
        f.write(first_bytes)
        for _ in range(repeats):
            f.write(repeated)
        f.write(tail)
    print(json.dumps({"stepCount": BLOCK_EVENTS * (1 + repeats), "mismatchCount": PLANTED,
                      "final": {"isPlaying": final[0], "resumeAfterInterruption": final[1]},
                      "bytes": len(head) + len(first_bytes) + repeats * len(repeated) + len(tail),
                      "blockBytes": len(repeated)}))


main()
