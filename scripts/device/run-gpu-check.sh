#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: checks `cudalab run --backend gpu` (build, isolation, exit codes,
# auto picking the GPU) and the CUPTI timeline (libcudalab_cupti.so next to cudalab), and writes
# the logs and timelines to ${OUT:-/tmp/cudalab-run-gpu}. Prints PASS/FAIL per check; exits 1 if
# any failed.
#
#   CUDALAB=build-gpu/cudalab scripts/device/run-gpu-check.sh
# Build first (after scripts/device/gpu-check.sh has configured build-gpu):
#   cmake --build build-gpu --target cudalab cudalab_cupti
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cudalab="${CUDALAB:-$root/build-gpu/cudalab}"
out="${OUT:-/tmp/cudalab-run-gpu}"
programs="$root/tests/data/programs"
mkdir -p "$out"
export CUDALAB_CACHE_DIR="$out/cache"
failed=0
check() {  # check NAME EXPECTED_EXIT COMMAND...
    local name="$1" want="$2"; shift 2
    "$@" > "$out/$name.log" 2>&1
    local got=$?
    if [[ "$got" == "$want" ]]; then echo "PASS $name (exit $got)"; else echo "FAIL $name: exit $got, expected $want"; tail -5 "$out/$name.log"; failed=1; fi
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2
[[ -x "$cudalab" ]] || { echo "no cudalab at $cudalab (set CUDALAB)"; exit 1; }

check gpu-devices 0 "$cudalab" run -v --backend gpu "$programs/probe.cu" -- devices
grep -q "devices [1-9]" "$out/gpu-devices.log" || { echo "FAIL gpu-devices: no device count"; failed=1; }
check gpu-exit-code 42 "$cudalab" run --backend gpu "$programs/probe.cu" -- exit 42
check gpu-segfault 139 "$cudalab" run --backend gpu "$programs/probe.cu" -- segv
check gpu-time-limit 124 "$cudalab" run --backend gpu --time-limit 2 "$programs/probe.cu" -- loop
check gpu-kernel-launch 0 "$cudalab" run --backend gpu "$programs/probe.cu" -- launch
check gpu-rdc 0 "$cudalab" run --backend gpu -rdc=true "$programs/rdc_main.cu" "$programs/rdc_lib.cu"
check auto-picks-gpu 0 "$cudalab" run --json "$programs/probe.cu" -- devices
python3 -c "import json,sys; r=json.load(open('$out/auto-picks-gpu.log')); sys.exit(0 if r['run']['backend']=='gpu' else 1)" \
    && echo "PASS auto chose the GPU" || { echo "FAIL auto did not choose the GPU"; failed=1; }

# The timeline: CUPTI on the GPU, and the emulator's for comparison when it is built.
check gpu-timeline 0 "$cudalab" run --backend gpu --timeline "$out/gpu_timeline.json" "$programs/timeline.cu"
if [[ -x "$(dirname "$cudalab")/cudart-emu/libcudart.so.13" || -f "$(dirname "$cudalab")/cudart-emu/libcudart.so.13" ]]; then
    check emu-timeline 0 "$cudalab" run --backend emu --timeline "$out/emu_timeline.json" "$programs/timeline.cu"
fi
python3 - "$out" <<'PY' || failed=1
import collections, json, os, sys
out = sys.argv[1]
t = json.load(open(os.path.join(out, "gpu_timeline.json")))
xs = [e for e in t["traceEvents"] if e.get("ph") == "X"]
cats = collections.Counter(e["cat"] for e in xs)
print("GPU timeline:", dict(cats), "processes:", sorted({e["pid"] for e in xs}),
      "device streams:", sorted({(e["pid"], e["tid"]) for e in xs if e["pid"] > 0}))
bad = [e for e in xs if not all(k in e for k in ("name", "ts", "dur", "pid", "tid")) or e["dur"] < 0]
names = collections.Counter(e["name"] for e in xs if e["cat"] != "api")
print("device events:", dict(names))
need = {"api": 20, "kernel": 4, "memcpy": 5, "memset": 1, "graph": 1}
missing = [f"{c} (have {cats[c]}, want >= {n})" for c, n in need.items() if cats[c] < n]
streams = {(e["pid"], e["tid"]) for e in xs if e["cat"] == "kernel"}
if bad: print("FAIL malformed events:", bad[:3])
if missing: print("FAIL missing:", ", ".join(missing))
if len(streams) < 2: print("FAIL kernels in fewer than 2 streams:", streams)
ok = not bad and not missing and len(streams) >= 2
emu = os.path.join(out, "emu_timeline.json")
if os.path.exists(emu):
    e = [x for x in json.load(open(emu))["traceEvents"] if x.get("ph") == "X"]
    print("emulator timeline:", dict(collections.Counter(x["cat"] for x in e)))
print("PASS the CUPTI timeline" if ok else "FAIL the CUPTI timeline")
sys.exit(0 if ok else 1)
PY

if command -v bwrap > /dev/null; then
    check gpu-sandbox 0 "$cudalab" run --sandbox --backend gpu "$programs/probe.cu" -- launch
else
    echo "(no bwrap here: the sandbox on a GPU is not checked)"
fi
exit $failed
