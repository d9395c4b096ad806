#!/usr/bin/env bash
# On the GPU machine: lesson 17's page migrations counted on the GPU by CUPTI's unified memory
# counters (libcudalab_cupti.so; lessons/17-unified-memory/gpu_paging.h). Builds cudalab there
# (against .devdeps from scripts/device/prepare.sh; carry .devdeps with the call), then
#   1. `cudalab check 17-unified-memory --backend gpu` of the solution and the shipped exercise,
#      seeds 1-3 (the solution should pass and the exercise fail; the GPU bounds in gpu_paging.h
#      await these figures);
#   2. `cudalab run --backend gpu --timeline` of both programs on an input like the lesson's, in
#      the sandbox where bwrap is there and outside it, and on the emulated runtime for comparison;
#   3. a summary of each timeline's unified memory records (um-summary.txt): whether CUPTI counted,
#      bytes moved by cause, GPU and CPU page faults, and the two figures the lesson bounds.
#   4. what the counters cost other lessons: the GPU figures of 14-streams and 15-cuda-graphs
#      (solutions, seed 1) with the counters on and off (CUDALAB_CUPTI_UNIFIED_MEMORY=0).
# Everything goes to ${OUT:-/tmp/cudalab-um}: summary.txt, um-summary.txt, the timelines, logs/.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/cudalab-um}"
logs="$out/logs"
mkdir -p "$logs"
cd "$root"
export LD_LIBRARY_PATH="$root/.devdeps/usr/lib:${LD_LIBRARY_PATH:-}"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ls -l /dev/nvidia-uvm /dev/nvidia-uvm-tools 2>&1
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
        -DCMAKE_PREFIX_PATH="$root/.devdeps/usr" -DCMAKE_INCLUDE_PATH="$root/.devdeps/usr/include" \
        -DCMAKE_LIBRARY_PATH="$root/.devdeps/usr/lib" >/dev/null &&
  cmake --build build-gpu --parallel 16 --target cudalab cudalab_cudart cudalab_cupti > "$logs/ninja.log" 2>&1 ||
    grep -E -A5 "error" "$logs/ninja.log" | head -40
} 2>&1 | tee "$out/build.txt"
[[ -x build-gpu/cudalab ]] || { echo "build failed"; exit 1; }
[[ -f build-gpu/libcudalab_cupti.so ]] || echo "no libcudalab_cupti.so: CUPTI was not found, no GPU timeline" | tee -a "$out/build.txt"
export CUDALAB_STATE="$out/state"
cl="$root/build-gpu/cudalab"

echo "== 1. cudalab check 17-unified-memory --backend gpu" | tee "$out/summary.txt"
for seed in 1 2 3; do
  $cl check 17-unified-memory --solution --backend gpu --seed $seed > "$logs/check-solution-$seed.txt" 2>&1; s=$?
  $cl check 17-unified-memory --backend gpu --seed $seed > "$logs/check-exercise-$seed.txt" 2>&1; e=$?
  echo "seed $seed: solution exit $s, exercise exit $e (0 and 1 expected)" | tee -a "$out/summary.txt"
  for who in solution exercise; do
    # The page checks' lines (name, figure, message) of each report.
    grep -E -A2 "page|not measured" "$logs/check-$who-$seed.txt" | sed "s/^/  $who: /" >> "$out/summary.txt"
  done
done

echo "== 2. cudalab run --timeline of both programs" | tee -a "$out/summary.txt"
work="$out/work"
mkdir -p "$work"
python3 - "$work/in.bin" <<'EOF'
# An input like the lesson's: n = 267000 values (the lesson's text's example), then 4096 of table.
import random, struct, sys
rng = random.Random(17)
n = 267000
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<I", n))
    f.write(struct.pack("<%dI" % n, *(rng.getrandbits(32) for _ in range(n))))
    f.write(struct.pack("<4096I", *(rng.getrandbits(32) for _ in range(4096))))
