#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and the CUDA Toolkit but no package manager access: build cudalab
# against .devdeps (scripts/device/prepare.sh), run the GPU test suite and every lesson on the GPU,
# and write the logs to ${OUT:-/tmp/cudalab-gpu}.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/cudalab-gpu}"
mkdir -p "$out"
cd "$root"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$root/.devdeps/usr" -DCMAKE_INCLUDE_PATH="$root/.devdeps/usr/include" >/dev/null &&
  cmake --build build-gpu --parallel 16 --target cudalab cudalab_gpu_tests > "$out/ninja.log" 2>&1 || grep -E -A5 "error" "$out/ninja.log" | head -60
} 2>&1 | tee "$out/build.log"
[[ -x build-gpu/cudalab ]] || { echo "build failed"; exit 1; }
export CUDALAB_STATE="$out/state.json"
# One process per test case: the CUDA driver, once started, changes what NVRTC reports, and an
# illegal address poisons the process that caused it.
for case in "*occupancy*" "*every lesson*" "*peaks*"; do
  ./build-gpu/tests/cudalab_gpu_tests --test-case="$case" 2>&1
done | tee "$out/gpu-tests.log" | tail -60
# The fault test in a process of its own (it may leave the driver refusing work in that process).
CUDALAB_GPU_FAULT_TEST=1 ./build-gpu/tests/cudalab_gpu_tests --test-case="*illegal*" 2>&1 | tee "$out/gpu-fault-test.log" | tail -20
./build-gpu/cudalab check all --solution --backend gpu -v > "$out/check-all-gpu.txt" 2>&1
tail -12 "$out/check-all-gpu.txt"
./build-gpu/cudalab check all --solution --backend gpu --format json > "$out/check-all-gpu.json" 2>/dev/null
