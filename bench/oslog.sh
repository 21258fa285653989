#!/usr/bin/env bash
# The unified-log form's speed and memory (issue 43, acceptance 6): a capture in which 1
# record in 20 is the app's (the other 19 other subsystems', processes' and event types'
# records, as `log stream --style ndjson` writes them) against the NDJSON form of the
# same elements alone (with the id and at the capture fills in), checked side by side
# in one run by the same binary with --steps none. Prints MB/s of each (bytes read per
# second of wall time), their ratio (the target: the capture's MB/s at least 2x the
# NDJSON form's, since skipping a record must cost far less than deciding one) and the
# peak RSS of each above an idle run of the binary (target: <= 32 MiB). The elements
# alone are repeated to the capture's size so that both rates are steady-state ones.
# Usage: bench/oslog.sh BINARY [MIB]   (default 1024: a 1 GiB capture; use a release build)
set -euo pipefail
binary=$(realpath "$1")
mib=${2:-1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$mib" "$work/capture.ndjson" "$work/elements.ndjson" "$(dirname "$0")/bodies" <<'PY'
import json, sys
total = int(float(sys.argv[1]) * (1 << 20))
capture = open(sys.argv[2], "w", buffering=1 << 20)
elements = open(sys.argv[3], "w", buffering=1 << 20)
sys.path.insert(0, sys.argv[4])
from forms import app, others, record  # the records bench/table.sh's captures hold too
events = ['{"type":"userPlayed","observed":{"isPlaying":true}}', '{"type":"userPaused","observed":{"isPlaying":false}}']
capture.write('Filtering the log data using "subsystem == "com.example.player""\n')
written, line, n = 0, 1, 0
while written < total:
    for k in range(19):
        category, subsystem, pid, image, event, message = others[(n + k) % 4]
        text = record(n, message, category, subsystem, pid, image, event) + "\n"
        capture.write(text); written += len(text); line += 1; n += 1
    message = events[n // 20 % 2]
    text = record(n, message, "DeviceOracle", "com.example.player", 412, app) + "\n"
    capture.write(text); written += len(text); line += 1
    s = n // 1000
    ms = 1796540400000 + (s * 1000) + n % 1000  # what the capture's timestamp fills in (same order)
    elements.write('{"id":"line-%d","at":%d,%s\n' % (line, ms, message[1:]))
    n += 1
PY

idle=$( { /usr/bin/time -f '%M' "$binary" --version >/dev/null; } 2>&1 | tail -1)
run() {  # LABEL FILE FLAGS…: prints MB/s and peak RSS above idle
  local label=$1 file=$2; shift 2
  local bytes start end rss
  bytes=$(stat -c %s "$file")
  start=$(date +%s.%N)
  rss=$( { /usr/bin/time -f '%M' "$binary" check playback "$@" "$file" --steps none >"$work/$label.out"; } 2>&1 | tail -1) || true
  end=$(date +%s.%N)
  python3 -c "import sys; b, s, e, r, i = map(float, sys.argv[1:6]); print('%-8s %8.1f MiB in %6.2f s: %7.1f MB/s, peak RSS %5.1f MiB above idle' % (sys.argv[6], b / 2**20, e - s, b / 1e6 / (e - s), (r - i) / 1024))" \
    "$bytes" "$start" "$end" "$rss" "$idle" "$label" | tee -a "$work/results"
  tail -c 400 "$work/$label.out" >&2; echo >&2
}
# The elements alone are ~200x smaller than the capture: repeated to the capture's size,
# so that both rates are steady-state rates, not the binary's start.
copies=$(( $(stat -c %s "$work/capture.ndjson") / $(stat -c %s "$work/elements.ndjson") + 1 ))
for ((k = 0; k < copies; k++)); do cat "$work/elements.ndjson"; done >"$work/elements-repeated.ndjson"
run ndjson "$work/elements-repeated.ndjson" --ndjson
run oslog "$work/capture.ndjson" --from oslog
python3 - "$work/results" <<'PY'
import re, sys
rates = [float(re.search(r"([\d.]+) MB/s", l).group(1)) for l in open(sys.argv[1])]
print("ratio: the capture is read at %.2fx the NDJSON form's MB/s (target >= 2x)" % (rates[1] / rates[0]))
PY
