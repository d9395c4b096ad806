#!/usr/bin/env bash
# Memory overhead of buffers in the emulator (issue 13: at most 1.5x a buffer's size): the peak
# resident memory of `cudalab exec` running SAXPY over two buffers of N floats each, less that of
# the same run over one-element buffers, divided by the buffers' bytes. `exec` holds each buffer
# once, traced (--trace) or not; lesson checks also keep, for each word, the thread that wrote it
# last (as many bytes again), to explain a wrong element.
#
#   bench/memory_overhead.sh [N ...]      default N: 67108864 134217728 (256 MB and 512 MB buffers)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${CUDALAB_CLI:-$root/build/cudalab}"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
peak_kb() {  # N, extra flags...
  local n=$1; shift
  local out
  out=$(mktemp)
  /usr/bin/time -f "%M" -o "$out" "$cli" exec "$root/bench/kernels.cu" --kernel saxpy \
      --grid 4096 --block 256 --arg f32:2 --arg "f32[$n]:iota" --arg "f32[$n]:zeros" --arg "i32:$n" \
      --backend emu --budget 1000000000 --memory-limit 16384 "$@" >/dev/null
  cat "$out"; rm -f "$out"
}
base=$(peak_kb 1)
printf '%-12s %-10s %12s %12s %10s\n' "N floats" "mode" "buffers MB" "peak MB" "overhead"
for n in "${@:-67108864 134217728}"; do
  for mode in untraced traced; do
    flags=()
    [[ $mode == traced ]] && flags=(--trace "$(mktemp -u)")
    kb=$(peak_kb "$n" "${flags[@]}")
    [[ $mode == traced ]] && rm -f "${flags[1]}"
    awk -v n="$n" -v kb="$kb" -v base="$base" -v mode="$mode" 'BEGIN {
      bytes = 2 * n * 4; printf "%-12d %-10s %12.0f %12.0f %9.2fx\n", n, mode, bytes / 1048576, kb / 1024, (kb - base) * 1024 / bytes }'
  done
done
