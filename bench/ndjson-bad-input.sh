#!/usr/bin/env bash
# Bad NDJSON lines end the stream cleanly (issue 19, acceptance 5): a malformed line,
# an unknown event type, a line over --max-line-bytes, and an invalid UTF-8 byte in the
# middle of a GIB-gibibyte stream (default 1) sent chunked. Each must answer 200 with
# the steps before it, a last line {"problem": …} naming its line and a pointer, the
# trailer Oracle-Verdict: invalid, and a closed connection; afterwards the server still
# answers, and its open fds and RSS are back at their baseline.
# Usage: bench/ndjson-bad-input.sh BINARY [GIB]
set -euo pipefail
binary=$(realpath "$1")
gib=${2:-1}
cd "$(dirname "$0")/.."
source .ci/start-server.sh
server_workdir
start_server "$work/server.out" "$binary" --log-level warn --max-line-bytes 4096

fds() { ls "/proc/$server_pid/fd" | wc -l; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status"; }
url="http://127.0.0.1:$port/playback/apply"
failures=0

# check NAME LINE POINTER: reads the raw answer (chunks and trailer) from stdin.
check() {
  local name=$1 line=$2 pointer=$3 answer last
  answer=$(cat)
  last=$(printf '%s\n' "$answer" | grep '^{"problem"' | tail -1 || true)
  if [[ $last == *"\"line\":$line,"* || $last == *"\"line\":$line}"* ]] && [[ $last == *"\"pointer\":\"$pointer\""* ]] \
     && printf '%s\n' "$answer" | grep -q '^Oracle-Verdict: invalid'; then
    printf '%-28s ok   line %s, pointer "%s", trailer invalid\n' "$name" "$line" "$pointer"
  else
    printf '%-28s FAIL last line: %s\n' "$name" "${last:0:300}"
    failures=$((failures + 1))
  fi
}

post() { curl -sS --raw -T - -X POST -H "Content-Type: application/x-ndjson" "$url" 2>>"$work/curl.err" || true; }

curl -sf "http://127.0.0.1:$port/healthz" >/dev/null
base_fds=$(fds) base_rss=$(rss_kib)
echo "baseline: $base_fds fds, RSS $((base_rss / 1024)) MiB"

printf '{"type":"userPlayed"}\n{"type":"userPaused"}\n{"type":"userPlayed",\n{"type":"userPaused"}\n' \
  | post | tr -d '\r' | check "malformed line" 3 ""
printf '{"type":"userPlayed"}\n{"at":1,"type":"userJumped"}\n' | post | tr -d '\r' | check "unknown event type" 2 "/type"
python3 -c 'import sys; sys.stdout.write("{\"type\":\"userPlayed\"}\n{\"type\":\"userPaused\",\"id\":\"" + "x" * 10000 + "\"}\n")' \
  | post | tr -d '\r' | check "line over --max-line-bytes" 2 ""

# Half the stream, the bad line, the other half (never read): lines of ~40 bytes.
start=$(date +%s.%N)
python3 - "$gib" <<'PY' | post | tr -d '\r' | grep -v '^{"index"' >"$work/big.out"
import sys
total = int(float(sys.argv[1]) * (1 << 30))
block = ('{"type":"userPlayed","at":1}\n{"type":"userPaused","at":2}\n' * 4096).encode()
out = sys.stdout.buffer
half, written = total // 2, 0
try:
    while written < half:
        out.write(block)
        written += len(block)
    out.write(b'{"type":"userPlayed","id":"\xff"}\n')
    while written < total:
        out.write(block)
        written += len(block)
except BrokenPipeError:
    pass  # the server closed after the problem line: the rest is never read
PY
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
# Blocks of 8192 lines until half is written, then the bad line (a syntax error: pointer "").
bad_line=$(python3 -c "
block = ('{\"type\":\"userPlayed\",\"at\":1}\n{\"type\":\"userPaused\",\"at\":2}\n' * 4096).encode()
half = int(float('$gib') * (1 << 30)) // 2
print(-(-half // len(block)) * 8192 + 1)")
check "invalid UTF-8 in ${gib} GiB" "$bad_line" "" <"$work/big.out"
echo "  (the bad line, $bad_line, after $gib/2 GiB; answered in ${elapsed%.*} s)"

sleep 1
cat "$work/curl.err" >&2
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && echo "the server still answers /healthz"
end_fds=$(fds) end_rss=$(rss_kib)
echo "after: $end_fds fds (baseline $base_fds), RSS $((end_rss / 1024)) MiB (baseline $((base_rss / 1024)) MiB)"
if (( end_fds > base_fds )); then echo "FAIL: file descriptors leaked"; failures=$((failures + 1)); fi
if (( end_rss > base_rss + 16 * 1024 )); then echo "FAIL: RSS did not come back within 16 MiB"; failures=$((failures + 1)); fi
exit $((failures > 0))
