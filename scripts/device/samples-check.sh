#!/usr/bin/env bash
# On the GPU machine (16 cores): NVIDIA's samples on the emulated runtime as a 2-core laptop runs
# them. Builds cudalab there (against .devdeps from scripts/device/prepare.sh), then runs
# scripts/samples-sweep.sh in 7 shards at once, each pinned to its own 2 cores (taskset), and
# merges the tables into $OUT/table.md, slowest first. Meanwhile the samples named in
# docs/runtime.md's time table run one at a time on 2 more cores, with the device thread (the
# default), without it (CUDALAB_DEVICE_THREAD=0) and without the race check (--races off), the
# build excluded.
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

# Cores 0..13 hold the sweep's shards; 14 and 15 time the named samples meanwhile. Everything
# stops at DEADLINE seconds from here (default 420): a shard then lists what it finished.
deadline=${DEADLINE:-420}
timed=(0_Introduction/simpleStreams 0_Introduction/asyncAPI 3_CUDA_Features/simpleCudaGraphs
  0_Introduction/matrixMul)
time_named() {
  local work
  work=$(mktemp -d /tmp/samples-timed.XXXXXX)
  cp -r "$samples/Common" "$work/"
  for s in "${timed[@]}"; do
    local name
    name=$(basename "$s")
    mkdir -p "$work/Samples/$s"
    cp -r "$samples/Samples/$s/." "$work/Samples/$s/"
    (cd "$work/Samples/$s" &&
      "$CUDALAB" build -I ../../../Common -std=c++17 ./*.cu -o "$name" >"$out/build-$name.log" 2>&1) ||
      { echo "$name: build failed"; continue; }
    # The default; without the device thread; without the race check between streams.
    for config in "1 on" "0 on" "1 off"; do
      local start rc thread races
      read -r thread races <<<"$config"
      start=$(date +%s.%N)
      (cd "$work/Samples/$s" && CUDALAB_DEVICE_THREAD=$thread taskset -c 14,15 \
        "$CUDALAB" run --backend emu --time-limit 0 --races "$races" --exe "./$name" \
        >"$out/run-$name-$thread-$races.log" 2>&1)
      rc=$?
      printf '%s device_thread=%s races=%s exit %s %.1f s\n' "$name" "$thread" "$races" "$rc" \
        "$(echo "$(date +%s.%N) - $start" | bc)"
    done
  done
}
time_named >"$out/timed.txt" 2>&1 &
timer=$!

shards=${SHARDS:-7}
mapfile -t names < <(cd "$samples/Samples" &&
  ls -d 0_Introduction/*/ 1_Utilities/*/ 2_Concepts_and_Techniques/*/ 3_CUDA_Features/*/ \
    6_Performance/*/ 2>/dev/null | xargs -n1 basename | sort)
for ((i = 0; i < shards; ++i)); do
  pick=()
  for ((j = i; j < ${#names[@]}; j += shards)); do pick+=("${names[j]}"); done
  only="^($(IFS='|'; echo "${pick[*]}"))\$"
  SWEEP_ONLY="$only" SWEEP_OUT="$out/shard$i" SWEEP_TIME_LIMIT="${SWEEP_TIME_LIMIT:-240}" \
    timeout "$deadline" taskset -c $((2 * i)),$((2 * i + 1)) \
    scripts/samples-sweep.sh "$samples" >"$out/shard$i.txt" 2>&1 &
done
wait
{
  printf '| sample | result | seconds (build and run, 2 cores) | why |\n|---|---|---|---|\n'
  cat "$out"/shard*/table.md | grep -E '^\| [0-9]' | sort -t'|' -k4 -g -r
} >"$out/table.md"
echo "pass $(grep -c '| pass |' "$out/table.md"), fail $(grep -c '| fail |' "$out/table.md"), waived $(grep -c '| waived |' "$out/table.md"), skipped $(grep -c '| skipped |' "$out/table.md")"
head -14 "$out/table.md"
cat "$out/timed.txt"
grep -h "time spent" "$out"/run-asyncAPI-*.log
