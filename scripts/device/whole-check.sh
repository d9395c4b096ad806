#!/usr/bin/env bash
# On the GPU machine: one pass over everything that needs a real GPU after the whole-program
# work. Builds cudalab there (against .devdeps from scripts/device/prepare.sh), then
#   1. every lesson's solution and exercise on the GPU (solutions pass, exercises fail);
#   2. lesson 04's kernels timed (the redesigned lesson's fix must be the fastest);
#   3. every program of tests/programs with `cudalab run --backend gpu` (NVIDIA's runtime) and,
#      for comparison, on the emulated runtime on the same host;
#   4. `cudalab run --backend gpu` isolation and the CUPTI timeline (scripts/device/run-gpu-check.sh);
#   5. the GPU test suite.
# Logs go to ${OUT:-/tmp/cudalab-whole}.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/cudalab-whole}"
mkdir -p "$out"
cd "$root"
export LD_LIBRARY_PATH="$root/.devdeps/usr/lib:${LD_LIBRARY_PATH:-}"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$root/.devdeps/usr" -DCMAKE_INCLUDE_PATH="$root/.devdeps/usr/include" \
        -DCMAKE_LIBRARY_PATH="$root/.devdeps/usr/lib" >/dev/null &&
  cmake --build build-gpu --parallel 16 --target cudalab cudalab_cudart cudalab_cupti cudalab_gpu_tests > "$out/ninja.log" 2>&1 ||
    grep -E -A5 "error" "$out/ninja.log" | head -40
} 2>&1 | tee "$out/build.log"
[[ -x build-gpu/cudalab ]] || { echo "build failed"; exit 1; }
export CUDALAB_STATE="$out/state"
cl="$root/build-gpu/cudalab"
logs="$out/logs"  # every log; the summaries stay in $out
mkdir -p "$logs"

echo "== 1. lessons on the GPU"
$cl check all --solution --backend gpu --seed 1 > "$logs/solutions-gpu.txt" 2>&1; echo "solutions: exit $?"; tail -14 "$logs/solutions-gpu.txt"
$cl check all --backend gpu --seed 1 > "$logs/exercises-gpu.txt" 2>&1; echo "exercises: exit $? (1 expected)"; grep -E "^(PASS|FAIL|[0-9]+-)" "$logs/exercises-gpu.txt" | tail -14

echo "== 2. lesson 04 timed"
for k in exercises/04-divergence.cu solutions/04-divergence.cu tests/submissions/04-divergence/failp-branchless.cu tests/submissions/04-divergence/pass-thread-per-frame.cu; do
  [[ -f $k ]] || continue
  echo "-- $k"
  ncu --clock-control none --metrics gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio \
      $cl exec $k --kernel stereo_curves --grid 16384 --block 256 --arg 'f32[4194304]:zeros' --arg 'f32[4194304]:zeros' \
      --arg i32:4194304 --backend gpu 2>&1 | grep -E "gpu__time_duration|thread_inst_executed|==ERR|error" | head -6
done

echo "== 3. tests/programs through cudalab run (8 at a time)"
emulator_only=$(python3 -c 'import tomllib;print(" ".join(p["name"] for p in tomllib.load(open("tests/programs/programs.toml","rb"))["program"] if p.get("emulator_only")))')
one() {  # one BACKEND NAME
  if timeout 600 python3 tests/programs/run_emulated.py --cudalab "$cl" --backend "$1" "$2" > "$logs/prog-$1-$2.log" 2>&1; then
    tail -1 "$logs/prog-$1-$2.log"; else echo "FAIL $2 ($1)"; tail -4 "$logs/prog-$1-$2.log"; fi
}
export -f one; export cl out logs
for backend in gpu emu; do
  for n in $(grep -E '^name = "' tests/programs/programs.toml | sed 's/name = "\(.*\)"/\1/'); do
    [[ " $emulator_only " == *" $n "* && $backend == gpu ]] || echo "$backend $n"
  done | xargs -P 8 -n 2 bash -c 'one "$0" "$1"' | tee "$out/programs-$backend.txt"
  echo "$backend: $(grep -c '^PASS' "$out/programs-$backend.txt") passed, $(grep -c '^FAIL' "$out/programs-$backend.txt") failed"
done

[[ -n "${ONLY_LESSONS_AND_PROGRAMS:-}" ]] && exit 0
echo "== 4. cudalab run on the GPU: isolation and the CUPTI timeline"
CUDALAB="$cl" OUT="$out/run-gpu" scripts/device/run-gpu-check.sh 2>&1 | tail -25
$cl run --backend gpu --timeline "$out/simple_streams_gpu.json" tests/programs/simple_streams.cu > "$out/ss-gpu.txt" 2>&1; tail -2 "$out/ss-gpu.txt"
$cl run --backend emu --timeline "$out/simple_streams_emu.json" tests/programs/simple_streams.cu > "$out/ss-emu.txt" 2>&1; tail -2 "$out/ss-emu.txt"

echo "== 5. GPU test suite"
for case in "*occupancy*" "*every lesson*" "*peaks*"; do
  ./build-gpu/tests/cudalab_gpu_tests --test-case="$case" 2>&1 | tail -3
done
