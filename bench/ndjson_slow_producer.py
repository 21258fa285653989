#!/usr/bin/env python3
"""A slow NDJSON producer (issue 19, acceptance 4): one playback event line a second
for SECONDS (default 60), sent chunked to a running server at the default minimum
rate (1024 B/s after a 5 s grace, far above a line a second). Each step line must
arrive before the next event is sent, and the stream must not be cut for its average
rate: the rule holds each line to it, not the body.

Usage: bench/ndjson_slow_producer.py PORT [SECONDS]
"""
import socket
import sys
import time

port = int(sys.argv[1])
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
line = b'{"type":"userPlayed","observed":{"isPlaying":true}}\n'

sock = socket.create_connection(("127.0.0.1", port))
sock.sendall(b"POST /playback/apply HTTP/1.1\r\nHost: bench\r\n"
             b"Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
received = b""
latencies = []
for index in range(seconds):
    sent = time.monotonic()
    sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
    marker = b'"index":%d,' % index
    sock.settimeout(1.0)
    while marker not in received:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            sys.exit(f"FAIL: step {index} not answered within a second of its line")
        if not data:
            sys.exit(f"FAIL: the server closed the stream at step {index}: {received[-300:]!r}")
        received += data
    latencies.append(time.monotonic() - sent)
    time.sleep(max(0.0, 1.0 - (time.monotonic() - sent)))
sock.settimeout(10)
sock.sendall(b"0\r\n\r\n")
while b"Oracle-Verdict: pass" not in received:
    data = sock.recv(65536)
    if not data:
        break
    received += data
if b'"stepCount":%d' % seconds not in received or b"Oracle-Verdict: pass" not in received:
    sys.exit(f"FAIL: no summary of {seconds} steps with the verdict pass: {received[-300:]!r}")
latencies.sort()
print(f"{seconds} lines, one a second: every step line arrived before the next line was sent; "
      f"latency median {latencies[len(latencies) // 2] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms; "
      f"summary stepCount {seconds}, trailer Oracle-Verdict: pass")
