#!/usr/bin/env bash
# The memory budget under load (issue 16, point 5): the release server at its defaults,
# 20 clients each posting an 8 MiB playback log in a loop (bench/memory_clients.py), over
# HTTP/1.1 and over HTTP/1.0; prints per run the peak RSS, the share of 200 and 503 (any
# other status fails the run), and how soon RSS is back under 64 MiB once the load stops.
# Then each ruleset's largest benchmark body alone, for the memory a request costs per
# byte of its body (what `ServiceRoutes.memoryPerBodyByte` must cover), and point 6: 20
# HTTP/1.0 clients that never read their answer, cut by --send-timeout 1, and RSS after;
# and point 14: RSS back near idle after a mixed load of small bodies and 3 MB answers.
# Last, issue 42's amplifying streams (bench/stream_clients.py): 60 never-reading clients of
# refresh store x steps alone, then at once with fewer: refresh store x
# steps over NDJSON to clients that never read, 10,000 mismatches of a whole store's ids
# in one summary, 128 slow streams: peak RSS within the budget + 64 MiB, a normal request
# answered 200 throughout, and RSS back under 64 MiB once they have left.
# Usage: bench/memory-budget.sh [--seconds N] [--clients C] [BINARY]   (defaults 20, 20)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
seconds=20 clients=20 binary=
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    *) binary=$1; shift ;;
  esac
done
if [[ -z $binary ]]; then
  (cd "$repo" && swift build -c release --product device-oracle >&2)
  binary=$(cd "$repo" && swift build -c release --show-bin-path)/device-oracle
fi
source "$repo/.ci/start-server.sh"
source "$here/clients.sh"
server_workdir

python3 "$here/bodies/generate.py" "$work" >/dev/null
python3 - "$work/playback-8m.json" <<'PY'
import json, sys
kinds = ["interruptionBegan", "interruptionEnded", "outputDisconnected", "userPaused", "userPlayed"]
x, events, size = 12345, [], 60
while True:
    x = (x * 1103515245 + 12345) % 2**31
    event = {"type": kinds[(x >> 16) % 5]}
    if event["type"] == "interruptionEnded":
        event["shouldResume"] = (x >> 8) % 4 != 0
    size += len(json.dumps(event, separators=(",", ":"))) + 1
    if size > 8 * 1024 * 1024 - 64:
        break
    events.append(event)
body = {"initial": {"isPlaying": True, "resumeAfterInterruption": False}, "events": events}
open(sys.argv[1], "w").write(json.dumps(body, separators=(",", ":")))
PY

rss_mib() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

failed=0
start_server "$work/server.log" "$binary" --log-level warn
sed -n 's/.*"maxMemoryBytes":\([0-9]*\),"maxMemorySource":"\([a-z]*\)".*/budget: \1 bytes (\2)/p' "$work/server.log"
for version in HTTP/1.1 HTTP/1.0; do
  sleep 2  # a quiet second: the heap is trimmed
  result=$(python3 "$here/memory_clients.py" 127.0.0.1 "$port" "$server_pid" /playback/apply \
    "$work/playback-8m.json" "$clients" "$seconds" "$version")
  echo "$result"
  python3 - "$result" <<'PY' || failed=1
import json, sys
r = json.loads(sys.argv[1])
statuses = r["statuses"]
total = sum(statuses.values())
ok, busy = statuses.get("200", 0), statuses.get("503", 0)
other = {k: v for k, v in statuses.items() if k not in ("200", "503")}
print(f"  {r['version']}: {total} requests, {100 * ok / total:.0f} % 200, {100 * busy / total:.0f} % 503, "
      f"peak RSS {r['peakRSSMiB']} MiB, back under 64 MiB after {r['secondsToUnder64MiB']} s")
problems = []
if r["peakRSSMiB"] > 512: problems.append("peak RSS over 512 MiB")
if ok * 2 < total: problems.append("fewer than half answered 200")
if other: problems.append(f"other answers: {other}")
if r["secondsToUnder64MiB"] is None: problems.append("RSS not under 64 MiB within 5 s")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
done
kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=

