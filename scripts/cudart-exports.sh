#!/usr/bin/env bash
# Regenerates engine/device/entry_points.def: the names the CUDA toolkit's libcudart.so.13 and
# libcuda.so (stub) export. Every name cudalab's emulated runtime does not implement gets a stub
# that answers "not supported" instead of failing to resolve. Run after moving to a new toolkit.
set -euo pipefail
cuda="${CUDA_HOME:-/usr/local/cuda}"
out="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/engine/device/entry_points.def"
{
  echo "// The CUDA runtime (libcudart.so.13) and driver (libcuda.so.1) entry points, by name: each one"
  echo "// cudalab does not implement answers cudaErrorNotSupported (engine/client/not_implemented.cpp). The names are the"
  echo "// exported symbols of CUDA 13.0's libraries; regenerate with scripts/cudart-exports.sh."
  nm -D --defined-only "$cuda/lib64/libcudart.so.13" | awk '{print $3}' | sed 's/@.*//' | grep -v '^libcudart' | sort -u | sed 's/.*/X(&)/'
  nm -D --defined-only "$cuda/lib64/stubs/libcuda.so" | awk '{print $3}' | grep '^cu' | sort -u | sed 's/.*/X(&)/'
} > "$out"
echo "wrote $out"
