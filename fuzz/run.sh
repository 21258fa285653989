#!/usr/bin/env bash
# Builds a fuzz target and runs it for a given time, starting from its committed
# seed corpus (fuzz/corpus/TARGET) and its dictionary (fuzz/dict/TARGET.dict).
# Exits non-zero on any crash, leak, timeout or out-of-memory input.
#
# Usage: fuzz/run.sh TARGET [SECONDS]        TARGET: http-decoder | json-endpoints | info-plist | model-answers
# Env:   FUZZ_WORK  scratch directory, kept between runs so a later run resumes
#                   (default ${TMPDIR:-/tmp}/device-oracle-fuzz): new corpus entries
#                   go to FUZZ_WORK/TARGET/corpus, failing inputs to FUZZ_WORK/TARGET/artifacts
#        FUZZ_ARGS  extra libFuzzer flags, e.g. "-jobs=4 -workers=2" or "-max_len=65536"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${1:?usage: fuzz/run.sh TARGET [SECONDS]}
seconds=${2:-60}
work=${FUZZ_WORK:-${TMPDIR:-/tmp}/device-oracle-fuzz}/$target

binary=$("$here/build.sh" "$target")
mkdir -p "$work/corpus" "$work/artifacts"
log=$work/fuzz.log

# -timeout: one input taking 10 s is a hang (the decoders are linear); -rss_limit_mb
# catches unbounded growth; leaks are checked after every input that allocated.
# Corpus directories: new entries go to the first; the seeds are only read.
echo "fuzz $target: ${seconds} s, log $log" >&2
set +e
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
  -dict="$here/dict/$target.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  ${FUZZ_ARGS:-} "$work/corpus" "$here/corpus/$target" >"$log" 2>&1
status=$?
set -e

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
corpus=$(find "$work/corpus" -type f | wc -l)
if [[ $status -ne 0 ]]; then
  tail -n 60 "$log" >&2
  echo "fuzz $target: FAILED (exit $status) after ${runs:-?} runs; inputs in $work/artifacts" >&2
  exit "$status"
fi
echo "fuzz $target: ok, ${runs:-?} runs in ${seconds} s, corpus $corpus entries, peak RSS ${rss:-?} MB" >&2