echo "memory per request, over its body (each body alone, a fresh server each):"
for pair in "${rulesets[@]}"; do
  name=${pair%%:*} path=${pair#*:}
  start_server "$work/server.log" "$binary" --log-level warn
  idle=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  result=$(python3 "$here/memory_clients.py" 127.0.0.1 "$port" "$server_pid" "$path" "$work/$name-large.json" 1 3 HTTP/1.1)
  python3 - "$result" "$idle" "$(stat -c %s "$work/$name-large.json")" "$name" <<'PY'
import json, sys
r, idle_kib, size, name = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
peak = r["peakRSSMiB"] * 1024 * 1024 - idle_kib * 1024
print(f"  {name}: {size / 1e6:.1f} MB body, peak {peak / 1e6:.1f} MB above idle: {peak / size:.1f} x its body")
PY
  kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=
done

echo "idle again after mixed load: small bodies, and 3 MB plan answers to small bodies (point 14):"
start_server "$work/server.log" "$binary" --log-level warn
idle=$(rss_mib "$server_pid")
python3 - "$port" "$work/playback-small.json" <<'PY'
import socket, sys, threading, time
port, small = int(sys.argv[1]), open(sys.argv[2], "rb").read()
plan = b'{"coverage":"random","count":10,"maxLength":1000}'
def post(path, body):
    return (f"POST {path} HTTP/1.1\r\nHost: b\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
def client(request, seconds):
    s = socket.create_connection(("127.0.0.1", port))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(65536)
        head, rest = data.split(b"\r\n\r\n", 1)
        if b"chunked" in head.lower():
            while not rest.endswith(b"0\r\n\r\n"):
                rest += s.recv(1 << 20)
        else:
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            while len(rest) < length:
                rest += s.recv(1 << 20)
    s.close()
threads = [threading.Thread(target=client, args=(post("/playback/apply", small), 10)) for _ in range(8)]
threads += [threading.Thread(target=client, args=(post("/rulesets/playback/plan", plan), 10)) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
sleep 3
after=$(rss_mib "$server_pid")
echo "  idle $idle MiB, 3 s after the load: $after MiB"
python3 -c "import sys; sys.exit(0 if float('$after') < float('$idle') + 8 else 1)" || { echo "  FAIL: memory kept after the load"; failed=1; }
kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=

echo "answers cut by --send-timeout 1 (HTTP/1.0 clients that never read):"
start_server "$work/server.log" "$binary" --log-level warn --send-timeout 1
idle=$(rss_mib "$server_pid")
python3 - "$port" "$work/playback-8m.json" "$clients" <<'PY'
import socket, sys, time
port, body, clients = int(sys.argv[1]), open(sys.argv[2], "rb").read(), int(sys.argv[3])
head = f"POST /playback/apply HTTP/1.0\r\nContent-Length: {len(body)}\r\n\r\n".encode()
socks = []
for _ in range(clients):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(head + body)
    socks.append(s)
time.sleep(4)  # the server gives up on each after a second without progress
for s in socks: s.close()
PY
sleep 1.5
after=$(rss_mib "$server_pid")
echo "  idle $idle MiB, 1.5 s after the cut answers: $after MiB"
python3 -c "import sys; sys.exit(0 if float('$after') < 64 else 1)" || { echo "  FAIL: memory kept after the send timeout"; failed=1; }
kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=

# $1 never-reading refresh clients, $2 clients of 10,000 mismatches, $3 slow streams.
amplifying_streams() {
  start_server "$work/server.log" "$binary" --log-level warn
  local budget idle after result
  budget=$(sed -n 's/.*"maxMemoryBytes":\([0-9]*\).*/\1/p' "$work/server.log" | head -1)
  idle=$(rss_mib "$server_pid")
  result=$(python3 "$here/stream_clients.py" "$port" "$server_pid" "$here/bodies/playback-small.json" "$seconds" "$@")
  sleep 2  # the last stream's end schedules the trim a second later
  after=$(rss_mib "$server_pid")
  echo "  $result"
  python3 - "$result" "$budget" "$idle" "$after" "$2" <<'PY' || failed=1
import json, sys
r, budget, idle, after = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
mismatch_clients = int(sys.argv[5])
limit = budget / 1048576 + 64
print(f"  peak RSS {r['peakRSSMiB']} MiB (limit {limit:.0f}), normal answers {r['normal']}, slowest "
      f"{r['normalSlowestSeconds']} s, slow streams refused {r['slowRefused']}, idle {idle} MiB, after {after} MiB")
problems = []
if r["peakRSSMiB"] > limit: problems.append("peak RSS over the budget + 64 MiB")
if set(r["normal"]) != {"200"}: problems.append(f"a normal request was not answered 200: {r['normal']}")
if r["slowRefused"]: problems.append("slow streams were refused at their start")
summaries = r["mismatchSummaries"]
if len(summaries) != mismatch_clients or any(s.get("mismatchCount") != 10000 or not 0 < s.get("listed", 0) < 10000
                                             for s in summaries):
    problems.append(f"a 10,000-mismatch summary is missing or not cut by bytes: {summaries}")
if after >= 64: problems.append("RSS not back under 64 MiB after the streams left")
for p in problems: print("  FAIL:", p)
sys.exit(1 if problems else 0)
PY
  kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=
}
echo "amplifying NDJSON streams (issue 42): 60 never-reading refresh clients (~900 KB store, 300 lines) alone:"
amplifying_streams 60 0 0
echo "amplifying NDJSON streams at once: 10 never-reading refresh clients, 4 x 10,000 mismatches, 128 slow streams:"
amplifying_streams 10 4 128
exit "$failed"
