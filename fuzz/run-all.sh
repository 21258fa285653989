#!/usr/bin/env bash
# Builds every fuzz target, then runs each for the given time (default 60 s), as many
# at a time as FUZZ_PARALLEL says (default: the number of CPUs, so two on a 2-core
# machine: each target still gets its full time, on a core of its own, in half the wall
# time). Fails when any of them fails. Each target's output goes to a file of its own,
# printed whole when it ends, so two targets' lines never interleave; a failing one
# prints the end of its libFuzzer log, as fuzz/run.sh does.
# Usage: fuzz/run-all.sh [SECONDS]  (env as fuzz/run.sh; FUZZ_PARALLEL=1 runs them one
# after the other; with FUZZ_ARGS="-jobs=N -workers=N" keep FUZZ_PARALLEL × N ≤ cores)
#        fuzz/run-all.sh --build-only  (builds every target and stops: CI builds them in
#        the background, then runs them here with nothing left to build)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_only=0
[[ ${1:-} == --build-only ]] && { build_only=1; shift; }
seconds=${1:-60}
parallel=${FUZZ_PARALLEL:-$(nproc)}
outputs=$(mktemp -d)
failed=()

# Each job runs in its own process group (set -m), so an interrupt stops the fuzzers too.
set -m
stop() { for pid in $(jobs -p); do kill -TERM -- "-$pid" 2>/dev/null; done; }
trap 'stop; rm -rf "$outputs"' EXIT
trap 'exit 130' INT TERM

# each PHASE TARGET...: runs `PHASE TARGET` for every target, $parallel at a time; prints
# each one's output when it ends, and adds the ones that fail to $failed.
each() {
  local phase=$1 target running=() still
  shift
  local pending=("$@")
  while (( ${#pending[@]} + ${#running[@]} )); do
    while (( ${#pending[@]} && ${#running[@]} < parallel )); do
      target=${pending[0]}
      pending=("${pending[@]:1}")
      ( "$phase" "$target" >"$outputs/$target.out" 2>&1; echo $? >"$outputs/$target.status" ) &
      running+=("$target")
    done
    wait -n
    still=()
    for target in "${running[@]}"; do
      if [[ -s $outputs/$target.status ]]; then
        cat "$outputs/$target.out" >&2
        [[ $(cat "$outputs/$target.status") == 0 ]] || failed+=("$target")
        rm -f "$outputs/$target.status"
      else
        still+=("$target")
      fi
    done
    running=("${still[@]}")
  done
  wait
}

build() {
  local status=0
  "$here/build.sh" "$1" >/dev/null || status=$?
  (( status == 0 )) || echo "fuzz $1: its build FAILED (exit $status)"
  return "$status"
}
run() { "$here/run.sh" "$1" "$seconds"; }

targets=(http-decoder json-endpoints info-plist model-answers)
# Built first, so that fuzzing never shares the cores with a compiler; the targets that
# need the same modules build them once (fuzz/build.sh).
each build "${targets[@]}"
built=()
for target in "${targets[@]}"; do
  [[ " ${failed[*]} " == *" $target "* ]] || built+=("$target")
done
(( ${#built[@]} && ! build_only )) && each run "${built[@]}"

if (( ${#failed[@]} )); then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
