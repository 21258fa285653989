#!/usr/bin/env bash
# What counting for GET /metrics costs: `--metrics off` against `on`, both without access
# lines (LOG_LEVEL=warn, like the peers, so the records are built for the metrics alone).
# The target is under 2 % of c=64 req/s. Two measures, in one run:
#  1. instructions per request under callgrind (bench/setting-instructions.sh): steady
#     whatever else the machine runs, but user space only (the kernel's share of a
#     request, about 60 % here, is the same on both sides, so the cost in CPU is smaller);
#  2. req/s and server CPU per request in alternating pairs (bench/setting-cost.sh): the
#     cost as users see it, whose single pairs swing by ±15 % on a shared machine, so
#     only the median of many pairs means anything.
# Usage: bench/metrics-cost.sh [BINARY] [ROUNDS] [SECONDS]   (defaults: release build, 10, 4)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=${1:-$here/../.build/release/device-oracle}
export LOG_LEVEL=warn
echo "## instructions per request (callgrind, c=64)"
"$here/setting-instructions.sh" "$binary" METRICS off on
echo "## req/s and CPU per request, alternating pairs (c=64)"
"$here/setting-cost.sh" "$binary" METRICS off on "${2:-10}" "${3:-4}"
