#!/usr/bin/env bash
# The NDJSON form (shared/spec/streaming.md) on a playback log of GIB gibibytes (issue 19,
# acceptance 3), side by side in one run: DeviceOracle's server (steps=none, and steps=all
# read as it comes) and CLI (--steps none / all), and the Go peer (bench/ndjson-peer: a
# bufio.Scanner + encoding/json program running the same rules) as CLI and over HTTP with
# steps=none. Prints per form MB/s of wall time and of the process's CPU time (medians of
# RUNS, interleaved), the peak RSS above idle, whether the summary says what the generator
# planted, the ratios against the targets, and a perf profile of the CLI with --steps none
# (callgrind on 16 MiB when perf cannot run).
# Servers and the CLIs on CPU 1; curl, the readers and the RSS sampler on CPU 0.
# Usage: bench/ndjson-stream.sh BINARY [GIB]   (GIB default 1; 0.25 for a quick run)
# RUNS: default 3 up to 0.25 GiB, else 1 (at about 30 MB/s one 1 GiB upload takes 40 s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
binary=$(realpath "${1:?usage: ndjson-stream.sh BINARY [GIB]}")
gib=${2:-1}
runs=${RUNS:-$(awk -v g="$gib" 'BEGIN { print (g <= 0.25) ? 3 : 1 }')}
profile_gib=0.0625  # 64 MiB: some 10k samples, enough for the shares, and a minute less
source "$repo/.ci/start-server.sh"

# Tools from Debian when missing (the machine is handed on as it is, not what was installed).
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need go golang
need perf linux-perf
need /usr/bin/time time

