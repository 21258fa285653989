#!/bin/bash
# Times each input whose cost once grew faster than its size (docs/operations.md, "Per-request costs")
# at n and 2n with the release build: a linear cost about doubles, a quadratic one
# quadruples. Bodies from bench/attacks.py; `check` for one request, a server on
# PORT for /check and coverage. Usage: bench/quadratic.sh [N] (default 75000).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-75000}
port=${PORT:-18790}
bin=${BIN:-.build/release/device-oracle}
[ -x "$bin" ] || swift build -c release >/dev/null
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
for size in "$n" $((2 * n)); do python3 bench/attacks.py "$work/$size" "$size"; done

seconds() { local start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; echo "$(date +%s.%N) - $start" | bc; }
post() { curl -s -o /dev/null -w '%{time_total}' -X POST -H 'Content-Type: application/json' --data-binary "@$2" "http://127.0.0.1:$port$1"; }

"$bin" serve --port "$port" --log-level error >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done

printf '%-34s %12s %12s %7s\n' input "n=$n (s)" "2n (s)" ratio
row() {
    local name=$1 a=$2 b=$3
    printf '%-34s %12.3f %12.3f %7.2f\n' "$name" "$a" "$b" "$(echo "$b / ($a + 0.001)" | bc -l)"
}
for entry in playback:sessions playback:object-members playback:unknown-members playback:problems haptics:pattern; do
    ruleset=${entry%%:*} body=${entry#*:}
    row "check $ruleset $body" "$(seconds "$bin" check "$ruleset" "$work/$n/$body.json")" \
        "$(seconds "$bin" check "$ruleset" "$work/$((2 * n))/$body.json")"
done
for entry in /check:batch-refused /check:batch-duplicates /rulesets/playback/coverage:coverage-refused; do
    path=${entry%%:*} body=${entry#*:}
    row "POST $path $body" "$(post "$path" "$work/$n/$body.json")" "$(post "$path" "$work/$((2 * n))/$body.json")"
done
# A body arrives in 64 KiB reads: each is appended in place (a copy of the body read so
# far per read made receiving quadratic). 3 and 6 MB, whatever N, to stay under the
# 8 MiB body limit; not JSON, so the answer (400) costs nothing beside the receiving.
for size in 3000000 6000000; do head -c "$size" /dev/zero | tr '\0' x >"$work/unparsable-$size.json"; done
row "POST /playback/apply 3 MB, 6 MB unparsable" "$(post /playback/apply "$work/unparsable-3000000.json")" \
    "$(post /playback/apply "$work/unparsable-6000000.json")"
