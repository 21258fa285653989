#!/usr/bin/env python3
"""The hostile half of bench/soak.sh: for SECONDS it sends malformed requests,
keeps slow clients whose heads or bodies never finish (the server's header and body
timeouts must answer them), and churns connections - opened and closed at once,
closed before the answer is read, or used for one valid request. Prints one JSON
line of counts: answers by status per kind, 5xx other than the 501 and 505 the
spec gives an unknown method or version, valid requests that failed.

Usage: bench/soak_clients.py --port PORT --seconds SECONDS [--malformed-rate 20]
       [--slow-clients 8] [--churn-rate 40] [--body FILE]"""
import argparse
import asyncio
import collections
import json
import random
import time

HOST = "127.0.0.1"
PORT = 0  # set from --port

# Each malformed request with the status the spec gives it. Content errors keep
# the connection open, so they ask for it to be closed; framing errors close it.
MALFORMED = [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello", 400),
    (b"GET / HTTP/1.1\r\nHost: a\r\nX-Folded: a\r\n b\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: a\r\nX-Nul: a\x00b\r\n\r\n", 400),
    (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    (b"BREW /pot HTTP/1.1\r\nHost: a\r\n\r\n", 501),
    (b"GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    (b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: " + b"x" * 20000 + b"\r\n\r\n", 431),
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414),
    (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000\r\n\r\n", 413),
    (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Type: text/plain\r\n"
     b"Content-Length: 2\r\n\r\n{}", 415),
    (b"GET /nowhere HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 404),
    (b"DELETE /playback/apply HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 405),
    (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 10\r\n\r\n{\"events\":", 400),
    (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 29\r\n\r\n"
     b"{\"events\":[{\"type\":\"bogus\"}]}", 422),
    (b"POST /haptics/contract HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", 422),
]


class Counts:
    def __init__(self):
        self.by_kind = collections.defaultdict(collections.Counter)
        self.server_errors = 0
        # 501 for an unknown method and 505 for an unknown version are the spec's answers, not failures.
        self.specified_5xx = 0
        self.failed_valid = 0
        self.unexpected = collections.Counter()

    def answer(self, kind, status, expected=None):
        self.by_kind[kind][str(status)] += 1
        if isinstance(status, int) and status >= 500:
            if status == expected:
                self.specified_5xx += 1
            else:
                self.server_errors += 1
        if expected is not None and status != expected:
            self.unexpected[f"{kind}: {status} for {expected}"] += 1


async def exchange(request, timeout):
    """Sends `request` and reads until the server closes or `timeout`; returns the
    status of the first answer, or a word for what happened instead."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, PORT), timeout)
    except (OSError, asyncio.TimeoutError):
        return "connect-failed"
    try:
        writer.write(request)
        await writer.drain()
        data = await asyncio.wait_for(read_answer(reader), timeout)
        return status_of(data)
    except asyncio.TimeoutError:
        return "no-answer"
    except ConnectionError:
        return "reset"
    finally:
        writer.close()


async def read_answer(reader):
    """Reads one answer: until the head and a Content-Length body, or the close."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = await reader.read(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = await reader.read(65536)
        if not chunk:
            break
        body += chunk
    return head


def status_of(data):
    if not data:
        return "closed"
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return "garbled"


async def paced(rate, deadline, once):
    """Calls `once` about `rate` times a second until the deadline, a few at a time."""
    interval = 1.0 / rate
    pending = set()
    next_start = time.monotonic()
    while time.monotonic() < deadline:
        pending.add(asyncio.create_task(once()))
        pending = {task for task in pending if not task.done()}
        next_start += interval
        await asyncio.sleep(max(0.0, next_start - time.monotonic()))
    if pending:
        await asyncio.wait(pending)


async def malformed(counts, rate, deadline):
    async def once():
        request, expected = random.choice(MALFORMED)
        counts.answer("malformed", await exchange(request, 10), expected)
    await paced(rate, deadline, once)


async def slow_client(counts, deadline, valid_body):
    """Starts a request and never finishes it; the server must answer 408 (or, for a
    connection that sent nothing, close it) after its timeout."""
    partial = [
        (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nContent-Type: applic", 408),
        (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n" % len(valid_body)
         + valid_body[: len(valid_body) // 2], 408),
        (b"", "closed"),
    ]
    while time.monotonic() < deadline:
        request, expected = random.choice(partial)
        counts.answer("slow", await exchange(request, 30), expected)


async def churn(counts, rate, deadline, valid_body):
    request = (b"POST /playback/apply HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(valid_body) + valid_body)

    async def once():
        way = random.randrange(3)
        if way == 2:
            # A valid request whose answer is read: it must be a 200.
            status = await exchange(request, 10)
            counts.answer("churn-valid", status, 200)
            if status != 200:
                counts.failed_valid += 1
            return
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(HOST, PORT), 10)
        except (OSError, asyncio.TimeoutError):
            counts.answer("churn-closed", "connect-failed")
            return
        if way == 1:
            # Sent, then gone before the answer: the server must not mind.
            writer.write(request)
        writer.close()
        counts.answer("churn-closed", "closed")
    await paced(rate, deadline, once)


async def main(args):
    counts = Counts()
    deadline = time.monotonic() + args.seconds
    with open(args.body, "rb") as handle:
        valid_body = handle.read().strip()
    tasks = [malformed(counts, args.malformed_rate, deadline), churn(counts, args.churn_rate, deadline, valid_body)]
    tasks += [slow_client(counts, deadline, valid_body) for _ in range(args.slow_clients)]
    await asyncio.gather(*tasks)
    print(json.dumps({
        "answers": {kind: dict(counter) for kind, counter in counts.by_kind.items()},
        "server_errors": counts.server_errors,
        "specified_5xx": counts.specified_5xx,
        "failed_valid": counts.failed_valid,
        "unexpected": dict(counts.unexpected),
    }, sort_keys=True))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--malformed-rate", type=float, default=20)
    parser.add_argument("--slow-clients", type=int, default=8)
    parser.add_argument("--churn-rate", type=float, default=40)
    parser.add_argument("--body", required=True, help="a valid playback/1 request body")
    arguments = parser.parse_args()
    PORT = arguments.port
    asyncio.run(main(arguments))
