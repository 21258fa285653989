#!/usr/bin/env bash
# Instructions per NDJSON line of `check playback --ndjson LOG --steps none` (callgrind,
# steady on a busy machine): the shared Go peer's event mix (bench/playback_plain_log.py),
# 200,000 lines minus 100,000 lines, divided by 100,000, so the startup's table building
# cancels out. Each BINARY in turn, in one run; with KEEP=DIR the two callgrind outputs
# of each stay in DIR (BINARY's basename and its directory's, .100k and .200k) for
# callgrind_annotate.
# Usage: bench/ndjson-line-instructions.sh BINARY [BINARY...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -gt 0 ]] || { echo "usage: ndjson-line-instructions.sh BINARY [BINARY...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for blocks in 1 2; do python3 "$here/playback_plain_log.py" "$work/$blocks.ndjson" --blocks "$blocks"; done
# instructions BINARY BLOCKS OUT: the run's total Ir.
instructions() {
  valgrind --tool=callgrind --compress-strings=no --callgrind-out-file="$3" "$1" check playback --ndjson \
    "$work/$2.ndjson" --steps none >/dev/null 2>"$3.err" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$3.err"
}
for binary in "$@"; do
  name=$(basename "$(dirname "$(realpath "$binary")")")-$(basename "$binary")
  out=${KEEP:-$work}/$name
  one=$(instructions "$binary" 1 "$out.100k") two=$(instructions "$binary" 2 "$out.200k")
  echo "$binary: $(( (two - one) / 100000 )) instructions a line ($one for 100k lines, $two for 200k)"
done
