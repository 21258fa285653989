#!/usr/bin/env bash
# The NDJSON form with steps=none against the shared Go peer's NDJSON branch (issue 45,
# acceptance 3): ../shared/bench/peers/go (bufio.Scanner + encoding/json into typed structs,
# summary only), which knows the five plain playback events only, so the log is theirs: the
# event mix of ../shared/bench/bodies/gen-large.py, one event a line after an `initial`
# head, repeated to GIB gibibytes (made once under .build/bench-inputs, never in git).
# For each size, RUNS rounds (default 3) of, back to back: DeviceOracle's server (a chunked
# upload with curl, the answer read as it comes), its CLI (`check --ndjson --steps none` on
# the same file) and the Go peer's server (the same upload). Servers and the CLI on CPU 1,
# curl on CPU 0. Prints per form the median MB/s of wall time and of the process's own CPU
# time (user + system, from /proc: a shared machine disturbs it less), the ratios against
# the targets (medians of each round's ratio), the server's CPU per byte against the CLI's,
# and the server's peak RSS above idle. Then what bounds it, on a 16 MiB cut with callgrind
# (instructions, steady on a busy machine): the share of the CLI's instructions spent on
# splitting the lines and parsing them (no ruleset decision), and the rate a plain read of
# the body over loopback reaches (a Python sink that only reads, CPU time).
# Usage: bench/ndjson-throughput.sh BINARY [GIB...]   (default: 0.25 1)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
binary=$(realpath "${1:?usage: ndjson-throughput.sh BINARY [GIB...]}")
shift
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(0.25 1)
runs=${RUNS:-3}
peer_source=${PEER_SOURCE:-$repo/../shared/bench/peers/go}
source "$repo/.ci/start-server.sh"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}" ${server_pid:-}; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

inputs=$repo/.build/bench-inputs
mkdir -p "$inputs"
# log_for GIB: the shared peer's event mix as NDJSON, GIB gibibytes (whole blocks of 100,000 events).
log_for() {
  local log="$inputs/playback-plain-${1}gib.ndjson"
  if [[ ! -s $log ]]; then
    python3 "$here/playback_plain_log.py" "$log.part" --bytes "$(awk -v g="$1" 'BEGIN { printf "%d", g * 2^30 }')"
    mv "$log.part" "$log"
  fi
  echo "$log"
}

mkdir -p "$work/peer"
cp "$peer_source"/go.mod "$peer_source"/main.go "$work/peer/"
(cd "$work/peer" && go build -o "$work/go-peer" .)

ticks=$(getconf CLK_TCK)
cpu_seconds() { awk -v hz="$ticks" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
source "$here/median.sh"

# The servers, each started once, alone on CPU 1.
SERVER_CPUS=1 start_server "$work/server.log" "$binary" --log-level warn
pids+=("$server_pid")
oracle_pid=$server_pid oracle_port=$port
peer_port=$((20000 + RANDOM % 20000))
taskset -c 1 "$work/go-peer" -addr "127.0.0.1:$peer_port" >"$work/peer.log" 2>&1 &
peer_pid=$!
pids+=("$peer_pid")
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$peer_port/" && break; sleep 0.05; done

# upload PORT PID LOG OUT: "wall_seconds cpu_seconds peak_rss_above_idle_kib" of one
# chunked upload, the answer's last line into OUT.
upload() {
  local port=$1 pid=$2 log=$3 out=$4 before idle peak=0 kib wall
  sleep 0.5
  idle=$(rss_kib "$pid") before=$(cpu_seconds "$pid")
  touch "$work/sampling"
  (while [[ -e $work/sampling ]]; do rss_kib "$pid"; sleep 0.05; done >"$work/rss") &
  local sampler=$!
  wall=$(taskset -c 0 curl -sS -X POST -T "$log" -H 'Content-Type: application/x-ndjson' \
    -H 'Transfer-Encoding: chunked' -o "$work/answer" -w '%{time_total}' \
    "http://127.0.0.1:$port/playback/apply?steps=none")
  rm -f "$work/sampling"
  wait "$sampler" || true
  tail -n 1 "$work/answer" >"$out"
  peak=$(sort -g "$work/rss" | tail -1)
  echo "$wall $(awk -v a="$before" -v b="$(cpu_seconds "$pid")" 'BEGIN { print b - a }') $((peak - idle))"
}

# cli LOG OUT: "wall_seconds cpu_seconds" of the CLI on CPU 1 (exit 1 is a failing verdict).
cli() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" taskset -c 1 "$binary" check playback --ndjson "$1" --steps none \
    >"$work/answer" || true
  tail -n 1 "$work/answer" >"$2"
  tail -n 1 "$work/time" | awk '{ print $1, $2 + $3 }'
}

