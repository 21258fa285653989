#!/usr/bin/env python3
"""Amplifying NDJSON streams for bench/memory-budget.sh (issue 42, findings 3, 4, 6, 8,
11), all at once for SECONDS against the server PID on PORT, while one normal client
posts a small playback body (SMALL) in a loop and must be answered 200 throughout:

- store: NEVER_READING clients post a refresh log over NDJSON whose head holds a
  ~900 KB store and whose 300 short lines (~2.7 KB) each repeat it twice in their step,
  and never read (a 4 KiB receive buffer). They close at the end.
- mismatches: MISMATCH_CLIENTS clients post a refresh log of 10,000 lines each of whose
  `items` mismatch lists the whole store's ids (~3 KB: 30 MB of mismatches in all), with ?steps=none, and read the
  answer: its summary must come, its mismatch list cut by bytes, its count 10,000.
- slow: SLOW_STREAMS chunked streams of playback lines, a 22-byte line every 2 s.

Samples the server's RSS (VmRSS) every 20 ms. Prints one JSON line: peak RSS (MiB),
the normal client's status counts and its slowest answer, what the mismatch clients
read, how many slow streams were refused at their start."""
import json
import socket
import sys
import threading
import time
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procstat  # noqa: E402

port, pid, small_file, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
never_reading, mismatch_clients, slow_streams = (int(a) for a in sys.argv[5:8])
small = open(small_file, "rb").read()
deadline = time.monotonic() + seconds
lock = threading.Lock()
result = {"normal": {}, "normalSlowestSeconds": 0.0, "mismatchSummaries": [], "slowRefused": 0}


def rss_kib():
    return procstat.rss_kib(pid)


def ndjson_post(path, body, extra=""):
    return (f"POST {path} HTTP/1.1\r\nHost: b\r\nContent-Type: application/x-ndjson\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def store_head(items, title, id_bytes=4):
    listed = ",".join(f'{{"id":"{i:0{id_bytes}d}","title":"{title}"}}' for i in range(items))
    return f'{{"store":{{"items":[{listed}]}}}}\n'.encode()


def never_reading_client():
    body = store_head(9_000, "t" * 80) + b"".join(f'{{"at":{i}}}\n'.encode() for i in range(300))
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        s.sendall(ndjson_post("/refresh/run", body))
        time.sleep(max(0, deadline - time.monotonic()))
    except OSError:
        pass
    s.close()


def mismatch_client():
    # Each mismatch lists the store's 15 ids of 100 bytes twice (expected, detail): ~3 KB;
    # the answer stays under refresh's 64 MiB cap (each step repeats the ~2 KB store twice).
    body = store_head(15, "", 100) + b"".join(
        f'{{"at":{i},"observed":{{"items":[]}}}}\n'.encode() for i in range(10_000))
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(seconds + 30)
    data = b""
    try:
        s.sendall(ndjson_post("/refresh/run?steps=none", body, "Connection: close\r\n"))
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/1.1 ") else 0
    summary = {"status": status, "bytes": len(rest)}
    # The payload's last line: de-chunk crudely by finding the summary object.
    start = rest.rfind(b'{"ruleset"')
    if start >= 0:
        line = rest[start:].split(b"\n", 1)[0]
        try:
            parsed = json.loads(line)
            summary.update(mismatchCount=parsed["mismatchCount"], listed=len(parsed["mismatches"]))
        except ValueError:
            pass
    problem = rest.find(b'{"problem":')
    if problem >= 0:
        try:
            summary["problem"] = json.loads(rest[problem:].split(b"\n", 1)[0])["problem"]["status"]
        except (ValueError, KeyError):
            summary["problem"] = "unreadable"
    with lock:
        result["mismatchSummaries"].append(summary)


def slow_stream(index):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
        s.settimeout(2)
        s.sendall(b"POST /playback/apply HTTP/1.1\r\nHost: b\r\nContent-Type: application/x-ndjson\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        line = b'{"type":"userPlayed"}\n'  # 22 bytes
        while time.monotonic() < deadline:
            s.sendall(b"%x\r\n%s\r\n" % (len(line), line))
            try:
                head = s.recv(65536, socket.MSG_DONTWAIT)
                if head.startswith(b"HTTP/1.1 503"):
                    with lock:
                        result["slowRefused"] += 1
                    break
            except BlockingIOError:
                pass
            time.sleep(2)
    except OSError:
        pass
    s.close()


def normal_client():
    request = (f"POST /playback/apply HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(small)}\r\n\r\n").encode() + small
    while time.monotonic() < deadline:
        began = time.monotonic()
        status = 0
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=15)
            s.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            status = int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else 0
            s.close()
        except OSError:
            pass
        with lock:
            result["normal"][str(status)] = result["normal"].get(str(status), 0) + 1
            result["normalSlowestSeconds"] = max(result["normalSlowestSeconds"], round(time.monotonic() - began, 3))
        time.sleep(0.1)


peak = [rss_kib()]
sampling = [True]


def sample():
    while sampling[0]:
        peak[0] = max(peak[0], rss_kib())
        time.sleep(0.02)


sampler = threading.Thread(target=sample)
sampler.start()
threads = [threading.Thread(target=normal_client)]
threads += [threading.Thread(target=never_reading_client) for _ in range(never_reading)]
threads += [threading.Thread(target=mismatch_client) for _ in range(mismatch_clients)]
threads += [threading.Thread(target=slow_stream, args=(i,)) for i in range(slow_streams)]
for t in threads:
    t.start()
for t in threads:
    t.join()
sampling[0] = False
sampler.join()
result["peakRSSMiB"] = round(peak[0] / 1024, 1)
print(json.dumps(result))
