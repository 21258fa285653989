#!/usr/bin/env bash
# DeviceOracle beside the shared peer benchmarks (../shared/bench: Go net/http, Python,
# nginx's fixed 200 as the protocol limit), built as the container ships it (release,
# static Swift runtime). Prints markdown and writes bench/RESULTS.md.
#
# Usage: bench/run.sh            full run (about 15 minutes; needs root once for setup.sh)
#        bench/run.sh --smoke    a few seconds: the rules benchmark only (what .ci/run runs)
# Env:   SHARED_BENCH (default ../shared/bench beside the clone), WORK (default
#        /tmp/device-oracle-peer-bench, a writable copy of it), SECS (wrk seconds, default 10).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

if [[ ${1:-} == --smoke ]]; then
  "$here/rules/run.sh" 3
  exit 0
fi

shared=${SHARED_BENCH:-$repo/../shared/bench}
work=${WORK:-/tmp/device-oracle-peer-bench}
secs=${SECS:-10}
[[ -d $shared ]] || { echo "no shared harness at $shared" >&2; exit 2; }

echo "== build (release, static Swift runtime)" >&2
(cd "$repo" && swift build -c release --static-swift-stdlib --product device-oracle >&2)
binary=$(cd "$repo" && swift build -c release --static-swift-stdlib --show-bin-path)/device-oracle

if [[ ! -x $work/.venv/bin/python ]]; then
  rm -rf "$work" && cp -r "$shared" "$work"
  "$work/setup.sh" >&2
fi
bodies=$work/oracle-bodies
python3 "$here/bodies/generate.py" "$bodies" >&2

results=$(mktemp -d)
oracle="oracle=$binary serve --port 8091 --log-level warn"
echo "== playback against the peers, server on CPU 0" >&2
(cd "$work" && SECS=$secs SERVER_CPUS=0 ./compare.sh --only 'nginx-w1|^go$|oracle' --extra "$oracle" >"$results/pinned.md")
echo "== playback against the peers, unpinned" >&2
(cd "$work" && SECS=$secs ./compare.sh --only 'nginx-w1|^go$|oracle' --extra "$oracle" >"$results/unpinned.md")
echo "== the 100k-event log against Go in alternating pairs (servers on CPU 0)" >&2
"$here/large-log-pairs.sh" "$binary" "$work" 5 10 >"$results/large-pairs.txt"
echo "== the default access log's cost (server on CPU 0): warn and info in alternating pairs" >&2
"$here/access-log-cost.sh" "$binary" 5 5 >"$results/access-log.txt"

echo "== idle memory, and 10,000 idle keep-alive connections" >&2
source "$repo/.ci/start-server.sh"
source "$here/clients.sh"
log=$(mktemp)
start_server "$log" "$binary" --log-level warn
idle=$(python3 "$here/idle_connections.py" "$port" "$server_pid" 10000)
kill -TERM "$server_pid"; wait "$server_pid" || true; rm -f "$log"

echo "== every ruleset: small body (wrk, c=64) and large body (curl), server on CPU 0" >&2
rulesets_table=$results/rulesets.md
{
  echo "| ruleset | small body req/s c=64 (p50 / p99 ms) | large body | large s/req | large MB/s | peak RSS MiB |"
  echo "|---|---|---|---|---|---|"
} >"$rulesets_table"
for entry in "${rulesets[@]}"; do
  name=${entry%%:*} path=${entry#*:}
  log=$(mktemp)
  SERVER_CPUS=0 start_server "$log" "$binary" --log-level warn
  small=$(cd "$work" && CONNS=64 BODY=$bodies/$name-small.json ./http-bench.sh "http://127.0.0.1:$port$path" "$secs" | tail -1)
  large=$(cd "$work" && BODY=$bodies/$name-large.json ./large-bench.sh "http://127.0.0.1:$port$path" 10)
  rss=$(awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$server_pid/status")
  kill -TERM "$server_pid"; wait "$server_pid" || true; rm -f "$log"
  read -r _ rps p50 p99 _ <<<"$small"
  seconds=$(grep -oE 'median_s=[0-9.]+' <<<"$large" | cut -d= -f2)
  mbs=$(grep -oE 'req_MB/s=[0-9.]+' <<<"$large" | cut -d= -f2)
  size=$(stat -c %s "$bodies/$name-large.json")
  echo "| $name | $rps ($p50 / $p99) | $((size / 1000)) kB | $seconds | $mbs | $rss |" >>"$rulesets_table"
done

echo "== the rules in process" >&2
rules=$("$here/rules/run.sh" 2>/dev/null)

{
  echo "# Benchmark results"
  echo
  echo "Run by \`bench/run.sh\` on $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)),"
  echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); a shared machine, so every comparison is a ratio within one run."
  echo "DeviceOracle: release build with the static Swift runtime (as the container ships it), \`--log-level warn\` like the peers (which log nothing per request) unless said otherwise."
  echo
  echo "## playback/1 against the peers, server pinned to CPU 0 (wrk on CPU 1)"
  echo
  tail -n +1 "$results/pinned.md"
  echo
  echo "## playback/1 against the peers, unpinned"
  echo
  tail -n +1 "$results/unpinned.md"
  echo
  echo "## The 100k-event log against Go in alternating pairs, servers pinned to CPU 0"
  echo
  echo "\`bench/large-log-pairs.sh\`: Go's median of 10 sequential POSTs, then DeviceOracle's, five times"
  echo "(Go's time alone swings by half between runs here); peak RSS of each server over all of them,"
  echo "and DeviceOracle's RSS after 1.5 s without requests (the heap kept for large requests is given back)."
  echo
  echo '```'
  cat "$results/large-pairs.txt"
  echo '```'
  echo
  echo "## The default access log (\`--log-level info\`) against none, server pinned to CPU 0"
  echo
  echo "\`bench/access-log-cost.sh\`: five alternating pairs of 5 s wrk runs at c=64, each side measured by"
  echo "\`bench/cpu-per-request.sh\` (req/s, and the server's CPU time per request from /proc)."
  echo
  echo '```'
  cat "$results/access-log.txt"
  echo '```'
  echo
  echo "## Idle memory (static build)"
  echo
  echo "\`bench/idle_connections.py\`, VmRSS in KiB: $idle"
  echo
  echo "## Every ruleset, server pinned to CPU 0"
  echo
  cat "$rulesets_table"
  echo
  echo "## The rules in process (\`bench/rules/run.sh\`)"
  echo
  echo "$rules"
} | tee "$here/RESULTS.md"
rm -rf "$results"