# same OURS GO: whether DeviceOracle's summary and the Go peer's say the same final state and step count.
same() {
  python3 - "$1" "$2" <<'PY'
import json, sys
ours, go = (json.loads(open(p).read()) for p in sys.argv[1:3])
print("ok" if ours.get("final") == go.get("final") and ours.get("stepCount") == go.get("stepCount")
      else f"DIFFERENT: ours {ours.get('final')} {ours.get('stepCount')}, go {go.get('final')} {go.get('stepCount')}")
PY
}

echo "binary: $binary; $runs round(s) per size; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| log | form | MB/s (wall) | MB per CPU s | peak RSS above idle MiB | summary |"
echo "|---|---|---|---|---|---|"
declare -A summary_rows
for gib in "${sizes[@]}"; do
  log=$(log_for "$gib")
  size=$(stat -c %s "$log")
  cat "$log" >/dev/null  # in the page cache before the first measured run
  : >"$work/rounds"
  for run in $(seq 1 "$runs"); do
    read -r sw sc srss < <(upload "$oracle_port" "$oracle_pid" "$log" "$work/server.summary")
    read -r cw cc < <(cli "$log" "$work/cli.summary")
    read -r gw gc grss < <(upload "$peer_port" "$peer_pid" "$log" "$work/go.summary")
    echo "$sw $sc $srss $cw $cc $gw $gc $grss" >>"$work/rounds"
  done
  # column N of the rounds, as MB/s of its seconds
  rate() { awk -v c="$1" -v s="$size" '{ print s / $c / 1e6 }' "$work/rounds" | median; }
  ratio() { awk -v a="$1" -v b="$2" '{ print $b / $a }' "$work/rounds" | median; }  # (size/$a)/(size/$b)
  peak() { awk -v c="$1" '{ print $c }' "$work/rounds" | sort -g | tail -1 | awk '{ printf "%.1f", $1 / 1024 }'; }
  label="$(basename "$log") ($size bytes, $(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read())['stepCount'])" "$work/cli.summary") events)"
  printf '| %s | device-oracle serve, steps=none | %.1f | %.1f | %s | %s |\n' "$label" "$(rate 1)" "$(rate 2)" "$(peak 3)" \
    "$(same "$work/server.summary" "$work/go.summary")"
  printf '| | device-oracle check --ndjson --steps none | %.1f | %.1f | - | %s |\n' "$(rate 4)" "$(rate 5)" \
    "$(same "$work/cli.summary" "$work/go.summary")"
  printf '| | Go peer (shared/bench/peers/go), NDJSON | %.1f | %.1f | %s | - |\n' "$(rate 6)" "$(rate 7)" "$(peak 8)"
  summary_rows[$gib]=$(printf '| %s GiB | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |' "$gib" \
    "$(ratio 1 6)" "$(ratio 2 7)" "$(ratio 4 6)" "$(ratio 5 7)" "$(awk '{ print $2 / $5 }' "$work/rounds" | median)" "$(rate 1)")
