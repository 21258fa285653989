#!/usr/bin/env bash
# Median in-process throughput of the playback rules, release build, one thread.
# Usage: bench/rules/run.sh [ROUNDS]   (pin it with: taskset -c 0 bench/rules/run.sh)
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product rules-bench >&2
exec "$(swift build -c release --show-bin-path)/rules-bench" "$@"
