#!/usr/bin/env bash
# What counting for GET /metrics costs: `--metrics off` against `on`, both without access
# lines (LOG_LEVEL=warn, like the peers, so the records are built for the metrics alone),
# in alternating pairs (bench/setting-cost.sh). The target is under 2 % of c=64 req/s.
# Usage: bench/metrics-cost.sh [BINARY] [ROUNDS] [SECONDS]   (defaults: release build, 5, 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LOG_LEVEL=warn exec "$here/setting-cost.sh" "${1:-$here/../.build/release/device-oracle}" METRICS off on "${2:-5}" "${3:-5}"
