#!/usr/bin/env python3
"""The sandbox's hostile corpus: a submission attacking the grader from inside the sandbox, or
through nvcc, each attack its own ctest test (tests/CMakeLists.txt). The programs are in
tests/hostile/sandbox/ (attack.cu runs one attack per argument and prints "NAME: refused" or
"NAME: ALLOWED").

    run_sandbox.py --list              the case names, one per line
    run_sandbox.py CLI ROOT CASE       runs one case with the cudalab binary CLI from course ROOT

A case that needs what this machine lacks (nvcc, bubblewrap that can run, root to switch to an
unprivileged user) prints SKIPPED with the reason and passes. Run as root, each case also runs as
the unprivileged user 65534 (setpriv), so both ways are tried on CI (which is root).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "sandbox")
CASES = {}
NOBODY = 65534


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Skip(Exception):
    pass


class Run:
    """cudalab, as root or as 65534, in a folder of the case's own."""

    def __init__(self, cli, root, work, as_user):
        self.cli, self.root, self.work, self.as_user = cli, root, work, as_user
        self.home = os.path.join(work, "home")
        self.project = os.path.join(work, "project")
        os.makedirs(self.home)
        os.makedirs(self.project)
        # One cache per user next to the binary: the attack program is built once for every case.
        cache = os.path.join(os.path.dirname(cli), "hostile-sandbox-cache", "user" if as_user else "own")
        os.makedirs(cache, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TERM", "CUDA_HOME")}
        self.env.update(HOME=self.home, CUDALAB_CACHE_DIR=cache, NO_COLOR="1",
                        CUDALAB_STATE=os.path.join(work, "state", "progress.db"))
        # As root the program runs as 65534 and writes only where 65534 may (docs/grading.md): the
        # project folder is its.
        os.lchown(self.project, NOBODY, NOBODY)
        if as_user:
            for path in (work, cache):
                for d, dirs, files in os.walk(path):
                    for n in [d] + [os.path.join(d, f) for f in dirs + files]:
                        os.lchown(n, NOBODY, NOBODY)

    def __call__(self, *args, cwd=None, env=None, timeout=120):
        command = [self.cli, *args]
        if self.as_user:
            command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
        started = time.monotonic()
        p = subprocess.run(command, cwd=cwd or self.project, env=dict(self.env, **(env or {})),
                           capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        p.seconds = time.monotonic() - started
        p.out = p.stdout.decode("utf-8", "replace")
        p.err = p.stderr.decode("utf-8", "replace")
        p.both = p.out + p.err
        return p

    def program(self, name, into=None):
        """A copy of a corpus program in the project folder (readable by whoever runs)."""
        into = into or self.project
        os.makedirs(into, exist_ok=True)
        path = os.path.join(into, name)
        shutil.copy(os.path.join(PROGRAMS, name), path)
        if self.as_user:
            os.lchown(path, NOBODY, NOBODY)
        return path

    def attack(self, *args, limits=()):
        self.program("attack.cu")
        return self("run", "--sandbox", "--backend", "emu", *limits, "attack.cu", "--", *args)


def expect(p, code, *says, within=None, absent=()):
    assert p.returncode == code, f"exit {p.returncode}, expected {code}\n--- output\n{p.both[-3000:]}"
    for s in says:
        assert s in p.both, f"expected to see {s!r}\n--- output\n{p.both[-3000:]}"
    for s in absent:
        assert s not in p.both, f"must not see {s!r}\n--- output\n{p.both[-3000:]}"
    if within is not None:
        assert p.seconds < within, f"took {p.seconds:.1f} s, expected under {within} s"


def all_refused(p, *names):
    expect(p, 0, "allowed: 0", *[f"{n}: refused" for n in names], absent=("ALLOWED",))


# --- no privilege -----------------------------------------------------------------------------

@case
def no_capabilities_no_new_privileges(run):
    p = run.attack("caps")
    expect(p, 0, "uid=65534 gid=65534 euid=65534", "NoNewPrivs:\t1", "Seccomp:\t2")
    for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert f"{field}:\t0000000000000000" in p.out, p.out


@case
def mount_umount_remount(run):
    before = set(os.listdir("/usr"))
    all_refused(run.attack("mounts"), "umount /tmp", "mount tmpfs on /tmp", "remount / writable",
                "remount /usr writable", "bind / onto /tmp", "chroot", "create a file in /usr")
    assert set(os.listdir("/usr")) == before


@case
def core_pattern_for_writing(run):
    with open("/proc/sys/kernel/core_pattern") as f:
        before = f.read()
    all_refused(run.attack("core_pattern"), "open core_pattern for writing")
    with open("/proc/sys/kernel/core_pattern") as f:
        assert f.read() == before


@case
def ptrace_traceme_then_stop(run):
    # A run that stops itself is continued: it ends at once, not at the wall-clock limit.
    p = run.attack("ptrace_me", limits=("--time-limit", "30"))
    all_refused(p, "ptrace(PTRACE_TRACEME)")
    expect(p, 0, "continued after SIGSTOP", within=20)


@case
def ptrace_of_a_child_and_of_pid_one(run):
    all_refused(run.attack("ptrace_child"), "ptrace(PTRACE_ATTACH) of a child", "ptrace(PTRACE_SEIZE) of a child")
    all_refused(run.attack("ptrace_one"), "ptrace(1, 1)", "ptrace(PTRACE_ATTACH, 1)")


@case
def keyring(run):
    all_refused(run.attack("keyring"), "keyctl(KEYCTL_GET_KEYRING_ID)", "add_key", "request_key")


@case
def namespaces(run):
    all_refused(run.attack("namespaces"), "unshare(CLONE_NEWUSER)", "unshare(CLONE_NEWNS)",
                "clone(CLONE_NEWUSER)", "setns")


@case
def kernel_interfaces(run):
    all_refused(run.attack("kernel"), "bpf", "perf_event_open", "userfaultfd", "personality(ADDR_NO_RANDOMIZE)",
                "init_module", "kexec_load", "reboot", "open_by_handle_at", "io_uring_setup")


# --- only what is needed is visible -----------------------------------------------------------

@case
def nothing_of_the_machine_visible(run):
    secret = os.path.join(run.home, "secret.txt")
    with open(secret, "w") as f:
        f.write("grader-secret-123\n")
    course_secret = os.path.join(run.root, "solutions", "02b-host-program.cu")
    for path in ("/etc/shadow", secret, course_secret, "/root/.bashrc", "/etc/hostname"):
        p = run.attack("read", path)
        expect(p, 1, "cannot read", absent=("grader-secret-123", "cudaMalloc"))
    p = run.attack("ls", "/")
    expect(p, 0)
    shown = {line[6:] for line in p.out.splitlines() if line.startswith("entry ")} - {".", ".."}
    allowed = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "dev", "tmp", "cudalab"}
    # Besides the system, only the folders that lead to the program, the runtime and the project.
    for top in shown - allowed:
        assert any(p_.startswith("/" + top + "/") for p_ in (run.project, run.cli, run.work)), (top, shown)
    p = run.attack("ls", "/etc")
    assert "shadow" not in p.out and "ssh" not in p.out, p.out


@case
def home_folder_as_the_current_folder(run):
    ssh = os.path.join(run.home, ".ssh")
    os.makedirs(ssh)
    keys = os.path.join(ssh, "authorized_keys")
    with open(keys, "w") as f:
        f.write("ssh-ed25519 AAAA grader\n")
    run.program("attack.cu", into=run.home)
    for cwd in (run.home, os.path.dirname(run.home)):
        p = run("run", "--sandbox", "--backend", "emu", os.path.join(run.home, "attack.cu"), "--",
                "append", keys, "ssh-ed25519 BBBB student", cwd=cwd)
        expect(p, 2, "--sandbox", "home folder", absent=("appended",))
    with open(keys) as f:
        assert f.read() == "ssh-ed25519 AAAA grader\n"


@case
def environment_from_an_allow_list(run):
    secrets = {"CUDALAB_API_KEY": "s3cr3t-1", "CUDA_TOKEN": "s3cr3t-2", "NVIDIA_API_KEY": "s3cr3t-3",
               "NVCC_APPEND_FLAGS": "-DSECRET=s3cr3t-4", "GITHUB_TOKEN": "s3cr3t-5", "AWS_SECRET_ACCESS_KEY": "s3cr3t-6"}
    run.program("attack.cu")
    p = run("run", "--sandbox", "--backend", "emu", "attack.cu", "--", "env", env=secrets)
    # The runtime's settings and record paths are the device process's: the program sees only
    # the descriptor of its connection.
    expect(p, 0, "env HOME=/tmp",
           absent=("s3cr3t", "env CUDALAB_RESULT=", "env CUDALAB_TIMELINE="))
    p = run("run", "--sandbox", "--backend", "emu", "--json", "attack.cu", "--", "launch", env=secrets)
    expect(p, 0)
    # The device still gets the settings the runner gives it (its result file came back).
    assert json.loads(p.stdout)["run"]["runtime"]["kernels"][0]["launches"] == 1


# --- sizes ------------------------------------------------------------------------------------

@case
def tmp_filled_under_a_memory_limit(run):
    p = run.attack("write", "/tmp/big", "1500", limits=("--memory-limit", "200M"))
    expect(p, 1, "wrote 200 MB of 1500", "No space left", within=60)


@case
def work_folder_filled(run):
    p = run.attack("write", "big.bin", "1500", limits=("--file-size-limit", "64M"))
    expect(p, 120, "file-size limit of 64 MiB", within=60)
    assert os.path.getsize(os.path.join(run.project, "big.bin")) <= 64 << 20


@case
def printf_flood(run):
    # A full printf buffer loses output on a GPU; the kernel does not fault (no sticky error, every
    # store done), and the advice names what a program can change, not a flag of another command.
    run.program("printf_flood.cu")
    p = run("run", "--sandbox", "--backend", "emu", "printf_flood.cu", "--", "8192")
    expect(p, 0, "sync: cudaSuccess", "last: cudaSuccess", "stores: 0 of 4096 wrong", "(8192 bytes)",
           "bytes of its output were lost", "cudaDeviceSetLimit(cudaLimitPrintfFifoSize, bytes)",
           absent=("IllegalAddress", "--printf-limit", "illegal"))
    kept = p.out.count("of the flood says hello")
    assert 0 < kept <= 8192 // 36, kept
    # The default buffer, 1 MB, overflowed by 32768 threads.
    p = run("run", "--sandbox", "--backend", "emu", "printf_flood.cu", "--", "0", "32768")
    expect(p, 0, "sync: cudaSuccess", "stores: 0 of 32768 wrong", "(1048576 bytes)", "were lost",
           absent=("IllegalAddress", "--printf-limit"))


# --- nvcc: the include rule, the limits, names ------------------------------------------------

@case
def include_etc_shadow(run):
    source = run.program("include_etc_shadow.cu")
    p = run("check", "02b-host-program", "--source", source, "--backend", "emu", "--format", "json", cwd=run.root)
    expect(p, 2, "include_etc_shadow.cu:2:1", "absolute path", absent=("root:",))
    json.loads(p.stdout)
    expect(run("run", "--sandbox", "include_etc_shadow.cu"), 2, "include_etc_shadow.cu:2:1", absent=("root:",))


@case
def include_dev_zero(run):
    source = run.program("include_dev_zero.cu")
    p = run("check", "02b-host-program", "--source", source, "--backend", "emu", cwd=run.root)
    expect(p, 2, "include_dev_zero.cu:2:1", "absolute path", within=30)
    expect(run("run", "--sandbox", "include_dev_zero.cu"), 2, "absolute path", within=30)


@case
def include_solution_by_absolute_path(run):
    source = os.path.join(run.project, "steal.cu")
    with open(source, "w") as f:
        f.write(f'#include "{run.root}/solutions/02b-host-program.cu"\n')
    p = run("check", "02b-host-program", "--source", source, "--backend", "emu", cwd=run.root)
    expect(p, 2, "steal.cu:1:1", "absolute path", absent=("passed",))


@case
def include_through_a_local_header(run):
    run.program("leaky_header.h")
    source = run.program("include_through_header.cu")
    p = run("check", "02b-host-program", "--source", source, "--backend", "emu", cwd=run.root)
    expect(p, 2, "/etc/shadow", absent=("root:",), within=60)


@case
def compile_time_limit_of_a_program_lesson(run):
    source = run.program("slow_compile.cu")
    p = run("check", "02b-host-program", "--source", source, "--backend", "emu", "--compile-time-limit", "2",
            cwd=run.root)
    expect(p, 2, "compile time limit reached", "after 2 s", within=30)


@case
def compile_time_limit_with_backend_auto(run):
    source = os.path.join(run.work, "macro_bomb.cu")
    shutil.copy(os.path.join(HERE, "kernels", "macro_bomb.cu"), source)
    p = run("check", "01-threads", "--source", source, "--backend", "auto", "--compile-time-limit", "1",
            cwd=run.root)
    expect(p, 2, "compile time limit reached", within=30)


@case
def shell_in_file_and_folder_names(run):
    folder = os.path.join(run.work, "dir$(echo $((6*7))88 >&2)")
    source = run.program("attack.cu", into=folder)
    name = os.path.join(folder, "a$(echo $((6*7))77 >&2).cu")
    os.rename(source, name)
    solution = os.path.join(folder, "b$(echo $((6*7))66 >&2).cu")
    shutil.copy(os.path.join(run.root, "solutions", "02b-host-program.cu"), solution)
    if run.as_user:
        os.lchown(solution, NOBODY, NOBODY)
    outputs = []
    for extra in ((), ("--no-sandbox",)):
        p = run("check", "02b-host-program", "--source", solution, "--backend", "emu", *extra, cwd=run.root)
        expect(p, 0, "lesson complete")
        outputs.append(p.both)
    for extra in (("--sandbox",), ()):
        p = run("run", "--rebuild", "--backend", "emu", *extra, os.path.basename(name), "--", "launch", cwd=folder)
        expect(p, 0, "launch: no error")
        outputs.append(p.both)
    for text in outputs:
        for number in ("4277", "4288", "4266"):
            assert number not in text, text[-2000:]


@case
def huge_sparse_header(run):
    # A 1 GB sparse header beside the submission: refused before anything reads it whole (the
    # build hashes what a source includes), the cap named; no memory or time spent on it.
    big = os.path.join(run.project, "big.h")
    with open(big, "wb") as f:
        f.truncate(1 << 30)
    source = os.path.join(run.project, "uses_big.cu")
    with open(source, "w") as f:
        f.write(open(os.path.join(run.root, "solutions", "02b-host-program.cu")).read() + '#include "big.h"\n')
    for path in (big, source):
        if run.as_user:
            os.lchown(path, NOBODY, NOBODY)
    p = run("run", "--sandbox", "--backend", "emu", "uses_big.cu")
    expect(p, 2, "big.h", "1073741824 bytes", "more than the 16 MB a source or header may have", within=10)
    p = run("check", "02b-host-program", "--source", source, "--backend", "emu", cwd=run.root)
    expect(p, 2, "big.h", "16 MB", absent=("lesson complete",), within=10)


@case
def newline_in_file_names(run):
    # A submission (or a reference solution) saved under a name holding a newline compiles, with
    # or without the sandbox; its messages name it on one line (sol\nution.cu), so every
    # "file:line: error" of nvcc's stays one line.
    solution = os.path.join(run.project, "sol\nution.cu")
    shutil.copy(os.path.join(run.root, "solutions", "02b-host-program.cu"), solution)
    bad = os.path.join(run.project, "bad\nname.cu")
    with open(bad, "w") as f:
        f.write("int main() { return undefined_thing; }\n")
    if run.as_user:
        os.lchown(solution, NOBODY, NOBODY)
        os.lchown(bad, NOBODY, NOBODY)
    for extra in ((), ("--no-sandbox",)):
        p = run("check", "02b-host-program", "--source", solution, "--backend", "emu", *extra, cwd=run.root)
        expect(p, 0, "lesson complete", "sol\\nution.cu")
        p = run("check", "02b-host-program", "--source", bad, "--backend", "emu", "--format", "json", *extra,
                cwd=run.root)
        expect(p, 2)
        d = json.loads(p.stdout)["diagnostics"][0]
        assert d["file"].endswith("bad\\nname.cu") and d["line"] == 1, d
    p = run("run", "--sandbox", "--backend", "emu", "bad\nname.cu")
    expect(p, 2, "bad\\nname.cu:1: error: identifier \"undefined_thing\"")
    assert not any(line.startswith("name.cu") for line in p.both.splitlines()), p.both


# --- no sandbox: refused, unless trusted --------------------------------------------------------

@case
def no_sandbox_refused_unless_trusted(run):
    missing = {"CUDALAB_BWRAP": "/nonexistent/bwrap"}
    p = run("check", "02b-host-program", "--solution", "--backend", "emu", cwd=run.root, env=missing)
    expect(p, 2, "sandbox", "bwrap", "--no-sandbox", absent=("lesson complete",))
    p = run("check", "02b-host-program", "--solution", "--backend", "emu", "--no-sandbox", cwd=run.root, env=missing)
    expect(p, 0, "lesson complete")
    run.program("attack.cu")
    expect(run("run", "--sandbox", "attack.cu", "--", "caps", env=missing), 2, "bwrap")


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(argv) != 4 or argv[3] not in CASES:
        print(__doc__, file=sys.stderr)
        return 2
    cli, root, name = os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3]
    if not shutil.which("nvcc") and not os.path.exists(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
        print(f"SKIPPED: {name}: no nvcc on this machine")
        return 0
    ways = [False]
    if os.geteuid() == 0:
        if shutil.which("setpriv"):
            ways.append(True)
        else:
            print(f"SKIPPED as the unprivileged user: no setpriv (util-linux)")
    else:
        print(f"SKIPPED as root: not running as root (this run is the unprivileged one)")
    for as_user in ways:
        who = "as the unprivileged user 65534" if as_user else ("as root" if os.geteuid() == 0 else "as this user")
        with tempfile.TemporaryDirectory(prefix="cudalab-sandbox-") as work:
            os.chmod(work, 0o755)
            run = Run(cli, root, work, as_user)
            probe = run("run", "--sandbox", "--exe", "/bin/true")
            if probe.returncode != 0 and name != "no_sandbox_refused_unless_trusted":
                print(f"SKIPPED: {name} {who}: the sandbox cannot run here: {probe.err.strip()[:400]}")
                continue
            CASES[name](run)
            print(f"{name} {who}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
