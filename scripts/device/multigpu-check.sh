#!/usr/bin/env bash
# On a GPU machine with 2 or more GPUs: lesson 20 (ring all-reduce) on the real GPUs. Builds cudalab
# there (against .devdeps from scripts/device/prepare.sh), then
#   1. the peer bandwidth of one plain cudaMemcpyPeerAsync (lessons/20-multi-gpu/peer-bandwidth.cu,
#      which the lesson runs itself on real GPUs for its bound), at 8.2 MB and 65.6 MB;
#   2. `cudalab check 20-multi-gpu` on the solution and the shipped exercise with --backend gpu;
#   3. the solution under `cudalab run --backend gpu` on an in.bin for G GPUs (8.2 MB vectors), its
#      out.bin checked, and what CUPTI's timeline holds (peer copies with their devices, streams
#      per GPU);
#   4. the 1-GPU fallback (CUDA_VISIBLE_DEVICES=0: 4 emulated GPUs, said in the report).
# Summary in ${OUT:-/tmp/cudalab-multigpu}/multigpu-summary.txt; logs in its logs/ folder.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-/tmp/cudalab-multigpu}"
logs="$out/logs"
mkdir -p "$logs"
sum="$out/multigpu-summary.txt"
: > "$sum"
cd "$root"
export LD_LIBRARY_PATH="$root/.devdeps/usr/lib:${LD_LIBRARY_PATH:-}"
{
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  nvidia-smi topo -m
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDALAB_BUILD_GUI=OFF \
        -DCUDALAB_BUILD_TESTS=OFF \
        -DCMAKE_PREFIX_PATH="$root/.devdeps/usr" -DCMAKE_INCLUDE_PATH="$root/.devdeps/usr/include" \
        -DCMAKE_LIBRARY_PATH="$root/.devdeps/usr/lib" > "$logs/cmake.log" 2>&1 &&
  cmake --build build-gpu --parallel 16 --target cudalab cudalab_cudart cudalab_cupti > "$logs/ninja.log" 2>&1 ||
    { tail -20 "$logs/cmake.log"; grep -E -A5 "error" "$logs/ninja.log" | head -40; }
} 2>&1 | tee -a "$sum"
[[ -x build-gpu/cudalab ]] || { echo "build failed" | tee -a "$sum"; exit 1; }
export CUDALAB_STATE="$out/state"
cl="$root/build-gpu/cudalab"
gpus=$(nvidia-smi -L | wc -l)
g=$(( gpus < 4 ? gpus : 4 ))
echo "== $gpus GPUs, the lesson uses $g" | tee -a "$sum"

echo "== 1. peer bandwidth: one vector of 8.2 MB (the emulator's size) and of 65.6 MB (the lesson's on GPUs)" | tee -a "$sum"
for n in 2050000 16400000; do
  timeout 120 $cl run --backend gpu --devices 2 lessons/20-multi-gpu/peer-bandwidth.cu -- $n 2>&1 | tee -a "$sum"
done

echo "== 2. cudalab check 20-multi-gpu --backend gpu (solution: exit 0 expected; exercise: 1)" | tee -a "$sum"
timeout 300 $cl check 20-multi-gpu --solution --backend gpu --seed 1 > "$logs/check-solution.txt" 2>&1
echo "solution exit $?" | tee -a "$sum"
timeout 300 $cl check 20-multi-gpu --backend gpu --seed 1 > "$logs/check-exercise.txt" 2>&1
echo "exercise exit $?" | tee -a "$sum"
cat "$logs/check-solution.txt" "$logs/check-exercise.txt" >> "$sum"

echo "== 3. cudalab run --backend gpu solutions/20-multi-gpu.cu on $g GPUs, 8.2 MB vectors" | tee -a "$sum"
work="$(mktemp -d)"  # in.bin and out.bin (16 MB each for 2 GPUs) stay out of $OUT
python3 - "$work/in.bin" "$g" <<'PY'
import os, struct, sys
n, g = 2050001, int(sys.argv[2])
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<I", n) + os.urandom(4 * n * g))
PY
(cd "$work" && timeout 120 "$cl" run --backend gpu --devices "$g" "$root/solutions/20-multi-gpu.cu" \
   --timeline timeline.json -- in.bin out.bin) 2>&1 | tee -a "$sum"
cp "$work/timeline.json" "$out/solution-timeline.json" 2>/dev/null
python3 - "$work" "$g" <<'PY' 2>&1 | tee -a "$sum"
import json, struct, sys, collections
work, g = sys.argv[1], int(sys.argv[2])
data = open(work + "/in.bin", "rb").read()
n = struct.unpack_from("<I", data)[0]
vecs = [struct.unpack_from("<%dI" % n, data, 4 + 4 * n * d) for d in range(g)]
want = [sum(c) & 0xffffffff for c in zip(*vecs)]
try:
    out = open(work + "/out.bin", "rb").read()
    bad = [sum(1 for a, b in zip(struct.unpack_from("<%dI" % n, out, 4 * n * d), want) if a != b) for d in range(g)]
    print("out.bin: wrong values per GPU:", bad)
except Exception as e:
    print("out.bin:", e)
try:
    t = json.load(open(work + "/timeline.json"))
except Exception as e:
    sys.exit("timeline: %s" % e)
kinds, streams, peer = collections.Counter(), collections.defaultdict(set), collections.Counter()
busy = []
for e in t.get("traceEvents", []):
    if e.get("ph") != "X" or e.get("pid", 0) < 1:
        continue
    kinds[(e["pid"] - 1, e.get("name"))] += 1
    streams[e["pid"] - 1].add(e.get("tid"))
    a = e.get("args", {})
    if "PtoP" in e.get("name", ""):
        peer[(a.get("src_device"), a.get("dst_device"))] += a.get("bytes", 0)
print("timeline: events per (device, name):", dict(kinds))
print("timeline: streams per device:", {d: sorted(s) for d, s in streams.items()})
print("timeline: peer bytes per (src, dst):", dict(peer))
PY
rm -rf "$work"

echo "== 4. one GPU visible: the lesson falls back to 4 emulated GPUs" | tee -a "$sum"
CUDA_VISIBLE_DEVICES=0 timeout 300 $cl check 20-multi-gpu --solution --backend gpu --seed 1 > "$logs/check-one-gpu.txt" 2>&1
echo "solution with one GPU visible: exit $?" | tee -a "$sum"
grep -E "emulated|PASS|FAIL" "$logs/check-one-gpu.txt" | head -8 | tee -a "$sum"
