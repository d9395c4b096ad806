#!/usr/bin/env bash
# Builds every program listed in programs.toml with the toolkit's nvcc and runs it natively (on a
# real GPU, against NVIDIA's runtime), checking its exit code and output against the manifest.
# Prints PASS/FAIL per program and a summary; exits 1 if any program failed.
#
# Usage: tests/programs/run_native.sh [--build-only] [NAME...]
#   NAME...        only these programs (default: all)
#   --build-only   compile, do not run (for machines without a GPU)
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (default sm_90),
#   BUILD_DIR (default /tmp/cudalab-programs-native), LOG_DIR (each program's stdout/stderr;
#   default BUILD_DIR/logs), JOBS (parallel builds; default the number of cores).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z "${NVCC:-}" ]]; then
    if command -v nvcc >/dev/null; then NVCC=nvcc
    elif [[ -x /usr/local/cuda/bin/nvcc ]]; then NVCC=/usr/local/cuda/bin/nvcc
    else echo "run_native.sh: nvcc not found on PATH or at /usr/local/cuda/bin/nvcc; set NVCC" >&2; exit 2
    fi
fi
export NVCC HERE="$here"
exec python3 - "$@" <<'PY'
import concurrent.futures, os, re, subprocess, sys, time, tomllib

here = os.environ["HERE"]
nvcc = os.environ["NVCC"]
arch = os.environ.get("ARCH", "sm_90")
build_dir = os.environ.get("BUILD_DIR", "/tmp/cudalab-programs-native")
log_dir = os.environ.get("LOG_DIR", os.path.join(build_dir, "logs"))
jobs = int(os.environ.get("JOBS", os.cpu_count() or 2))
args = sys.argv[1:]
build_only = "--build-only" in args
names = [a for a in args if not a.startswith("--")]

with open(os.path.join(here, "programs.toml"), "rb") as f:
    programs = tomllib.load(f)["program"]
# Learners' mistakes check cudalab's own messages: the emulated runtime only.
programs = [p for p in programs if not p.get("emulator_only")]
if names:
    unknown = set(names) - {p["name"] for p in programs}
    if unknown:
        sys.exit(f"run_native.sh: no program named {', '.join(sorted(unknown))} in programs.toml")
    programs = [p for p in programs if p["name"] in names]
os.makedirs(build_dir, exist_ok=True)
os.makedirs(log_dir, exist_ok=True)

def build(p):
    exe = os.path.join(build_dir, p["name"])
    cmd = [nvcc, "-cudart", "shared", "-lineinfo", f"-arch={arch}", *p.get("nvcc_flags", []),
           "-o", exe, *[os.path.join(here, f) for f in p["files"]],
           *[f"-l{lib}" for lib in p.get("link_libs", [])]]
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return exe, r.returncode, " ".join(cmd) + "\n" + r.stdout + r.stderr, time.time() - t

print(f"building {len(programs)} programs with {nvcc} for {arch} ({jobs} at a time)", flush=True)
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    built = dict(zip([p["name"] for p in programs], pool.map(build, programs)))

results = []
for p in programs:
    name = p["name"]
    exe, rc, log, build_s = built[name]
    with open(os.path.join(log_dir, name + ".build.txt"), "w") as f:
        f.write(log)
    if rc != 0:
        results.append((name, False, f"build failed (exit {rc})", build_s, 0.0))
        print(f"FAIL {name}: build failed\n{log}", flush=True)
        continue
    if build_only:
        results.append((name, True, "built", build_s, 0.0))
        print(f"BUILT {name} ({build_s:.1f} s)", flush=True)
        continue
    t = time.time()
    try:
        r = subprocess.run([exe, *p.get("args", [])], capture_output=True, text=True,
                           timeout=p.get("timeout_s", 60), cwd=here)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
    run_s = time.time() - t
    with open(os.path.join(log_dir, name + ".stdout.txt"), "w") as f:
        f.write(out)
    with open(os.path.join(log_dir, name + ".stderr.txt"), "w") as f:
        f.write(err)
    problems = []
    if rc is None:
        problems.append(f"timed out after {p.get('timeout_s', 60)} s")
    elif rc != p.get("exit_code", 0):
        problems.append(f"exit code {rc}, expected {p.get('exit_code', 0)}")
    for stream, text in (("stdout", out), ("stderr", err)):
        lines = text.splitlines()
        for pat in p.get(stream + "_regex", []):
            if not any(re.search(pat, line) for line in lines):
                problems.append(f"no {stream} line matches {pat!r}")
    ok = not problems
    last = out.strip().splitlines()[-1] if out.strip() else "(no output)"
    results.append((name, ok, "; ".join(problems) or last, build_s, run_s))
    print(f"{'PASS' if ok else 'FAIL'} {name} ({run_s:.2f} s): {'; '.join(problems) or last}", flush=True)
    if not ok:
        print("  --- stdout (tail) ---\n  " + "\n  ".join(out.splitlines()[-15:]))
        print("  --- stderr (tail) ---\n  " + "\n  ".join(err.splitlines()[-15:]), flush=True)

passed = sum(1 for r in results if r[1])
print(f"\nsummary: {passed} of {len(results)} {'built' if build_only else 'passed'}")
for name, ok, what, build_s, run_s in results:
    if not ok:
        print(f"  FAIL {name}: {what}")
sys.exit(0 if passed == len(results) else 1)
PY
