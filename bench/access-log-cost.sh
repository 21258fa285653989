#!/usr/bin/env bash
# What the default access log costs: `--log-level warn` (no access lines, like the
# peers) against `info` (one line per request), in alternating pairs (bench/setting-cost.sh).
# Usage: bench/access-log-cost.sh [BINARY] [ROUNDS] [SECONDS]   (defaults: release build, 5, 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/setting-cost.sh" "${1:-$here/../.build/release/device-oracle}" LOG_LEVEL warn info "${2:-5}" "${3:-5}"
