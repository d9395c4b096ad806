#!/usr/bin/env python3
"""The race corpus between streams: each program here is built twice with nvcc, as written (it
races, or leaves a copy to the host unwaited) and with -DFIXED (its clean twin), and run on
cudalab's emulated runtime. The racy build must report what its `// expect: KIND A B` line says,
naming the lines marked `// A` and `// B` (the first and the second operation); the fixed build
must report nothing. Both must exit 0.

Usage: run_races.py --runtime DIR --build-dir DIR NAME.cu
Environment: NVCC (default $CUDA_HOME/bin/nvcc, then /usr/local/cuda/bin/nvcc, then PATH).
Exit status: 0 pass, 1 fail."""
import argparse, hashlib, json, os, re, shutil, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--runtime", required=True)
parser.add_argument("--build-dir", required=True)
parser.add_argument("source")
a = parser.parse_args()

nvcc = os.environ.get("NVCC") or next(
    (c for c in [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), "/usr/local/cuda/bin/nvcc"]
     if os.path.exists(c)), shutil.which("nvcc"))
if not nvcc:
    sys.exit("run_races.py: nvcc not found")
source = os.path.join(here, a.source)
text = open(source).read().splitlines()
expect = next((l.split("expect:", 1)[1].split() for l in text if "// expect:" in l), None)
if not expect:
    sys.exit(f"run_races.py: {a.source} has no '// expect: KIND A B' line")
kind, marks = expect[0], expect[1:]
lines = {m: {i + 1 for i, l in enumerate(text) if re.search(r"//( [A-Z])* " + m + r"\b", l)} for m in set(marks)}
name = os.path.splitext(os.path.basename(a.source))[0]
os.makedirs(a.build_dir, exist_ok=True)
runtime = os.path.abspath(a.runtime)
failures = []

def build_and_run(fixed):
    exe = os.path.join(a.build_dir, name + ("_fixed" if fixed else ""))
    cmd = [nvcc, "-cudart", "shared", "-lineinfo", "-g", "-arch=sm_90", *(["-DFIXED"] if fixed else []),
           "-o", exe, source]
    digest = hashlib.sha256((" ".join(cmd) + open(source).read() + open(os.path.join(here, "common.h")).read()).encode()).hexdigest()
    if not (os.path.exists(exe) and os.path.exists(exe + ".sha256") and open(exe + ".sha256").read() == digest):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"FAIL {name}: nvcc failed:\n{r.stdout}{r.stderr}")
        open(exe + ".sha256", "w").write(digest)
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "result.json")
        env = dict(os.environ, LD_LIBRARY_PATH=runtime, LD_PRELOAD=os.path.join(runtime, "libcudart.so.13"),
                   CUDALAB_RESULT=result)
        r = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=300)
        print(f"--- {name}{' -DFIXED' if fixed else ''}: exit {r.returncode}")
        print(r.stdout + r.stderr, end="")
        if r.returncode:
            failures.append(f"{'fixed' if fixed else 'racy'} build exited {r.returncode}")
        return json.load(open(result)) if os.path.exists(result) else None

def line_of(site):
    m = re.search(r":(\d+)$", site or "")
    return int(m.group(1)) if m else None

racy = build_and_run(False)
if racy is None:
    failures.append("the racy build wrote no result")
else:
    races = racy.get("races", [])
    want_first = lines.get(marks[0], set()) if marks else set()
    want_second = lines.get(marks[1], set()) if len(marks) > 1 else None
    # Two unordered operations may be found in either order (a graph's nodes run in any order
    # their edges allow): a write and a read reported the other way round is the same race.
    swapped = {"write-read": "read-write", "read-write": "write-read"}
    def matches(r, k, first, second):
        return r["kind"] == k and line_of(r["first_site"]) in first and \
            (second is None or line_of(r["second_site"]) in second)
    found = [r for r in races if matches(r, kind, want_first, want_second) or
             (kind in swapped and want_second is not None and matches(r, swapped[kind], want_second, want_first))]
    if not found:
        failures.append(f"expected a {kind} race between lines {sorted(want_first)} and "
                        f"{sorted(want_second) if want_second is not None else '-'}, got: " +
                        json.dumps([(r['kind'], r['first_site'], r['second_site']) for r in races]))
fixed = build_and_run(True)
if fixed is None:
    failures.append("the fixed build wrote no result")
elif fixed.get("races_total", 0):
    failures.append("the fixed build reported: " + "; ".join(r["message"] for r in fixed.get("races", [])))
if failures:
    print(f"FAIL {name}: " + "; ".join(failures))
    sys.exit(1)
print(f"PASS {name}: the race is reported with both lines, its fixed twin is clean")
