#!/usr/bin/env bash
# Sets up cudalab with what the tests need, builds it and runs the whole test suite with ctest, then
# the sanitizer steps (docs/ci.md): the suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/), and the worker-pool and emulator tests under
# ThreadSanitizer (build-tsan/). Arguments go to every ctest run (e.g. -R PATTERN).
# CUDALAB_SANITIZERS=0 skips the sanitizer steps (saying so). Each step prints how long it took.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
jobs="$(nproc)"
status=0
last_rc=0
timings=()

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
# step NAME COMMAND...: runs a step, records its time; a failing step fails the script at the end.
step() {
  local name="$1" start=$SECONDS rc=0
  shift
  say "$name"
  "$@" || rc=$?
  last_rc=$rc
  local took=$((SECONDS - start))
  timings+=("$(printf '%-44s %4d s  %s' "$name" "$took" "$([[ $rc == 0 ]] && echo ok || echo "FAILED (exit $rc)")")")
  say "$name: $((took / 60)) min $((took % 60)) s$([[ $rc == 0 ]] || echo ", FAILED (exit $rc)")"
  [[ $rc == 0 ]] || status=1
  return 0
}

# Say why a suite was skipped (the GPU suite on a machine without a GPU), not just that it was.
skipped_reasons() { grep -h "^SKIPPED:" "$1/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u || true; }

plain_tests() {
  local rc=0
  ctest --test-dir build --output-on-failure --parallel "$jobs" "$@" || rc=$?
  skipped_reasons build
  return $rc
}

# A sanitized build of only what its tests need: no GUI, no benchmarks.
sanitized_build() {
  local dir="$1" sanitizers="$2"
  shift 2
  if [[ ! -f "$dir/build.ninja" ]]; then
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
      -DCUDALAB_SANITIZE="$sanitizers" -DCUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" >/dev/null || return
  fi
  if ! cmake --build "$dir" --parallel "$jobs" --target "$@" > "$dir/build.log" 2>&1; then
    grep -E -B2 -A6 "error|Error" "$dir/build.log" | head -60 >&2
    echo "the sanitized build failed (full log: $dir/build.log)" >&2
    return 1
  fi
}

# Sanitizer settings: stop at the first error with a stack trace (the build passes
# -fno-sanitize-recover=all); suppressions, each with its reason, are in scripts/sanitizers/.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/scripts/sanitizers/ubsan.supp"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/scripts/sanitizers/tsan.supp"

asan_tests() {
  # Left out: the GPU suite (its binary is not built here; it skips without a GPU anyway) and the
  # whole-program tests (label `programs`): their nvcc-built, uninstrumented programs would load
  # an instrumented libcudart.so.13, which needs the ASan runtime preloaded into nvcc's programs
  # and many more minutes of nvcc on 2 cores; the runtime's threads are the worker pool the TSan
  # step checks (docs/ci.md). For the same reason the tests that check program lessons (02b, 14:
  # their learners' programs load that library) are left out by name: the program-lesson tests,
  # the course linter, `check all --format json` and the solutions' golden figures; and the
  # probes that run a learner's program on that library: `run PROG.cu` on the emulated runtime,
  # the hostile corpus's program-lesson cases, the trusted (unsandboxed) program lesson and the
  # class probes with program-lesson pairs.
  local rc=0
  ctest --test-dir build-asan --output-on-failure --parallel "$jobs" -LE programs \
    -E '^gpu$|^program lessons:|^course linter: every solution passes|^check all --format json|^corpus: the solutions. performance figures|^run PROG.cu on the emulated runtime|^hostile/program_|^hostile-sandbox/no_sandbox_refused|^grade/hostile_program_pairs|^grade/hostile_bundle_program' "$@" || rc=$?
  skipped_reasons build-asan
  return $rc
}

tsan_tests() {
  ctest --test-dir build-tsan --output-on-failure --parallel "$jobs" -L tsan "$@"
}

step "setup and build" "$root/scripts/setup.sh" --tests
step "test suite" plain_tests "$@"
if [[ "${CUDALAB_SANITIZERS:-1}" == 0 ]]; then
  say "SKIPPED: the sanitizer steps, because CUDALAB_SANITIZERS=0 was set"
else
  step "ASan+UBSan build (build-asan)" sanitized_build build-asan address,undefined cudalab cudalab_tests
  if [[ $last_rc == 0 ]]; then step "ASan+UBSan tests" asan_tests "$@"
  else say "SKIPPED: the ASan+UBSan tests, because their build failed (above)"; fi
  step "TSan build (build-tsan)" sanitized_build build-tsan thread cudalab_thread_tests
  if [[ $last_rc == 0 ]]; then step "TSan tests (worker pool, emulator)" tsan_tests "$@"
  else say "SKIPPED: the TSan tests, because their build failed (above)"; fi
fi

say "times"
printf '  %s\n' "${timings[@]}" >&2
exit "$status"
