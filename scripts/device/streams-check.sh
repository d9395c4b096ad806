#!/usr/bin/env bash
# On a GPU machine: the facts the emulated runtime's stream model takes, and the race corpus run
# against NVIDIA's runtime (what each racy program gives on a real GPU). Prints everything.
#   bash scripts/device/streams-check.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/streams-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for p in free_sync cross_device; do
  nvcc -arch=sm_90 -o "$out/$p" "$root/scripts/device/$p.cu" && "$out/$p"
done
echo "## pipeline (tests/programs/determinism)"
nvcc -cudart shared -arch=sm_90 -o "$out/pipeline" "$root/tests/programs/determinism/pipeline.cu" && "$out/pipeline" && "$out/pipeline"
echo "## the race corpus on NVIDIA's runtime (racy build, then -DFIXED)"
for f in "$root"/tests/programs/races/*.cu; do
  n=$(basename "$f" .cu)
  nvcc -arch=sm_90 -o "$out/$n" "$f" && nvcc -arch=sm_90 -DFIXED -o "$out/${n}_fixed" "$f" || continue
  echo "### $n: $("$out/$n" 2>&1 | tr '\n' ' ') | fixed: $("$out/${n}_fixed" 2>&1 | tr '\n' ' ')"
done