work=$(mktemp -d)
pids=()
cleanup() {
  touch "$work/stop"
  # server_pid too: start_server sets it before it knows the port, and may exit the script
  for pid in "${pids[@]}" ${server_pid:-}; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The log, once: cached in .build/bench-inputs (never in git), made again when the
# generator changed. Its sidecar holds what the generator planted (steps, mismatches, final state).
log_for() {
  mkdir -p "$repo/.build/bench-inputs"
  local gib=$1 log="$repo/.build/bench-inputs/playback-${1}gib.ndjson"
  local expected="${log%.ndjson}.expected.ndjson"
  if [[ ! -s $log || ! -s $expected || $here/ndjson-peer/generate.py -nt $log ]]; then
    python3 "$here/ndjson-peer/generate.py" "$log" "$(awk -v g="$gib" 'BEGIN { printf "%d", g * 2^30 }')" >"$expected"
  fi
  echo "$log"
}
log=$(log_for "$gib")
expected=$(cat "${log%.ndjson}.expected.ndjson")
size=$(stat -c %s "$log")
cat "$log" >/dev/null  # in the page cache before the first measured run
printf '{"initial":{"isPlaying":false,"resumeAfterInterruption":false}}\n{"type":"userPlayed","observed":{"isPlaying":true}}\n' >"$work/tiny.ndjson"

(cd "$here/ndjson-peer" && go build -o "$work/ndjson-peer" .)
peer=$work/ndjson-peer

source "$here/median.sh"
mbps() { awk -v s="$size" -v t="$1" 'BEGIN { printf "%.1f", s / t / 1e6 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# Swift symbols for a person, when the toolchain's demangler is there.
demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
# The CPU seconds (user + system) a process has used: on a shared machine, MB per CPU second
# swings less than MB per wall second.
ticks=$(getconf CLK_TCK)
cpu_seconds() { awk -v hz="$ticks" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# sample_rss PID OUT: the largest VmRSS (KiB) of PID every 50 ms, into OUT, until $work/stop.
# VmHWM cannot be reset between runs, so a server's peak is sampled.
sample_rss() {
  local pid=$1 out=$2 peak=0 kib
  while [[ ! -e $work/stop ]] && kib=$(rss_kib "$pid" 2>/dev/null); do
    ((kib > peak)) && peak=$kib
    echo "$peak" >"$out"
    sleep 0.05
  done
}

# post PORT STEPS NAME PID: one upload of the log, chunked as a harness streaming it would
# send it, the answer read as it comes (its last line kept); appends "wall_seconds
# peak_KiB_above_idle server_CPU_seconds" to $work/NAME.runs, keeps the summary line and trailer.
post() {
  local port=$1 steps=$2 name=$3 pid=$4 idle sampler cpu
  sleep 1  # quiet: the heap a previous run used is given back before idle is read
  idle=$(rss_kib "$pid") cpu=$(cpu_seconds "$pid")
  rm -f "$work/stop" "$work/peak"
  sample_rss "$pid" "$work/peak" &
  sampler=$!
  taskset -pc 0 "$sampler" >/dev/null
  taskset -c 0 curl -sS -X POST -T "$log" -H 'Content-Type: application/x-ndjson' \
    -H 'Transfer-Encoding: chunked' -D "$work/$name.headers" -w '%{stderr}%{time_total}\n' \
    "http://127.0.0.1:$port/playback/apply?steps=$steps" 2>"$work/curl.err" |
    taskset -c 0 tail -n 1 >"$work/$name.summary"
  touch "$work/stop"
  wait "$sampler" || true
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: the server $pid died during $name" >&2; exit 1; }
  grep -Eq '^[0-9.]+$' <(tail -n 1 "$work/curl.err") || { echo "FAIL: curl: $(cat "$work/curl.err")" >&2; exit 1; }
  echo "$(tail -n 1 "$work/curl.err") $(($(cat "$work/peak") - idle))" \
    "$(awk -v a="$cpu" -v b="$(cpu_seconds "$pid")" 'BEGIN { print b - a }')" >>"$work/$name.runs"
}

# cli NAME OUT COMMAND...: one run under /usr/bin/time on CPU 1, its answer into OUT; appends
# "wall_seconds max_RSS_KiB CPU_seconds" to $work/NAME.runs. Exit 1 is the log's verdict (fail).
cli() {
  local name=$1 out=$2
  shift 2
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" taskset -c 1 "$@" >"$out" || true
  # Its last line: after a non-zero exit (1 is a failing verdict) time writes "Command
  # exited with non-zero status 1" first, a line that read as 0 s halved the medians.
  tail -n 1 "$work/time" | awk '{ print $1, $2, $3 + $4 }' >>"$work/$name.runs"
  [[ $out == /dev/null ]] || tail -n 1 "$out" >"$work/$name.summary"
}

echo "log: $log ($size bytes), $runs run(s) each; binary: $binary" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# DeviceOracle's server, then the Go peer's, each started once, alone on CPU 1.
: >"$work/server.log"  # start_server's sed may look before the server has opened its log
SERVER_CPUS=1 start_server "$work/server.log" "$binary" --log-level warn
pids+=("$server_pid")
oracle_pid=$server_pid oracle_port=$port
: >"$work/peer.log"
taskset -c 1 "$peer" serve -addr 127.0.0.1:0 >>"$work/peer.log" 2>&1 &
pids+=("$!")
peer_pid=$!
for _ in $(seq 1 100); do
  peer_port=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$work/peer.log")
  [[ -n $peer_port ]] && break
  sleep 0.05
done
[[ -n $peer_port ]] || { echo "the Go peer did not start:" >&2; cat "$work/peer.log" >&2; exit 1; }

# Baselines for the CLIs' peak RSS: a two-line log.
/usr/bin/time -f '%M' -o "$work/time" "$binary" check playback --ndjson "$work/tiny.ndjson" --steps none >/dev/null
cli_base=$(cat "$work/time")
/usr/bin/time -f '%M' -o "$work/time" "$peer" check -steps none "$work/tiny.ndjson" >/dev/null
peer_base=$(cat "$work/time")

for run in $(seq 1 "$runs"); do
  echo "run $run of $runs" >&2
  # Each pair that a ratio compares runs back to back: the machine's speed drifts.
  post "$oracle_port" none server-none "$oracle_pid"
  post "$peer_port" none peer-http-none "$peer_pid"
  cli cli-none "$work/answer" "$binary" check playback --ndjson "$log" --steps none
  cli peer-none "$work/answer" "$peer" check -steps none "$log"
  cli cli-all /dev/null "$binary" check playback --ndjson "$log" --steps all
  cli peer-all /dev/null "$peer" check -steps all "$log"
  post "$oracle_port" all server-all "$oracle_pid"
done

# row NAME LABEL BASE_KIB: MB/s of the median wall time and of the median CPU time, the
# largest peak RSS over the runs (above idle, or above BASE_KIB for a CLI), the summary check.
declare -A speed cpu_speed rss
row() {
  local name=$1 label=$2 base=${3:-0} seconds cpu peak check="-"
  seconds=$(cut -d' ' -f1 "$work/$name.runs" | median)
  cpu=$(cut -d' ' -f3 "$work/$name.runs" | median)
  peak=$(($(cut -d' ' -f2 "$work/$name.runs" | sort -g | tail -1) - base))
  speed[$name]=$(mbps "$seconds") cpu_speed[$name]=$(mbps "$cpu") rss[$name]=$(mib "$peak")
  if [[ -s $work/$name.summary ]]; then
    check=$(python3 - "$work/$name.summary" "$expected" "$work/server-none.summary" <<'PY'
import json, sys
got, want = json.loads(open(sys.argv[1]).read()), json.loads(sys.argv[2])
wrong = [f"{k} {got.get(k)} != {want[k]}" for k in ("stepCount", "mismatchCount", "final") if got.get(k) != want[k]]
if got.get("verdict") != "fail":  # the generator plants wrong observed values
    wrong.append(f"verdict {got.get('verdict')}")
oracle = json.loads(open(sys.argv[3]).read())  # the Go peer's rules agree with the service's
if got.get("diagnosticCount") != oracle.get("diagnosticCount"):
    wrong.append(f"diagnosticCount {got.get('diagnosticCount')} != serve's {oracle.get('diagnosticCount')}")
print("ok" if not wrong else "WRONG: " + "; ".join(wrong))
PY
    ) || check="WRONG: the answer's last line is not a summary: $(head -c 200 "$work/$name.summary")"
  fi
  echo "| $label | ${speed[$name]} | $seconds | ${cpu_speed[$name]} | ${rss[$name]} | $check |"
}

echo
echo "$(basename "$log"): $size bytes, $(python3 -c "import json,sys; print(json.loads(sys.argv[1])['stepCount'])" "$expected")" \
  "events; medians of $runs run(s); load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| form | MB/s | s | MB per CPU s | peak RSS above idle MiB | summary |"
echo "|---|---|---|---|---|---|"
row server-none "device-oracle serve, steps=none (chunked upload)"
row server-all "device-oracle serve, steps=all (read as it comes)"
row cli-none "device-oracle check --ndjson --steps none" "$cli_base"
row cli-all "device-oracle check --ndjson --steps all >/dev/null" "$cli_base"
row peer-http-none "Go peer serve, steps=none"
row peer-none "Go peer check -steps none" "$peer_base"
row peer-all "Go peer check -steps all >/dev/null" "$peer_base"
verdict=$(sed -n 's/^Oracle-Verdict: *\([a-z]*\).*/\1/p' "$work/server-none.headers" | tail -1)
echo
echo "Oracle-Verdict trailer (steps=none): ${verdict:-missing}. A CLI's RSS is above its own on a" \
  "two-line log ($(mib "$cli_base") MiB; Go $(mib "$peer_base") MiB). MB per CPU s: the measured process's" \
  "user + system time (the server's from /proc), which other load on the machine disturbs less."

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
meets() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = (op == ">=") ? v >= t : v < t; print ok ? "met" : "NOT met" }'; }
echo
echo "| target | reached (wall) | reached (CPU) | |"
echo "|---|---|---|---|"
r=$(ratio "${speed[server-none]}" "${speed[peer-http-none]}") rc=$(ratio "${cpu_speed[server-none]}" "${cpu_speed[peer-http-none]}")
echo "| serve steps=none ÷ Go peer serve ≥ 4 | $r | $rc | $(meets "$r" 4 ">=") |"
r=$(ratio "${speed[cli-none]}" "${speed[peer-none]}") rc=$(ratio "${cpu_speed[cli-none]}" "${cpu_speed[peer-none]}")
echo "| check --steps none ÷ Go peer check ≥ 4 | $r | $rc | $(meets "$r" 4 ">=") |"
echo "| serve steps=none ≥ 300 MB/s | ${speed[server-none]} | ${cpu_speed[server-none]} | $(meets "${speed[server-none]}" 300 ">=") |"
echo "| serve steps=none RSS above idle < 32 MiB | ${rss[server-none]} MiB | | $(meets "${rss[server-none]}" 32 "<") |"
echo "| serve steps=all RSS above idle < 64 MiB | ${rss[server-all]} MiB | | $(meets "${rss[server-all]}" 64 "<") |"
{ grep -v '"msg":"listening"' "$work/server.log" || true; } | head -5 | sed 's/^/server log: /'

# Where the time goes: the CLI with --steps none on a 64 MiB log.
profile_log=$(log_for "$profile_gib")
echo
perf record -q -g -o "$work/perf.data" taskset -c 1 "$binary" check playback --ndjson "$profile_log" \
  --steps none >/dev/null 2>"$work/perf.err" || true  # exit 1: the log's verdict is fail
if [[ -s $work/perf.data ]] && perf report -i "$work/perf.data" --stdio >/dev/null 2>&1; then
  echo "perf, check --ndjson --steps none on $(basename "$profile_log"), self time (demangled):"
  echo '```'
  # (reports into files first: `head` closing a pipe would fail the script under pipefail)
  perf report -i "$work/perf.data" --no-children --stdio 2>/dev/null | grep -E '^ +[0-9]' >"$work/self" || true
  perf report -i "$work/perf.data" --no-children --stdio --sort dso 2>/dev/null | grep -E '^ +[0-9]' >"$work/dso" || true
  sed -n 1,15p "$work/self" | awk '{ $2 = ""; $3 = ""; $4 = ""; print }' | demangle | cut -c1-160
  echo "by object:"
  sed -n 1,4p "$work/dso"
  # Inclusive shares: the samples with such a frame anywhere on their stack.
  perf script -i "$work/perf.data" -F ip,sym 2>/dev/null |
    awk -v RS= '{ n = split($0, frames, "\n"); s = ""; for (i = 1; i <= n; i++) { split(frames[i], f, " "); s = s ";" f[2] }; print s ";" }' >"$work/stacks"
  share() { awk -v n="$(grep -cE "$1" "$work/stacks")" -v t="$(wc -l <"$work/stacks")" 'BEGIN { printf "%.1f %%", 100 * n / t }'; }
  echo "samples with, on their stack: Swift runtime metadata or key-path instantiation" \
    "$(share 'swift_getKeyPath|_swift_getGenericMetadata|swift_getTypeByMangledName|swift_getTupleTypeMetadata')," \
    "key paths alone $(share 'swift_getKeyPath'), the JSON reader $(share 'JSONReader'), retain/release" \
    "$(share 'swift_retain|swift_release'), malloc/free $(share ';(malloc|_int_free|free|_int_malloc);')"
  echo '```'
else
  # perf cannot run here (permissions): callgrind on 16 MiB instead.
  head -c $((16 << 20)) "$profile_log" | sed '$d' >"$work/small.ndjson"
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$binary" check playback --ndjson \
    "$work/small.ndjson" --steps none >/dev/null 2>"$work/callgrind.err" || true
  echo "callgrind (perf could not run: $(head -1 "$work/perf.err")), 16 MiB:"
  echo '```'
  callgrind_annotate "$work/callgrind.out" >"$work/annotate" 2>/dev/null || true
  sed -n 1,40p "$work/annotate" | cut -c1-200
  echo '```'
fi
