#!/usr/bin/env python3
"""The modelled clock depends only on the program: pipeline.cu run with no host work between its
calls, and with 40 ms of it, while two processes keep both cores busy, must print the same elapsed
time and write the same timeline (every event's start and length), the real times it also records
(measured_ms_since_start) aside.

Usage: run_determinism.py --runtime DIR --build-dir DIR.  Exit status: 0 pass, 1 fail."""
import argparse, json, os, shutil, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--runtime", required=True)
parser.add_argument("--build-dir", required=True)
a = parser.parse_args()
nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
os.makedirs(a.build_dir, exist_ok=True)
exe = os.path.join(a.build_dir, "pipeline")
r = subprocess.run([nvcc, "-cudart", "shared", "-lineinfo", "-arch=sm_90", "-o", exe, os.path.join(here, "pipeline.cu")],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit("FAIL: nvcc failed:\n" + r.stdout + r.stderr)
runtime = os.path.abspath(a.runtime)

def run(host_ms, load):
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            timeline = os.path.join(tmp, "timeline.json")
            env = dict(os.environ, LD_LIBRARY_PATH=runtime, LD_PRELOAD=os.path.join(runtime, "libcudart.so.13"),
                       CUDALAB_TIMELINE=timeline)
            p = subprocess.run([exe, str(host_ms)], capture_output=True, text=True, env=env, timeout=300)
            if p.returncode:
                sys.exit(f"FAIL: the program exited {p.returncode}: {p.stderr}")
            events = json.load(open(timeline))
            events = events["traceEvents"] if isinstance(events, dict) else events
            shape = []
            for e in events:
                # Real times and host addresses (an event's handle) may differ; nothing else may.
                args = {k: v for k, v in (e.get("args") or {}).items() if k not in ("measured_ms_since_start", "event")}
                shape.append((e.get("name"), e.get("ph"), e.get("pid"), e.get("tid"), e.get("ts"), e.get("dur"),
                              json.dumps(args, sort_keys=True)))
            return p.stdout.strip(), shape
    finally:
        for b in burners:
            b.kill()

quiet = run(0, 0)
loaded = run(40, 2)
print("idle, no host work:      ", quiet[0], f"({len(quiet[1])} timeline events)")
print("loaded, 40 ms host work: ", loaded[0], f"({len(loaded[1])} timeline events)")
if quiet[0] != loaded[0]:
    sys.exit("FAIL: the elapsed time depends on the host's own work or the machine's load")
diff = [(x, y) for x, y in zip(quiet[1], loaded[1]) if x != y]
if len(quiet[1]) != len(loaded[1]) or diff:
    sys.exit(f"FAIL: the timelines differ (first: {diff[:1]})")
print("PASS: the same figures and timeline, idle and loaded")
