#!/usr/bin/env python3
"""Builds one program of programs.toml with nvcc and runs it on cudalab's emulated CUDA runtime,
checking its exit code and output against the manifest. ctest runs it once per program.

Usage: run_emulated.py --runtime DIR --build-dir DIR NAME
       run_emulated.py --cudalab PATH --backend emu|gpu NAME
  --runtime DIR     the folder holding cudalab's libcudart.so.13 (build/cudart-emu)
  --build-dir DIR   where executables are built (kept: an unchanged program is not rebuilt)
  --cudalab PATH    instead: build and run it with `cudalab run --backend B` (on a GPU machine,
                    `--backend gpu` checks the same program on NVIDIA's runtime)
Environment: NVCC (default $CUDA_HOME/bin/nvcc, then /usr/local/cuda/bin/nvcc, then PATH).
Exit status: 0 pass, 1 fail."""
import argparse, hashlib, os, re, shutil, subprocess, sys, time, tomllib

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--runtime")
parser.add_argument("--build-dir")
parser.add_argument("--cudalab")
parser.add_argument("--backend", default="emu")
parser.add_argument("name")
a = parser.parse_args()

programs = {p["name"]: p for p in tomllib.load(open(os.path.join(here, "programs.toml"), "rb"))["program"]}
if a.name not in programs:
    sys.exit(f"run_emulated.py: no program {a.name!r} in programs.toml")
p = programs[a.name]

nvcc = os.environ.get("NVCC") or next(
    (c for c in [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), "/usr/local/cuda/bin/nvcc"]
     if os.path.exists(c)), shutil.which("nvcc"))
if not nvcc:
    sys.exit("run_emulated.py: nvcc not found ($CUDA_HOME/bin, /usr/local/cuda/bin, PATH)")

def check(r, took, how):
    problems = []
    if r.returncode != p.get("exit_code", 0):
        problems.append(f"exit code {r.returncode}, expected {p.get('exit_code', 0)}")
    for stream, text in (("stdout", r.stdout), ("stderr", r.stderr)):
        for rx in p.get(f"{stream}_regex", []):
            if not any(re.search(rx, line) for line in text.splitlines()):
                problems.append(f"no line of {stream} matches {rx!r}")
    print(r.stdout, end="")
    print(r.stderr, end="", file=sys.stderr)
    if problems:
        print(f"FAIL {a.name} ({took:.2f} s): " + "; ".join(problems))
        sys.exit(1)
    print(f"PASS {a.name} ({took:.2f} s {how})")
    sys.exit(0)

if a.cudalab:
    cmd = [a.cudalab, "run", "--backend", a.backend, "--time-limit", "600",
           *[os.path.join(here, f) for f in p["files"]], *p.get("nvcc_flags", []),
           *[f"-l{lib}" for lib in p.get("link_libs", [])]]
    if a.backend == "emu":
        cmd[2:2] = ["--devices", str(p.get("emu_devices", 1))]
    cmd += ["--", *p.get("args", [])]
    start = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=here, timeout=900, env=dict(os.environ, **p.get("emu_env", {})))
    check(r, time.time() - start, f"with cudalab run --backend {a.backend}")

if not a.runtime or not a.build_dir:
    sys.exit("run_emulated.py: give --runtime and --build-dir, or --cudalab")
os.makedirs(a.build_dir, exist_ok=True)
exe = os.path.join(a.build_dir, a.name)
sources = [os.path.join(here, f) for f in p["files"]]
# -arch=sm_90 keeps PTX beside the SASS, as a course's own Makefile would build it.
cmd = [nvcc, "-cudart", "shared", "-lineinfo", "-g", "-arch=sm_90", *p.get("nvcc_flags", []), "-o", exe, *sources,
       *[f"-l{lib}" for lib in p.get("link_libs", [])]]
digest = hashlib.sha256(" ".join(cmd).encode())
for f in sources + [os.path.join(here, "check.h")]:
    if os.path.exists(f):
        digest.update(open(f, "rb").read())
stamp = exe + ".sha256"
if not (os.path.exists(exe) and os.path.exists(stamp) and open(stamp).read() == digest.hexdigest()):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print(" ".join(cmd)); print(r.stdout + r.stderr)
        sys.exit(f"FAIL {a.name}: nvcc failed")
    open(stamp, "w").write(digest.hexdigest())

runtime = os.path.abspath(a.runtime)
env = dict(os.environ, LD_LIBRARY_PATH=runtime + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
           LD_PRELOAD=os.path.join(runtime, "libcudart.so.13"), CUDALAB_DEVICES=str(p.get("emu_devices", 1)),
           **p.get("emu_env", {}))
# Every program here orders its streams correctly: a race the runtime reports between streams
# (tests/programs/races/ holds the ones that must be reported) fails it.
import json, tempfile
result_dir = tempfile.mkdtemp()
env["CUDALAB_RESULT"] = os.path.join(result_dir, "result.json")
start = time.time()
try:
    r = subprocess.run([exe, *p.get("args", [])], capture_output=True, text=True, env=env, cwd=here, timeout=600)
except subprocess.TimeoutExpired:
    sys.exit(f"FAIL {a.name}: still running after 600 s")
took = time.time() - start
try:
    races = json.load(open(env["CUDALAB_RESULT"])).get("races", [])
except (OSError, ValueError):
    races = []
shutil.rmtree(result_dir, ignore_errors=True)
if races:
    print(r.stdout + r.stderr)
    sys.exit(f"FAIL {a.name}: the runtime reported a race between streams: {races[0]['message']}")
check(r, took, "on the emulated runtime")
