#!/usr/bin/env python3
"""Every error code's name and string on the emulated runtime against an H200's
(error_strings_h200.txt): builds error_strings.cu with nvcc, runs it on cudalab's runtime and
compares line by line. Usage: run_error_strings.py --runtime DIR --build-dir DIR. Exit 0 same."""
import argparse, os, shutil, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--runtime", required=True)
parser.add_argument("--build-dir", required=True)
a = parser.parse_args()
nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
os.makedirs(a.build_dir, exist_ok=True)
exe = os.path.join(a.build_dir, "error_strings")
r = subprocess.run([nvcc, "-cudart", "shared", "-o", exe, os.path.join(here, "error_strings.cu"), "-lcuda"],
                   capture_output=True, text=True)
if r.returncode:
    sys.exit("FAIL: nvcc failed:\n" + r.stdout + r.stderr)
runtime = os.path.abspath(a.runtime)
env = dict(os.environ, LD_LIBRARY_PATH=runtime, LD_PRELOAD=os.path.join(runtime, "libcudart.so.13"))
got = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=120).stdout.splitlines()
want = open(os.path.join(here, "error_strings_h200.txt")).read().splitlines()
diff = [(w, g) for w, g in zip(want, got) if w != g]
if len(got) != len(want) or diff:
    for w, g in diff[:20]:
        print(f"H200:     {w}\ncudalab:  {g}")
    sys.exit(f"FAIL: {len(diff)} of {len(want)} lines differ" + ("" if len(got) == len(want) else f" ({len(got)} lines, not {len(want)})"))
print(f"PASS: all {len(want)} error names and strings are the H200's")
