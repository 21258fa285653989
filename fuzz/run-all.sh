#!/usr/bin/env bash
# Runs every fuzz target for the given time each (default 60 s), one after the other;
# fails when any of them fails. Usage: fuzz/run-all.sh [SECONDS]  (env as fuzz/run.sh)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
failed=0
for target in http-decoder json-endpoints info-plist service-bodies; do
  "$here/run.sh" "$target" "${1:-60}" || failed=1
done
exit "$failed"
