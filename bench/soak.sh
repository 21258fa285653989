#!/usr/bin/env bash
# Soak (issue 7): the release server on loopback under mixed valid load at about
# half its measured capacity, plus malformed requests, slow clients that never
# finish a head or a body, and connection churn, for a bounded time. Stops by itself.
#
# Usage: bench/soak.sh [--minutes N] [--rate R]
#   --minutes  total load time, warm-up included (default 10; warm-up is a tenth, 5-60 s)
#   --rate     valid requests per second; default: half of a 5-second wrk run at full speed
#
# Prints RSS and open descriptors after warm-up and at the end, and the error
# counts. Fails when RSS grew 5 % or more after warm-up, when the descriptors are
# not back to their idle baseline once the load stops, on any 5xx (but the 501 and
# 505 the spec gives an unknown method or version), on any valid request that did
# not get a 200, on a malformed or slow request not answered as the spec says, or
# when the server does not exit 0 on SIGTERM.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

minutes=10 rate=
while [[ $# -gt 0 ]]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    *) echo "usage: bench/soak.sh [--minutes N] [--rate R]" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "soak: wrk is not installed" >&2; exit 2; }
log() { printf '[soak %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

log "release build"
(cd "$repo" && swift build -c release --product device-oracle >&2)
binary=$(cd "$repo" && swift build -c release --show-bin-path)/device-oracle

work=$(mktemp -d)
server_pid= wrk_pid= clients_pid=
cleanup() {
  for pid in $wrk_pid $clients_pid $server_pid; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Small valid bodies of every ruleset: the benchmark's, plus raw notifications and
# observed checks (a failing verdict is still a 200).
python3 "$here/bodies/generate.py" "$work/generated" >/dev/null
mkdir "$work/bodies"
for name in playback haptics refresh audio-session; do cp "$work/generated/$name-small.json" "$work/bodies/"; done
cat >"$work/bodies/playback-raw.json" <<'EOF'
{"initial":{"isPlaying":true},"events":[{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":1}},{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":1},"observed":{"isPlaying":false}},{"session":"b","type":"userPlayed","at":5}]}
EOF
cat >"$work/bodies/audio-session-raw.json" <<'EOF'
{"events":[{"type":"launched"},{"notification":"AVAudioSessionMediaServicesWereResetNotification"},{"type":"playSound","name":"coin","observed":{"soundPlayed":true}}],"observedFinal":{"active":true}}
EOF
cat >"$work/bodies/index" <<'EOF'
/playback/apply playback-small.json
/haptics/contract haptics-small.json
/refresh/run refresh-small.json
/audio-session/run audio-session-small.json
/playback/apply playback-raw.json
/audio-session/run audio-session-raw.json
EOF
rm -rf "$work/generated"

# Short timeouts, so the slow clients are answered many times within the run.
source "$repo/.ci/start-server.sh"
start_server "$work/server.out" "$binary" --log-level warn --header-timeout 2 --body-timeout 2 --idle-timeout 5
url=http://127.0.0.1:$port
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status"; }
fds() { find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }
idle_fds=$(fds)
log "server pid $server_pid on port $port; idle: RSS $(rss_kb) kB, $idle_fds descriptors"

export SOAK_BODIES=$work/bodies
if [[ -z $rate ]]; then
  capacity=$(SOAK_DELAY_MS=0 wrk -t2 -c32 -d5s --timeout 10s -s "$here/soak.lua" "$url" \
    | awk '/^Requests\/sec:/ {print int($2)}')
  rate=$((capacity / 2))
  log "capacity ${capacity} req/s (wrk, 2 threads, 32 connections, 5 s); soak rate ${rate} req/s"
fi
# wrk has no rate option: each connection waits SOAK_DELAY_MS after every answer,
# so the rate is connections × 1000 / (delay + latency); 2 ms is allowed for the
# latency at half capacity.
delay_ms=10
connections=$(((rate * (delay_ms + 2) + 999) / 1000))
if ((connections > 512)); then
  connections=512
  delay_ms=$((512000 / rate > 0 ? 512000 / rate : 1))
fi
((connections >= 1)) || connections=1

total=$((minutes * 60))
warmup=$((total / 10))
((warmup < 5)) && warmup=5
((warmup > 60)) && warmup=60
((total > warmup + 5)) || { echo "soak: --minutes too small" >&2; exit 2; }
log "load for ${total} s (warm-up ${warmup} s): wrk ${connections} connections × 1 request per ${delay_ms} ms;" \
  "malformed 20/s, 8 slow clients, churn 40/s"

SOAK_DELAY_MS=$delay_ms wrk -t2 -c"$connections" -d"${total}s" --timeout 10s -s "$here/soak.lua" "$url" \
  >"$work/wrk.out" 2>&1 &
wrk_pid=$!
python3 "$here/soak_clients.py" --port "$port" --seconds "$total" --body "$work/bodies/playback-small.json" \
  >"$work/clients.out" 2>"$work/clients.err" &
clients_pid=$!

sleep "$warmup"
rss_start=$(rss_kb) fds_start=$(fds)
log "after warm-up: RSS ${rss_start} kB, ${fds_start} descriptors"
elapsed=$warmup rss_peak=$rss_start
while ((elapsed < total - 3)); do
  step=$((total - 3 - elapsed < 30 ? total - 3 - elapsed : 30))
  sleep "$step"
  elapsed=$((elapsed + step))
  rss=$(rss_kb)
  ((rss > rss_peak)) && rss_peak=$rss
  log "t=${elapsed}s RSS ${rss} kB, $(fds) descriptors"
done
rss_end=$(rss_kb) fds_end_load=$(fds)

wait "$wrk_pid" || true
wrk_pid=
wait "$clients_pid" || true
clients_pid=
# Once the load stops every connection closes (the slow ones within the timeouts).
fds_after=$(fds)
for _ in $(seq 1 40); do
  ((fds_after == idle_fds)) && break
  sleep 0.5
  fds_after=$(fds)
done
rss_after=$(rss_kb)

kill -TERM "$server_pid"
exit_code=0
wait "$server_pid" || exit_code=$?
server_pid=

soak_line=$(grep '^SOAK ' "$work/wrk.out" || true)
[[ -n $soak_line ]] || { cat "$work/wrk.out" >&2; echo "soak: wrk gave no summary" >&2; exit 1; }
value() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<" ${soak_line#SOAK }"; }
clients=$(cat "$work/clients.out")
[[ -n $clients ]] || { cat "$work/clients.err" >&2; echo "soak: the hostile clients gave no summary" >&2; exit 1; }
client_value() { python3 -c "import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$clients" "$1"; }

valid_requests=$(value requests)
socket_errors=$(($(value connect) + $(value read) + $(value write) + $(value timeout)))
failed_valid=$(($(value not_ok) + socket_errors + $(client_value failed_valid)))
server_errors=$(($(value server_errors) + $(client_value server_errors)))
growth=$(awk -v a="$rss_start" -v b="$rss_end" 'BEGIN {printf "%.1f", (b - a) * 100 / a}')

cat <<EOF

== soak summary ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))
duration          ${total} s load (warm-up ${warmup} s)
valid load        ${valid_requests} requests, $((valid_requests / total)) req/s (target ${rate}), p99 $(value p99_ms) ms
hostile clients   ${clients}
RSS               ${rss_start} kB after warm-up, ${rss_end} kB at the end (${growth} %), peak ${rss_peak} kB, ${rss_after} kB idle after
descriptors       ${idle_fds} idle before, ${fds_start} after warm-up, ${fds_end_load} at the end of the load, ${fds_after} after it stopped
5xx               ${server_errors} (besides $(client_value specified_5xx) answers 501/505, the spec's for an unknown method or version)
failed valid      ${failed_valid} (not 200: $(value not_ok), socket errors: ${socket_errors}, churn: $(client_value failed_valid))
SIGTERM           exit ${exit_code}
EOF

failures=()
awk -v g="$growth" 'BEGIN {exit !(g >= 5)}' && failures+=("RSS grew ${growth} % after warm-up")
((fds_after == idle_fds)) || failures+=("descriptors ${fds_after}, not back to ${idle_fds}")
((server_errors == 0)) || failures+=("${server_errors} answers were 5xx")
((failed_valid == 0)) || failures+=("${failed_valid} valid requests failed")
[[ $(client_value unexpected) == "{}" ]] || failures+=("unexpected answers to hostile clients: $(client_value unexpected)")
((exit_code == 0)) || failures+=("the server exited ${exit_code} on SIGTERM")
if ((${#failures[@]} > 0)); then
  printf 'FAIL: %s\n' "${failures[@]}"
  exit 1
fi
echo "PASS"
