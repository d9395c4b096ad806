#!/usr/bin/env python3
"""Builds tests/agreement/ops.cu with nvcc, runs it on cudalab's emulated CUDA runtime and compares
its output with the H200's (h200.txt) through compare.py. ctest runs it as `agreement: ...`.

usage: run_emulated.py --runtime DIR --build-dir DIR [--program NAME]
  --runtime DIR     the folder holding cudalab's libcudart.so.13 (build/cudart-emu)
  --build-dir DIR   where ops is built (kept: an unchanged ops.cu is not rebuilt) and its output
                    written (emulator.txt)
  --program NAME    ops (default: ops.cu against h200.txt), tensor_ops (tensor_ops.cu, the
                    tensor-core instructions, against tensor_h200.txt), texture_ops
                    (texture_ops.cu, arrays, textures and surfaces, against texture_h100.txt) or
                    cluster_ops (cluster_ops.cu, thread block clusters, against cluster_h100.txt)
Environment: NVCC (default $CUDA_HOME/bin/nvcc, then /usr/local/cuda/bin/nvcc, then PATH).
Operations listed in known_differences.txt (texture_ops: texture_known_differences.txt) may differ on up to the number of inputs given there
(the special-function instructions whose bits the hardware does not publish); any other
difference, or a listed operation that now agrees, fails.
Exit status: 0 every operation agrees (or differs only as listed), 1 otherwise."""
import argparse, hashlib, os, re, shutil, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--runtime", required=True)
parser.add_argument("--build-dir", required=True)
REFERENCES = {"ops": "h200.txt", "tensor_ops": "tensor_h200.txt", "texture_ops": "texture_h100.txt",
              "cluster_ops": "cluster_h100.txt"}
parser.add_argument("--program", default="ops", choices=sorted(REFERENCES))
a = parser.parse_args()
reference = os.path.join(here, REFERENCES[a.program])
known_file = {"ops": "known_differences.txt", "texture_ops": "texture_known_differences.txt"}.get(a.program)

nvcc = os.environ.get("NVCC") or next(
    (c for c in [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), "/usr/local/cuda/bin/nvcc"]
     if os.path.exists(c)), shutil.which("nvcc"))
if not nvcc:
    sys.exit("run_emulated.py: nvcc not found ($CUDA_HOME/bin, /usr/local/cuda/bin, PATH)")

os.makedirs(a.build_dir, exist_ok=True)
source = os.path.join(here, a.program + ".cu")
exe = os.path.join(a.build_dir, a.program)
# The reference was made with `nvcc -arch=sm_90`; -lineinfo lets the emulator name source lines.
cmd = [nvcc, "-cudart", "shared", "-lineinfo", "-arch=sm_90", "-o", exe, source]
if a.program == "cluster_ops":
    cmd.append("-lcuda")  # cuLaunchKernelEx (the emulated runtime's libcuda.so.1 at run time)
digest = hashlib.sha256((" ".join(cmd)).encode() + open(source, "rb").read()).hexdigest()
stamp = exe + ".sha256"
if not (os.path.exists(exe) and os.path.exists(stamp) and open(stamp).read() == digest):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print(" ".join(cmd))
        print(r.stdout + r.stderr)
        sys.exit("FAIL agreement: nvcc failed")
    open(stamp, "w").write(digest)

runtime = os.path.abspath(a.runtime)
env = dict(os.environ, LD_LIBRARY_PATH=runtime + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
           LD_PRELOAD=os.path.join(runtime, "libcudart.so.13"), CUDALAB_DEVICES="1", CUDALAB_LEAKS="0")
out = os.path.join(a.build_dir, "emulator.txt" if a.program == "ops" else a.program + "_emulator.txt")
start = time.time()
try:
    r = subprocess.run([exe, out], capture_output=True, text=True, env=env, timeout=600)
except subprocess.TimeoutExpired:
    sys.exit(f"FAIL agreement: {a.program} still running after 600 s")
print(r.stdout + r.stderr, end="")
if r.returncode:
    sys.exit(f"FAIL agreement: {a.program} exited with {r.returncode} after {time.time() - start:.1f} s")
r = subprocess.run([sys.executable, os.path.join(here, "compare.py"), reference, out],
                   capture_output=True, text=True)
print(r.stdout + r.stderr, end="")
if r.returncode not in (0, 1):
    sys.exit("FAIL agreement: compare.py could not read the outputs")

known = {}  # (tensor_ops.cu has none)
for line in open(os.path.join(here, known_file)) if known_file else []:
    if line.strip() and not line.startswith("#"):
        name, inputs, why = line.split(None, 2)
        known[name] = (int(inputs), why.strip())
# Cases the program writes that the reference does not hold yet (cluster_ops.cu's newer cases):
# said, not compared, until the reference is recorded again on a GPU.
def names(path):
    with open(path) as f:
        return [l.split()[0] for l in f if l.strip()]
unrecorded = [n for n in names(out) if n not in set(names(reference))]
if unrecorded:
    print(f"not compared (no GPU reference yet in {os.path.basename(reference)}): " + ", ".join(unrecorded))
differing = {}
for line in r.stdout.splitlines():
    m = re.match(r"(\S+) \(\S+\): (\d+) of \d+ differ", line)
    if m:
        differing[m.group(1)] = int(m.group(2))
    elif not line.endswith("operations agree with " + reference):
        print(f"FAIL agreement: {line}")  # missing operation or wrong count of values
        sys.exit(1)
problems = []
for name, count in differing.items():
    if name not in known:
        problems.append(f"{name} differs on {count} inputs")
    elif count > known[name][0]:
        problems.append(f"{name} differs on {count} inputs, known_differences.txt allows {known[name][0]}")
for name in known:
    if name not in differing:
        problems.append(f"{name} now agrees: delete its line from known_differences.txt")
for name, count in sorted(differing.items()):
    if name in known and not problems:
        print(f"known difference: {name} ({count} inputs): {known[name][1]}")
if problems:
    print("FAIL agreement: " + "; ".join(problems))
    sys.exit(1)
print(f"PASS agreement: {len(differing)} known differences, every other operation agrees")