done
echo
echo "Ratios (medians of each round's): server ÷ Go peer (target ≥ 4), CLI ÷ Go peer, and the server's CPU"
echo "per byte ÷ the CLI's (target ≤ 1.2); server MB/s (target ≥ 300 on one core)."
echo
echo "| size | server ÷ Go (wall) | server ÷ Go (CPU) | CLI ÷ Go (wall) | CLI ÷ Go (CPU) | server CPU per byte ÷ CLI's | server MB/s |"
echo "|---|---|---|---|---|---|---|"
for gib in "${sizes[@]}"; do echo "${summary_rows[$gib]}"; done
{ grep -v '"msg":"listening"' "$work/server.log" || true; } | head -5 | sed 's/^/server log: /'

# The bounds. Instructions of the CLI on a 16 MiB cut: the share under the line splitter
# and the JSON line reader (what is left with no ruleset decisions).
if command -v valgrind >/dev/null; then
  head -c $((16 << 20)) "$(log_for "${sizes[0]}")" | sed '$d' >"$work/cut.ndjson"
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$binary" check playback --ndjson \
    "$work/cut.ndjson" --steps none >/dev/null 2>"$work/callgrind.err" || true
  demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }
  callgrind_annotate --inclusive=yes "$work/callgrind.out" 2>/dev/null | demangle >"$work/inclusive" || true
  total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/callgrind.err")
  # inclusive Ir of the first line naming FUNCTION
  inclusive() { grep -m1 -F "$1" "$work/inclusive" | awk '{ gsub(",", "", $1); print $1 }'; }
  lines=$(inclusive 'NDJSONLines.next(') check=$(inclusive 'NDJSONCheck.receive(')
  # A line's document is lent by the reader (`lend`; `parse` in builds before it).
  parse=$(inclusive 'JSONLineReader.lend(')
  [[ -n $parse ]] || parse=$(inclusive 'JSONLineReader.parse(')
  events=$(($(wc -l <"$work/cut.ndjson") - 1))
  echo
  echo "callgrind, check --ndjson --steps none on 16 MiB ($events events): $total instructions," \
    "$((total / events)) a line; NDJSONCheck.receive $((check / events)) a line, of which splitting lines" \
    "$((lines / events)) and parsing them $((parse / events)), so the rest (layout, the ruleset's reading and" \
    "decisions, findings) $(((check - lines - parse) / events)). Split + parse alone would run at" \
    "$(awk -v c="$check" -v l="$lines" -v p="$parse" 'BEGIN { printf "%.1f", c / (l + p) }') × the CLI's MB per CPU s."
fi

# A plain read of the body over loopback: a sink that reads the chunked upload and does
# nothing else (Python: its per-read cost is small against 64 KiB reads).
python3 - "$work/sink.port" <<'PY' &
import socket, sys
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
open(sys.argv[1], "w").write(str(listener.getsockname()[1]))
buffer = bytearray(1 << 16)
while True:
    connection, _ = listener.accept()
    tail = b""
    while True:
        count = connection.recv_into(buffer)
        if count == 0:
            break
        tail = (tail + bytes(buffer[max(0, count - 5):count]))[-5:]
        if tail == b"0\r\n\r\n":
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            break
    connection.close()
PY
sink_pid=$!
pids+=("$sink_pid")
for _ in $(seq 1 100); do [[ -s $work/sink.port ]] && break; sleep 0.05; done
taskset -pc 1 "$sink_pid" >/dev/null
log=$(log_for "${sizes[-1]}")
size=$(stat -c %s "$log")
: >"$work/sink"
for _ in $(seq 1 "$runs"); do
  before=$(cpu_seconds "$sink_pid")
  taskset -c 0 curl -sS -X POST -T "$log" -H 'Transfer-Encoding: chunked' -o /dev/null "http://127.0.0.1:$(cat "$work/sink.port")/"
  awk -v a="$before" -v b="$(cpu_seconds "$sink_pid")" -v s="$size" 'BEGIN { print s / (b - a) / 1e6 }' >>"$work/sink"
done
echo "A plain read of the body over loopback (a sink on CPU 1 that only reads it): $(median <"$work/sink" | awk '{ printf "%.0f", $1 }')" \
  "MB per CPU s, median of $runs on $(basename "$log")."