EOF
sandbox_modes=(plain)
command -v bwrap >/dev/null && sandbox_modes+=(sandbox)
for prog in solution exercise; do
  src="$root/${prog}s/17-unified-memory.cu"
  for mode in "${sandbox_modes[@]}"; do
    flag=""
    [[ $mode == sandbox ]] && flag="--sandbox"
    (cd "$work" && $cl run $flag --backend gpu --timeline "$out/timeline-$prog-gpu-$mode.json" "$src" -- in.bin out-$prog.bin) \
      > "$logs/run-$prog-gpu-$mode.txt" 2>&1
    echo "$prog on the GPU ($mode): exit $?" | tee -a "$out/summary.txt"
  done
  (cd "$work" && $cl run --backend emu --timeline "$out/timeline-$prog-emu.json" "$src" -- in.bin out-$prog-emu.bin) \
    > "$logs/run-$prog-emu.txt" 2>&1
  echo "$prog on the emulated runtime: exit $?" | tee -a "$out/summary.txt"
done
cmp -s "$work/out-solution.bin" "$work/out-solution-emu.bin" && echo "the solution's out.bin: GPU = emulated runtime" | tee -a "$out/summary.txt"

echo "== 3. unified memory records" | tee -a "$out/summary.txt"
python3 - "$out" <<'EOF' | tee "$out/um-summary.txt" | tee -a "$out/summary.txt"
# What the lesson bounds (gpu_paging.h): KiB moved on demand (every cause but "prefetch", i.e.
# cudaMemPrefetchAsync) and GPU page faults + CPU page faults from the first kernel's start on.
import collections, glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "timeline-*.json"))):
    name = os.path.basename(path)
    try:
        t = json.load(open(path))
    except Exception as e:
        print(f"{name}: unreadable ({e})")
        continue
    other = t.get("otherData", {})
    xs = [e for e in t.get("traceEvents", []) if e.get("ph") == "X"]
    kernels = [e["ts"] for e in xs if e.get("cat") == "kernel"]
    first = min(kernels) if kernels else float("inf")
    by = collections.defaultdict(lambda: [0, 0])  # (direction, cause) -> [records, bytes]
    sizes = collections.Counter()
    on_demand = 0
    for e in xs:
        if e.get("cat") != "page":
            continue
        a = e.get("args", {})
        key = (e["name"], a.get("cause", "?"))
        by[key][0] += 1
        by[key][1] += int(a.get("bytes", 0))
        sizes[int(a.get("bytes", 0))] += 1
        if a.get("cause") != "prefetch":
            on_demand += int(a.get("bytes", 0))
    gpu_faults = sum(1 for e in xs if e.get("cat") == "page fault" and e["pid"] != 0)
    cpu_after = sum(1 for e in xs if e.get("cat") == "page fault" and e["pid"] == 0 and e["ts"] >= first)
    cpu_before = sum(1 for e in xs if e.get("cat") == "page fault" and e["pid"] == 0 and e["ts"] < first)
    print(f"{name}: unified_memory={other.get('unified_memory', '(not said: emulated runtime)')}, "
          f"{len(kernels)} kernels, dropped {other.get('dropped_events')}")
    for k in ("managed_host_to_device_bytes", "managed_device_to_host_bytes", "managed_prefetched_bytes",
              "managed_gpu_page_faults", "managed_cpu_page_faults", "managed_host_to_device_pages",
              "managed_device_to_host_pages"):
        if k in other:
            print(f"  {k} = {other[k]}")
    for (direction, cause), (count, b) in sorted(by.items()):
        print(f"  {direction:16s} {cause:16s} {count:6d} records {b / 1024:10.1f} KiB")
    print(f"  migration sizes (bytes: records): {dict(sorted(sizes.items()))}")
    print(f"  lesson's figures: {on_demand / 1024:.1f} KiB on demand; {gpu_faults} GPU faults + "
          f"{cpu_after} CPU faults from the first launch on = {gpu_faults + cpu_after} "
          f"({cpu_before} CPU faults before it)")
EOF

echo "== 4. lessons 14 and 15 on the GPU, unified memory counters on and off" | tee -a "$out/summary.txt"
for id in 14-streams 15-cuda-graphs; do
  for um in on off; do
    if [[ $um == off ]]; then
      CUDALAB_CUPTI_UNIFIED_MEMORY=0 $cl check $id --solution --backend gpu --seed 1 > "$logs/check-$id-um-$um.txt" 2>&1
    else
      $cl check $id --solution --backend gpu --seed 1 > "$logs/check-$id-um-$um.txt" 2>&1
    fi
    echo "$id solution, counters $um: exit $?" | tee -a "$out/summary.txt"
    grep -E "^\s*(PASS|FAIL)" -A1 "$logs/check-$id-um-$um.txt" | sed "s/^/  /" >> "$out/summary.txt"
  done
done
