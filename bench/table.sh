#!/usr/bin/env bash
# One table of every ruleset in every form against the Go peer, in one run (issue 45,
# acceptance 5): for each ruleset (from the binary's registry) and form — the JSON body,
# the NDJSON form with steps=none, the unified-log capture (from=oslog, 1 record in 20
# the app's) with steps=none — the large body's MB/s (median of N POSTs, curl on CPU 1)
# and the small body's req/s (wrk, c=64, SECS s, on CPU 1), each with its ratio to the
# Go peer (../shared/bench/peers/go) measured in the same run. Servers pinned to CPU 0.
# The peer implements playback only, in two forms (JSON with steps; NDJSON, summary
# only): every ruleset's row is set against the peer's playback in the same form (the
# capture against the peer's NDJSON of the same elements), which the table marks.
# The bodies are bench/bodies/generate.py's, in their other forms by bench/bodies/forms.py.
# POSTs alternate server by server and form by form, so load from a neighbour falls on all.
# Usage: bench/table.sh BINARY [N] [SECS]   (defaults 7 and 5; a release build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
binary=$(realpath "${1:?usage: table.sh BINARY [N] [SECS]}")
n=${2:-7} secs=${3:-5}
peer_src=${PEER_SRC:-$repo/../shared/bench/peers/go}
source "$repo/.ci/start-server.sh"
source "$here/clients.sh"
command -v go >/dev/null || { apt-get update -qq && apt-get install -y -qq golang >/dev/null; }
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
python3 "$here/bodies/generate.py" "$work" >/dev/null
for entry in "${rulesets[@]}"; do
  name=${entry%%:*}
  for size in small large; do python3 "$here/bodies/forms.py" "$work/$name-$size.json" "$work/$name-$size"; done
done
cp -r "$peer_src" "$work/go"
(cd "$work/go" && GOFLAGS=-mod=mod go build -o "$work/go-peer" .)

SERVER_CPUS=0 start_server "$work/oracle.log" "$binary" --log-level warn
pids+=("$server_pid") oracle=$port
go_port=$((20000 + RANDOM % 20000))
GOMAXPROCS=2 taskset -c 0 "$work/go-peer" -addr "127.0.0.1:$go_port" >"$work/go.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 200); do curl -s -o /dev/null "http://127.0.0.1:$go_port/" && break; sleep 0.05; done
curl -s -o /dev/null "http://127.0.0.1:$go_port/" || { echo "table.sh: the Go peer did not start:" >&2; cat "$work/go.log" >&2; exit 1; }

forms=(json ndjson oslog)
file_of() { case $2 in json) echo "$work/$1.json" ;; ndjson) echo "$work/$1.ndjson" ;; oslog) echo "$work/$1.oslog.ndjson" ;; esac; }
type_of() { [[ $1 == json ]] && echo application/json || echo application/x-ndjson; }
query_of() { case $1 in json) ;; ndjson) echo '?steps=none' ;; oslog) echo '?from=oslog&steps=none' ;; esac; }
# seconds PORT PATH FILE TYPE: one POST, curl on CPU 1; fails unless the answer is a 200
seconds() {
  local out
  out=$(taskset -c 1 curl -s -o /dev/null -w '%{http_code} %{time_total}' -X POST -T "$3" -H 'Expect:' -H "Content-Type: $4" "http://127.0.0.1:$1$2")
  [[ ${out%% *} == 200 ]] || { echo "table.sh: POST $2 on port $1 answered ${out%% *}" >&2; exit 1; }
  echo "${out#* }"
}
rps() { CONTENT_TYPE=$4 small "$1" "$2" "$3" "$secs"; }  # PORT PATH FILE TYPE: req/s at c=64

declare -A times=() peer_times=() large=() peer_large=() reqs=() peer_reqs=()
for _ in $(seq 0 "$n"); do  # the first pass warms up and is not kept
  for form in "${forms[@]}"; do
    for entry in "${rulesets[@]}"; do
      name=${entry%%:*} path=${entry#*:}
      t=$(seconds "$oracle" "$path$(query_of "$form")" "$(file_of "$name-large" "$form")" "$(type_of "$form")")
      [[ ${warm:-} ]] && times[$name $form]+="$t"$'\n'
    done
    [[ $form == oslog ]] && continue
    t=$(seconds "$go_port" /playback/apply "$(file_of playback-large "$form")" "$(type_of "$form")")
    [[ ${warm:-} ]] && peer_times[$form]+="$t"$'\n'
  done
  warm=1
done
for form in json ndjson; do
  peer_large[$form]=$(mbps "$(stat -c %s "$(file_of playback-large "$form")")" "${peer_times[$form]}")
  peer_reqs[$form]=$(rps "$go_port" /playback/apply "$(file_of playback-small "$form")" "$(type_of "$form")")
done
peer_large[oslog]=${peer_large[ndjson]} peer_reqs[oslog]=${peer_reqs[ndjson]}
for form in "${forms[@]}"; do
  for entry in "${rulesets[@]}"; do
    name=${entry%%:*} path=${entry#*:}
    large[$name $form]=$(mbps "$(stat -c %s "$(file_of "$name-large" "$form")")" "${times[$name $form]}")
    reqs[$name $form]=$(rps "$oracle" "$path$(query_of "$form")" "$(file_of "$name-small" "$form")" "$(type_of "$form")")
  done
done

printf '| ruleset | form | large MB/s | peer MB/s | ratio | small req/s (c=64) | peer req/s | ratio |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for entry in "${rulesets[@]}"; do
  name=${entry%%:*}
  for form in "${forms[@]}"; do
    mark=; [[ $name == playback ]] || mark='†'
    [[ $form == oslog ]] && mark+='‡'
    printf '| %s | %s | %s | %s | %s%s | %s | %s | %s%s |\n' "$name" "$form" \
      "${large[$name $form]}" "${peer_large[$form]}" "$(ratio "${large[$name $form]}" "${peer_large[$form]}")" "$mark" \
      "${reqs[$name $form]}" "${peer_reqs[$form]}" "$(ratio "${reqs[$name $form]}" "${peer_reqs[$form]}")" "$mark"
  done
done
echo
echo "† against the peer's playback in the same form (the peer implements playback only)."
echo "‡ a capture's bytes against the peer's NDJSON of the same elements: 20 records for each element."
echo "large bodies: $(for entry in "${rulesets[@]}"; do name=${entry%%:*}; printf '%s %s B; ' "$name" "$(stat -c %s "$work/$name-large.json")"; done)N=$n, wrk ${secs}s"
