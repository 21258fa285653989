#!/usr/bin/env python3
"""Concurrent clients for bench/memory-budget.sh: CLIENTS threads, each posting BODY to
PATH in a loop for SECONDS over HTTP/1.1 (keep-alive) or HTTP/1.0, reading every answer
whole. Samples the server's RSS (VmRSS of PID) every 50 ms. Prints one JSON line:
status counts, peak RSS (MiB), answers' MB/s. Stops by itself."""
import json
import socket
import sys
import threading
import time
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procstat  # noqa: E402

host, port, pid, path, body_file, clients, seconds, version = sys.argv[1:9]
port, clients, seconds = int(port), int(clients), float(seconds)
body = open(body_file, "rb").read()
head = (f"POST {path} {version}\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n").encode()
if version == "HTTP/1.0":
    head += b"Connection: keep-alive\r\n"
head += b"\r\n"
deadline = time.monotonic() + seconds
counts, answered_bytes, lock = {}, [0], threading.Lock()


def rss_kib():
    return procstat.rss_kib(pid)


def read_answer(sock, buffer):
    """One answer from sock: (status, body length, leftover bytes, keep-alive)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("closed before a head")
        buffer += chunk
    head_bytes, rest = buffer.split(b"\r\n\r\n", 1)
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    fields = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    keep = fields.get("connection", "").lower() != "close"
    if "content-length" in fields:
        length = int(fields["content-length"])
        received = len(rest)
        while received < length:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed inside a body")
            received += len(chunk)
            if received > length:
                rest = chunk[len(chunk) - (received - length):]
                break
        else:
            rest = rest[length:] if len(rest) > length else b""
        return status, length, b"", keep
    # chunked
    total, data = 0, rest
    while True:
        while b"\r\n" not in data:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed inside a chunk size")
            data += chunk
        size_line, data = data.split(b"\r\n", 1)
        size = int(size_line.split(b";")[0], 16)
        while len(data) < size + 2:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed inside a chunk")
            data += chunk
        total += size
        data = data[size + 2:]
        if size == 0:
            return status, total, data, keep


def client():
    sock = None
    while time.monotonic() < deadline:
        try:
            if sock is None:
                sock = socket.create_connection((host, port))
            sock.sendall(head + body)
            status, length, _, keep = read_answer(sock, b"")
            key = str(status)
        except (ConnectionError, OSError) as error:
            key, length, keep = "reset", 0, False
        with lock:
            counts[key] = counts.get(key, 0) + 1
            answered_bytes[0] += length
        if not keep and sock is not None:
            sock.close()
            sock = None
        if key == "503":
            time.sleep(0.05)  # a client that backs off a little, not one that spins
    if sock is not None:
        sock.close()


baseline = rss_kib()
threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
started = time.monotonic()
for thread in threads:
    thread.start()
peak = baseline
while any(t.is_alive() for t in threads):
    peak = max(peak, rss_kib())
    time.sleep(0.05)
elapsed = time.monotonic() - started
after = []
for _ in range(100):  # up to 5 s
    after.append(rss_kib())
    if after[-1] < 64 * 1024:
        break
    time.sleep(0.05)
print(json.dumps({"version": version, "clients": clients, "statuses": counts,
                  "idleRSSMiB": round(baseline / 1024, 1), "peakRSSMiB": round(peak / 1024, 1),
                  "rssAfterMiB": round(after[-1] / 1024, 1), "secondsToUnder64MiB": round(len(after) * 0.05, 2) if after[-1] < 64 * 1024 else None,
                  "answerMBps": round(answered_bytes[0] / elapsed / 1e6, 1)}))
