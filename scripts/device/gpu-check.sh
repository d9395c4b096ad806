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
  cmake --build build-gpu --parallel 16 --target cudalab cudalab_gpu_tests cudalab_tests 2>&1 | grep -E "error|warning: unused" | head -40
} 2>&1 | tee "$out/build.log"
[[ -x build-gpu/cudalab ]] || { echo "build failed"; exit 1; }
export CUDALAB_STATE="$out/state.json"
./build-gpu/cudalab_gpu_tests -s 2>&1 | tee "$out/gpu-tests.log" | tail -60
./build-gpu/cudalab check all --backend gpu -v 2>&1 | tee "$out/check-all-gpu.txt" | tail -40
./build-gpu/cudalab check all --backend gpu --format json > "$out/check-all-gpu.json" 2>/dev/null
