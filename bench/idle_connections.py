#!/usr/bin/env python3
"""Opens COUNT keep-alive connections to a loopback server, each after one
`GET /healthz` answered, holds them, and prints the server's resident memory
before and with them (VmRSS of PID, KiB) as `idle_kib=… with_kib=…`.

Usage: bench/idle_connections.py PORT PID [COUNT]   (COUNT defaults to 10000)
"""
import resource
import socket
import sys
import time

port, pid = int(sys.argv[1]), int(sys.argv[2])
count = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 100), hard))


def rss_kib():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS")


request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
idle = rss_kib()
held = []
for _ in range(count):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(request)
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
        piece = connection.recv(4096)
        if not piece:
            raise SystemExit(f"closed after {len(held)} connections")
        answer += piece
    held.append(connection)
time.sleep(1)
print(f"connections={len(held)} idle_kib={idle} with_kib={rss_kib()}")
