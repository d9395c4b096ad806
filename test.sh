#!/usr/bin/env bash
# Sets up cudalab with what the tests need, builds it and runs the whole test suite with ctest, then
# the sanitizer steps (docs/ci.md): the suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer (build-asan/), and the worker-pool and emulator tests under
# ThreadSanitizer (build-tsan/). Arguments go to every ctest run (e.g. -R PATTERN).
# CUDALAB_SANITIZERS=0 skips the sanitizer steps (saying so). Each step prints how long it took.
# Which tests each step runs is a label (-L) given by tests/tiers.cmake, never a list here.
# Warnings fail the builds (CUDALAB_WERROR); CUDALAB_WERROR=0 turns that off.
#
#   ./test.sh quick [ctest arguments]   the edit loop: builds what the tests need (after a first
#                                       full ./test.sh or scripts/setup.sh --tests) and runs the
#                                       tests labelled `quick`, a couple of minutes on 2 cores
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
jobs="$(nproc)"
status=0
last_rc=0
werror=ON
[[ "${CUDALAB_WERROR:-1}" == 0 ]] && werror=OFF
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
      -DCUDALAB_SANITIZE="$sanitizers" -DCUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
      -DCUDALAB_WERROR="$werror" >/dev/null || return
  elif ! grep -qx "CUDALAB_WERROR:BOOL=$werror" "$dir/CMakeCache.txt"; then
    cmake -S "$root" -B "$dir" -DCUDALAB_WERROR="$werror" >/dev/null || return
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
  # The tests labelled `asan`: all but those tests/tiers.cmake leaves out, each group with its reason
  # (the GPU suite, whose binary is not built here; the tests that run nvcc-built programs on the
  # emulated runtime, which would load an instrumented libcudart.so.13).
  local rc=0
  ctest --test-dir build-asan --output-on-failure --parallel "$jobs" -L '^asan$' "$@" || rc=$?
  skipped_reasons build-asan
  return $rc
}

tsan_tests() {
  ctest --test-dir build-tsan --output-on-failure --parallel "$jobs" -L '^tsan$' "$@"
}

# ./test.sh quick: the build of what the quick tests run, then those tests; no sanitizer steps.
quick_build() {
  [[ -f build/build.ninja ]] || { "$root/scripts/setup.sh" --tests; return; }
  local targets=(cudalab_tests)  # with what it depends on: the CLI, the runtimes, the fuzz replays
  [[ -f build/cudalab-gui || -d build/apps/gui ]] && targets+=(cudalab-gui cudalab_gui_png_check)
  if ! cmake --build build --parallel "$jobs" --target "${targets[@]}" > build/build.log 2>&1; then
    grep -E -B2 -A6 "error|Error" build/build.log | head -60 >&2
    echo "the build failed (full log: build/build.log)" >&2
    return 1
  fi
}
if [[ "${1:-}" == quick ]]; then
  shift
  step "build (what the quick tests need)" quick_build
  if [[ $last_rc == 0 ]]; then
    step "quick tests (label quick)" ctest --test-dir build --output-on-failure --parallel "$jobs" -L '^quick$' "$@"
  else say "SKIPPED: the quick tests, because the build failed (above)"; fi
  say "times"
  printf '  %s\n' "${timings[@]}" >&2
  exit "$status"
fi

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
