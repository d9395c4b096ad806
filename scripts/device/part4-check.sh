#!/usr/bin/env bash
# On the GPU machine, after the Part IV lessons, lessons as data and the layered engine: builds
# cudalab there (against .devdeps from scripts/device/prepare.sh) and
#   1. checks every lesson's solution and shipped exercise with NVIDIA's runtime (--backend gpu);
#   2. runs the GPU test suite and the budget test through the GPU backend's shadow emulator;
#   3. runs the lane handoff of scripts/device/its_handoff.cu (independent thread scheduling).
# Summaries go to ${OUT:-/tmp/cudalab-part4}; full logs to its logs/ folder.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/cudalab-part4}"
logs="$out/logs"
mkdir -p "$logs"
cd "$root"
export LD_LIBRARY_PATH="$root/.devdeps/usr/lib:${LD_LIBRARY_PATH:-}"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$root/.devdeps/usr" -DCMAKE_INCLUDE_PATH="$root/.devdeps/usr/include" \
        -DCMAKE_LIBRARY_PATH="$root/.devdeps/usr/lib" >/dev/null &&
  cmake --build build-gpu --parallel 16 --target cudalab cudalab_cudart cudalab_cupti cudalab_tests cudalab_gpu_tests > "$logs/ninja.log" 2>&1 ||
    grep -E -A5 "error" "$logs/ninja.log" | head -40
} 2>&1 | tee "$out/build.txt"
[[ -x build-gpu/cudalab ]] || { echo "build failed"; exit 1; }
export CUDALAB_STATE="$out/state"
cl="$root/build-gpu/cudalab"

echo "== 1. lessons on the GPU" | tee "$out/lessons.txt"
for id in $($cl list | awk '{print $1}' | grep -E '^[0-9]'); do
  $cl check "$id" --solution --backend gpu --seed 1 > "$logs/sol-$id.txt" 2>&1; s=$?
  $cl check "$id" --backend gpu --seed 1 > "$logs/ex-$id.txt" 2>&1; e=$?
  echo "$id solution exit $s, exercise exit $e (0 and 1 expected)" | tee -a "$out/lessons.txt"
done
cat "$logs"/sol-1[3-9]*.txt "$logs"/sol-20*.txt "$logs"/sol-02-vector-add.txt > "$out/part4-solutions.txt" 2>/dev/null
cat "$logs"/ex-1[3-9]*.txt "$logs"/ex-20*.txt > "$out/part4-exercises.txt" 2>/dev/null

echo "== 2. GPU suite and the budget through the GPU backend" | tee "$out/suite.txt"
./build-gpu/tests/cudalab_gpu_tests 2>&1 | tail -5 | tee -a "$out/suite.txt"
./build-gpu/tests/cudalab_tests -tc="make_backend*" 2>&1 | tail -4 | tee -a "$out/suite.txt"

echo "== 3. independent thread scheduling on the GPU" | tee -a "$out/suite.txt"
timeout 60 $cl run --backend gpu scripts/device/its_handoff.cu 2>&1 | tail -3 | tee -a "$out/suite.txt"
