#!/usr/bin/env bash
# On the GPU machine (16 cores): NVIDIA's samples on the emulated runtime as a 2-core laptop runs
# them. Builds cudalab there (against .devdeps from scripts/device/prepare.sh), then runs
# scripts/samples-sweep.sh in 8 shards at once, each pinned to its own 2 cores (taskset), and
# merges the tables into $OUT/table.md, slowest first. Then the samples named in docs/runtime.md's
# time table, one at a time on 2 cores, with the device thread (the default) and without it
# (CUDALAB_DEVICE_THREAD=0), the build excluded.
#
#   scripts/device/samples-check.sh CUDA_SAMPLES_DIR
#
# The GPU itself is not used: the machine is borrowed for its cores (the shards share its memory
# bandwidth, so a shard's times are a little slower than a quiet laptop's own).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
samples="$(cd "${1:?usage: $0 CUDA_SAMPLES_DIR}" && pwd)"
out="${OUT:-/tmp/cudalab-samples}"
mkdir -p "$out"
cd "$root"
export LD_LIBRARY_PATH="$root/.devdeps/usr/lib:${LD_LIBRARY_PATH:-}"
{
  nproc
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
    -DCMAKE_PREFIX_PATH="$root/.devdeps/usr" -DCMAKE_INCLUDE_PATH="$root/.devdeps/usr/include" \
    -DCMAKE_LIBRARY_PATH="$root/.devdeps/usr/lib" >/dev/null &&
    cmake --build build-gpu --parallel 16 --target cudalab cudalab_cudart >"$out/ninja.log" 2>&1 ||
    grep -E -A5 "error" "$out/ninja.log" | head -40
} 2>&1 | tee "$out/build.log"
[[ -x build-gpu/cudalab ]] || { echo "build failed"; exit 1; }
export CUDALAB="$root/build-gpu/cudalab"
export CUDALAB_STATE="$out/state"

shards=${SHARDS:-8}
mapfile -t names < <(cd "$samples/Samples" &&
  ls -d 0_Introduction/*/ 1_Utilities/*/ 2_Concepts_and_Techniques/*/ 3_CUDA_Features/*/ \
    6_Performance/*/ 2>/dev/null | xargs -n1 basename | sort)
for ((i = 0; i < shards; ++i)); do
  pick=()
  for ((j = i; j < ${#names[@]}; j += shards)); do pick+=("${names[j]}"); done
  only="^($(IFS='|'; echo "${pick[*]}"))\$"
  SWEEP_ONLY="$only" SWEEP_OUT="$out/shard$i" SWEEP_TIME_LIMIT="${SWEEP_TIME_LIMIT:-300}" \
    taskset -c $((2 * i)),$((2 * i + 1)) scripts/samples-sweep.sh "$samples" >"$out/shard$i.txt" 2>&1 &
done
wait
{
  printf '| sample | result | seconds (build and run, 2 cores) | why |\n|---|---|---|---|\n'
  cat "$out"/shard*/table.md | grep -E '^\| [0-9]' | sort -t'|' -k4 -g -r
} >"$out/table.md"
echo "pass $(grep -c '| pass |' "$out/table.md"), fail $(grep -c '| fail |' "$out/table.md"), waived $(grep -c '| waived |' "$out/table.md"), skipped $(grep -c '| skipped |' "$out/table.md")"
head -14 "$out/table.md"

# The named samples, built once, then run alone on 2 cores with and without the device thread.
timed=(0_Introduction/simpleStreams 0_Introduction/asyncAPI 3_CUDA_Features/simpleCudaGraphs
  0_Introduction/matrixMul)
work=$(mktemp -d /tmp/samples-timed.XXXXXX)
cp -r "$samples/Common" "$work/"
for s in "${timed[@]}"; do
  name=$(basename "$s")
  mkdir -p "$work/Samples/$s"
  cp -r "$samples/Samples/$s/." "$work/Samples/$s/"
  (cd "$work/Samples/$s" &&
    "$CUDALAB" build -I ../../../Common -std=c++17 ./*.cu -o "$name" >"$out/build-$name.log" 2>&1) ||
    { echo "$name: build failed"; continue; }
  for thread in 1 0; do
    start=$(date +%s.%N)
    (cd "$work/Samples/$s" && CUDALAB_DEVICE_THREAD=$thread taskset -c 0,1 \
      "$CUDALAB" run --backend emu --time-limit 0 --exe "./$name" >"$out/run-$name-$thread.log" 2>&1)
    rc=$?
    printf '%s device_thread=%s exit %s %.1f s\n' "$name" "$thread" "$rc" \
      "$(echo "$(date +%s.%N) - $start" | bc)"
  done
done | tee "$out/timed.txt"
grep -h "time spent" "$out"/run-asyncAPI-*.log
