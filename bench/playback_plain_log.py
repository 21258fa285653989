"""The shared Go peer's playback event mix (../shared/bench/bodies/gen-large.py's LCG and
mix) as NDJSON: an `initial` head, then one event a line, in whole blocks of 100,000
events. Usage: playback_plain_log.py OUT (--bytes N | --blocks N). --bytes: as many whole
blocks as fit in N bytes (at least one)."""
import json
import sys

TYPES = ["interruptionBegan", "interruptionEnded", "outputDisconnected", "userPaused", "userPlayed"]


def block():
    x, lines = 12345, []
    for _ in range(100_000):
        x = (x * 1103515245 + 12345) % 2**31
        event = {"type": TYPES[(x >> 16) % len(TYPES)]}
        if event["type"] == "interruptionEnded":
            event["shouldResume"] = (x >> 8) % 4 != 0
        lines.append(json.dumps(event, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode()


def main(out, unit, count):
    events = block()
    blocks = int(count) if unit == "--blocks" else max(1, int(count) // len(events))
    with open(out, "wb") as file:
        file.write(b'{"initial":{"isPlaying":true,"resumeAfterInterruption":false}}\n')
        for _ in range(blocks):
            file.write(events)


if __name__ == "__main__":
    main(*sys.argv[1:4])
