#!/usr/bin/env bash
# scripts/fuzz.sh BUILD_DIR SECONDS TARGET...: runs each libFuzzer target for SECONDS from a
# copy of its seed corpus (tests/fuzz/corpus/<target>; the repository copy is never changed).
# A crash fails the run (the targets already running finish) and leaves the reproducer in
# build/fuzz-artifacts/<target>/; turn it into a regression test before fixing it. Prints
# the executions each target ran. Targets run FUZZ_JOBS at a time (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 seconds=$2
shift 2
export ASAN_OPTIONS=detect_container_overflow=0:detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
jobs=${FUZZ_JOBS:-$(nproc)}
run_one() {
  local target=$1
  local work="$build/fuzz-work/$target"
  local artifacts="build/fuzz-artifacts/$target"
  rm -rf "$work" && mkdir -p "$work" "$artifacts"
  [ -d "tests/fuzz/corpus/$target" ] && cp -r "tests/fuzz/corpus/$target/." "$work/"
  local log="$build/fuzz-work/$target.log"
  if ! "$build/src/floe/fuzz_$target" "$work" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      >"$log" 2>&1; then
    tail -60 "$log"
    echo "fuzz: $target failed; reproducer in $artifacts/"
    return 1
  fi
  local runs cov
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "fuzz: $target ran $runs inputs in ${seconds}s ($cov)"
}
mkdir -p "$build/fuzz-work"
failed=0
running=0
for target in "$@"; do
  if (( running >= jobs )); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_one "$target" &
  running=$((running + 1))
done
while (( running > 0 )); do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
