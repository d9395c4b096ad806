#!/usr/bin/env python3
"""The hostile corpus: every way a submission (or a grader's command line) tried to hurt the grader
in issue 13, with the outcome it must have: the exit code, the limit or reason named, and reports
that parse in every format. ctest runs each case as its own test (tests/CMakeLists.txt):

    run_corpus.py --list                 the case names, one per line
    run_corpus.py CLI ROOT CASE          runs one case with the cudalab binary CLI from course ROOT

Limits are set small here so that the whole corpus stays within a few seconds per case.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels")
PROGRAMS = os.path.join(HERE, "programs")
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Run:
    def __init__(self, cli, root, work):
        self.cli, self.root, self.work = cli, root, work
        self.env = dict(os.environ, CUDALAB_STATE=os.path.join(work, "state", "progress.db"), NO_COLOR="1")

    def __call__(self, *args, timeout=60, stdin=None):
        started = time.monotonic()
        p = subprocess.run([self.cli, *args], cwd=self.root, env=self.env, capture_output=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        p.seconds = time.monotonic() - started
        p.out = p.stdout.decode("utf-8", "replace")
        p.err = p.stderr.decode("utf-8", "replace")
        return p

    def kernel(self, name, rename=None):
        """A copy of a corpus kernel in the case's folder (with @ROOT@ filled in)."""
        with open(os.path.join(KERNELS, name), "rb") as f:
            text = f.read().replace(b"@ROOT@", self.root.encode())
        path = os.path.join(self.work, rename or name)
        with open(path, "wb") as f:
            f.write(text)
        return path


    def program(self, name, **fill):
        """A copy of a corpus program (lesson 02b's) in the case's folder, @KEY@ filled in."""
        with open(os.path.join(PROGRAMS, name), "rb") as f:
            text = f.read()
        for key, value in fill.items():
            text = text.replace(b"@" + key.encode() + b"@", value.encode())
        path = os.path.join(self.work, name)
        with open(path, "wb") as f:
            f.write(text)
        return path


def expect(p, code, *says, within=None):
    both = p.out + p.err
    assert p.returncode == code, f"exit {p.returncode}, expected {code}\n--- stdout\n{p.out[-3000:]}\n--- stderr\n{p.err[-3000:]}"
    for s in says:
        assert s in both, f"expected to see {s!r}\n--- output\n{both[-3000:]}"
    if within is not None:
        assert p.seconds < within, f"took {p.seconds:.1f} s, expected under {within} s"


def parses(run, lesson, source, code, *says, extra=()):
    """The check's report in JSON, Gradescope and JUnit: each parses, each exits `code`."""
    for fmt in ("json", "gradescope", "junit"):
        p = run("check", lesson, "--source", source, "--backend", "emu", "--format", fmt, *extra)
        expect(p, code)
        if fmt == "junit":
            ET.fromstring(p.stdout)
        else:
            json.loads(p.stdout.decode("utf-8"))  # strict: the bytes must be valid UTF-8
        for s in says if fmt == "json" else ():
            assert s in p.out, f"{fmt} report does not say {s!r}:\n{p.out[-3000:]}"


# --- compile: limits and the jail ------------------------------------------------------------

@case
def compile_template_explosion(run):
    p = run("exec", run.kernel("template_bomb.cu"), "--kernel", "k", "--grid", "1", "--block", "1",
            "--arg", "i32[1]:zeros", "--compile-memory-limit", "256", "--compile-time-limit", "20")
    expect(p, 2, "compile memory limit reached", "256 MB", within=20)


@case
def compile_macro_explosion(run):
    p = run("exec", run.kernel("macro_bomb.cu"), "--kernel", "k", "--grid", "1", "--block", "1",
            "--arg", "i32[1]:zeros", "--compile-time-limit", "1")
    expect(p, 2, "compile time limit reached", "after 1 s", within=10)


@case
def compile_limit_in_every_report(run):
    parses(run, "02-vector-add", run.kernel("macro_bomb.cu"), 2, "compile time limit reached",
           extra=("--compile-time-limit", "1"))


def include_case(name, *says):
    def body(run):
        source = run.kernel(f"include_{name}.cu")
        for fmt in ("gradescope", "json", "junit", "text"):
            p = run("check", "01-threads", "--source", source, "--backend", "emu", "--format", fmt)
            expect(p, 2, f"include_{name}.cu:", "not allowed" if "macro" not in name else "macro", *says)
            both = p.out + p.err
            assert "root:" not in both and "PATH=" not in both and "__global__ void" not in both, both[-2000:]
            if fmt == "junit":
                ET.fromstring(p.stdout)
            elif fmt != "text":
                json.loads(p.stdout.decode("utf-8"))
    body.__name__ = f"include_{name}"
    case(body)


include_case("etc_passwd", ":2:1:", "absolute path")
include_case("proc_environ", ":2:1:", "absolute path")
include_case("etc_shadow", ":2:1:", "absolute path")
include_case("solutions_relative", ":2:1:", "outside its folder")
include_case("solutions_absolute", ":2:1:", "absolute path")
include_case("has_include_probe", ":2:5:", "__has_include")
include_case("macro_include", ":3:1:")


@case
def file_name_with_quote_and_latin1(run):
    name = "sub\"mission \xe9.cu".encode("latin-1").decode("utf-8", "surrogateescape")
    shutil.copy(os.path.join(run.root, "solutions", "02-vector-add.cu"), os.path.join(run.work, name))
    parses(run, "02-vector-add", os.path.join(run.work, name), 0, '"passed": true')


@case
def source_that_is_not_a_regular_file(run):
    fifo = os.path.join(run.work, "fifo.cu")
    os.mkfifo(fifo)
    link = os.path.join(run.work, "passwd.cu")
    os.symlink("/etc/passwd", link)
    expect(run("check", "01-threads", "--source", fifo, "--backend", "emu", timeout=20), 2, "not a regular file")
    p = run("check", "01-threads", "--source", link, "--backend", "emu", "--format", "gradescope")
    expect(p, 2, "a system file")
    assert "root:" not in p.out + p.err


@case
def exercise_linked_out_of_the_course(run):
    course = os.path.join(run.work, "course")
    for folder in ("lessons", "exercises", "solutions"):
        shutil.copytree(os.path.join(run.root, folder), os.path.join(course, folder))
    os.remove(os.path.join(course, "exercises", "01-threads.cu"))
    os.symlink("/etc/passwd", os.path.join(course, "exercises", "01-threads.cu"))
    run.env["CUDALAB_ROOT"] = course
    p = run("check", "01-threads", "--backend", "emu", "--format", "json")
    expect(p, 2, "outside the course")
    assert "root:" not in p.out + p.err
    json.loads(p.stdout)


# --- emulator limits -------------------------------------------------------------------------

@case
def deep_recursion_with_large_frames(run):
    p = run("exec", run.kernel("deep_recursion.cu"), "--kernel", "k", "--grid", "1", "--block", "256",
            "--arg", "i32[256]:zeros")
    expect(p, 1, "local memory limit reached", "512 KB", within=20)
    parses(run, "02-vector-add", run.kernel("deep_recursion_02.cu"), 1, "local memory limit reached")


@case
def printf_flood_in_a_correct_kernel(run):
    parses(run, "02-vector-add", run.kernel("printf_flood_02.cu"), 1, "printf output limit reached")
    p = run("exec", run.kernel("printf_flood.cu"), "--kernel", "k", "--grid", "4", "--block", "256",
            "--arg", "f32[1024]:zeros", "--arg", "i32:1024", "--printf-limit", "64")
    expect(p, 1, "printf output limit reached", "65536 bytes")
    assert len(p.stdout) < 2 << 20


@case
def printf_flood_in_one_call(run):
    p = run("exec", run.kernel("printf_one_call.cu"), "--kernel", "k", "--grid", "1", "--block", "1024", "--backend", "emu")
    expect(p, 1, "printf output limit reached", within=10)
    assert len(p.stdout) < 3 << 20


@case
def eight_1gb_device_arrays(run):
    p = run("exec", run.kernel("huge_globals.cu"), "--kernel", "k", "--grid", "1", "--block", "1", "--arg", "i32[8]:zeros")
    expect(p, 1, "memory limit reached", "2048 MB", within=10)
    parses(run, "02-vector-add", run.kernel("huge_globals_02.cu"), 1, "memory limit reached")


@case
def buffer_beyond_the_memory_limit(run):
    p = run("exec", run.kernel("empty.cu"), "--kernel", "k", "--grid", "1", "--block", "1", "--arg", "f32[2147483648]:zeros")
    expect(p, 2, "emulator memory limit is 2048 MB", "--memory-limit", within=5)


@case
def empty_kernel_on_the_largest_grid(run):
    p = run("exec", run.kernel("empty.cu"), "--kernel", "k", "--grid", "2147483647", "--block", "1")
    expect(p, 1, "instruction budget exhausted", "2147483647 blocks", within=10)


@case
def grid_product_that_wraps_32_bits(run):
    p = run("exec", run.kernel("empty.cu"), "--kernel", "k", "--grid", "65536,32768,2", "--block", "1")
    expect(p, 1, "4294967296 blocks")


@case
def block_product_that_wraps_64_bits(run):
    p = run("exec", run.kernel("empty.cu"), "--kernel", "k", "--grid", "1", "--block", "1073741824,268435456,64")
    expect(p, 2, "--block", "out of range")


@case
def budget_checked_in_short_blocks(run):
    p = run("exec", run.kernel("empty.cu"), "--kernel", "k", "--grid", "5000", "--block", "1024", "--budget", "10000", "--json")
    expect(p, 1)
    j = json.loads(p.stdout)
    assert j["status"] == "fault" and "instruction budget exhausted" in j["diagnostics"][0]["message"], j
    assert j["stats"]["warp_instructions"] < 10000 + 2 * 32 * 1000, j["stats"]


@case
def wall_clock_limit(run):
    p = run("exec", run.kernel("spin.cu"), "--kernel", "k", "--grid", "64", "--block", "256", "--arg", "i32[8]:zeros",
            "--budget", "1000000000000", "--time-limit", "1")
    expect(p, 1, "time limit reached", within=10)


# --- reports that survive any bytes --------------------------------------------------------

@case
def shared_atomic_at_a_negative_index(run):
    # Issue 23: lesson 10's shared histogram counted at bins[-1..-5]; the -1 wrapped round the
    # bounds check and the atomic wrote into the grader's heap ("double free or corruption").
    parses(run, "10-histogram", run.kernel("shared_atomic_negative.cu"), 1,
           "out-of-bounds atomic in shared memory", "bytes before its start")


@case
def latin1_comment_in_a_faulting_kernel(run):
    parses(run, "02-vector-add", run.kernel("latin1_fault_02.cu"), 1, "out-of-bounds", "\ufffd")


@case
def exec_json_with_device_printf(run):
    p = run("exec", run.kernel("printf_json.cu"), "--kernel", "k", "--grid", "1", "--block", "4", "--arg", "i32[4]:zeros", "--json")
    expect(p, 0)
    j = json.loads(p.stdout)
    assert j["status"] == "ok" and j["printf"].count('says "hi" {') == 4, j


# --- arguments parsed strictly ---------------------------------------------------------------

@case
def lesson_number_out_of_range(run):
    for args in (["check", "99999999999999999999"], ["hint", "99999999999999999999"], ["show", "99999999999999999999"],
                 ["learn", "99999999999999999999"], ["hint", "01-threads", "99999999999999999999"],
                 ["hint", "01-threads", "-1"]):
        p = run(*args)
        expect(p, 2)
        assert "terminate" not in p.err and "stoi" not in p.err, p.err


@case
def negative_budget(run):
    expect(run("check", "01-threads", "--budget", "-1"), 2, "--budget")
    expect(run("exec", run.kernel("empty.cu"), "--kernel", "k", "--grid", "1", "--block", "1", "--budget", "-1"), 2, "--budget")
    expect(run("check", "01-threads", "--seed", "-3"), 2, "--seed")
    expect(run("check", "01-threads", "--memory-limit", "0"), 2, "--memory-limit")


@case
def sizes_that_overflow(run):
    k = run.kernel("empty.cu")
    for spec, says in (("f32[1e12]:zeros", "element count"), ("f32[4611686018427387905]:zeros", "out of range"),
                       ("i32:4294967296", "out of range"), ("u32:-1", "not a whole number"),
                       ("f32:1e39", "out of range"), ("i64:12abc", "not a whole number")):
        p = run("exec", k, "--kernel", "k", "--grid", "1", "--block", "1", "--arg", spec)
        expect(p, 2, says, within=5)
    expect(run("exec", k, "--kernel", "k", "--grid", "1", "--block", "1", "--shared", "99999999999"), 2, "--shared")
    expect(run("exec", k, "--kernel", "k", "--grid", "1,65536", "--block", "1"), 2, "--grid")


@case
def argument_files_checked_before_reading(run):
    k = run.kernel("empty.cu")
    for source, says in (("/dev/zero", "not a regular file"), (run.work, "not a regular file"),
                         (os.path.join(run.work, "missing.bin"), "no such file")):
        p = run("exec", k, "--kernel", "k", "--grid", "1", "--block", "1", "--arg", f"f32[4]:file:{source}")
        expect(p, 2, says, within=5)
    small = os.path.join(run.work, "small.bin")
    with open(small, "wb") as f:
        f.write(b"\0" * 12)
    expect(run("exec", k, "--kernel", "k", "--grid", "1", "--block", "1", "--arg", f"f32[4]:file:{small}"), 2, "holds 12 bytes")


@case
def output_paths_checked_before_the_run(run):
    k = run.kernel("printf_json.cu")
    regular = os.path.join(run.work, "a_file")
    open(regular, "w").close()
    base = ["exec", k, "--kernel", "k", "--grid", "1", "--block", "4", "--arg", "i32[4]:zeros"]
    p = run(*base, "--out", regular)
    expect(p, 2, "not a folder")
    assert "thread 0" not in p.out  # refused before the run
    expect(run(*base, "--out", os.path.join(regular, "sub")), 2, "--out")
    expect(run(*base, "--trace", os.path.join(run.work, "no", "such", "dir", "t.trace")), 2, "--trace")
    expect(run(*base, "--trace", run.work), 2, "not a regular file")
    out = os.path.join(run.work, "out")
    expect(run(*base, "--out", out), 0)
    assert os.path.getsize(os.path.join(out, "arg0.bin")) == 16


@case
def command_line_fuzz(run):
    """Random numbers, sizes and specs on every flag: always exit 0, 1 or 2 with a message, never a
    signal, an uncaught exception or a long run."""
    import random
    rng = random.Random(1313)
    k = run.kernel("empty.cu")
    numbers = ["0", "1", "-1", "+5", "1e3", "0x10", "99999999999999999999", "18446744073709551616", "4294967296",
               "2147483648", "65536", "1,1,1", "1,,1", ",", "", " 7", "7 ", "nan", "inf", "-0", "1.5", "\xff", "1,2,3,4"]
    types = ["i32", "u32", "i64", "u64", "f32", "f64", "f16", "", "i32[", "f32[]"]
    for _ in range(60):
        n = lambda: rng.choice(numbers)
        spec = rng.choice(types) + rng.choice(["", f"[{n()}]"]) + rng.choice([":", ""]) + rng.choice(
            [n(), "zeros", "iota", "file:/dev/null", "file:", "file:" + run.work])
        args = ["exec", k, "--kernel", rng.choice(["k", "nope", ""]), "--grid", n(), "--block", n(), "--arg", spec,
                rng.choice(["--budget", "--memory-limit", "--printf-limit", "--time-limit", "--shared",
                            "--compile-time-limit", "--compile-memory-limit"]), n()]
        p = run(*args, timeout=30)
        assert p.returncode in (0, 1, 2), (args, p.returncode, p.err[-500:])
        assert "terminate called" not in p.err and "Aborted" not in p.err, (args, p.err[-500:])
        if p.returncode == 2:
            assert p.err.strip(), (args, "exit 2 without a message")
    for _ in range(20):
        args = [rng.choice(["check", "hint", "show", "learn"]), rng.choice(numbers + ["01-threads", "all", "../x"])]
        if args[0] == "check":
            args += [rng.choice(["--seed", "--budget", "--format", "--backend"]), rng.choice(numbers + ["json", "emu"])]
        p = run(*args, timeout=60)
        assert p.returncode in (0, 1, 2), (args, p.returncode, p.err[-500:])
        assert "terminate called" not in p.err, (args, p.err[-500:])


# --- the files a program leaves (issue 23): program lesson 02b, built with nvcc --------------

def have_nvcc():
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return shutil.which("nvcc") or os.path.exists(os.path.join(cuda, "bin", "nvcc"))


def program_check(run, source, fmt="json"):
    return run("check", "02b-host-program", "--source", source, "--backend", "emu", "--format", fmt,
               "--time-limit", "20", timeout=240)


@case
def program_leaves_a_fifo_and_links(run):
    """A FIFO for the result and a link to the grader's file for the timeline, if it can find them
    (it cannot: the device process writes them where the program never sees), links for in.bin and
    out.bin: the check ends at once, finds no out.bin, and the file the links point at is
    untouched."""
    if not have_nvcc():
        print("SKIPPED: no nvcc")
        return
    victim = os.path.join(run.work, "run_autograder")
    with open(victim, "w") as f:
        f.write("#!/bin/sh\necho original\n")
    os.chmod(victim, 0o700)
    p = program_check(run, run.program("fifo_and_links.cu", VICTIM=victim))
    expect(p, 1, "out.bin is missing")
    assert "FIFO" not in p.out + p.err, "the program reached the runtime's result file"
    json.loads(p.stdout.decode("utf-8"))
    with open(victim) as f:
        assert f.read() == "#!/bin/sh\necho original\n", "the grader wrote through a link"


@case
def program_links_its_files_to_a_secret(run):
    """The result and timeline as links to a hidden file of JSON, if the program could find them
    (the device process keeps them out of its reach): not one byte of the file in any report."""
    if not have_nvcc():
        print("SKIPPED: no nvcc")
        return
    secret = os.path.join(run.work, "secret.json")
    with open(secret, "w") as f:
        json.dump({"faults": ["TOPSECRET-4242"], "leaks": [], "traceEvents": []}, f)
    os.chmod(secret, 0o600)
    source = run.program("links_to_secret.cu", SECRET=secret)
    for fmt in ("json", "text", "gradescope"):
        p = program_check(run, source, fmt)
        expect(p, 1)
        assert "symbolic link" not in p.out + p.err, "the program reached the runtime's files"
        assert "TOPSECRET" not in p.out + p.err, (p.out + p.err)[-3000:]


@case
def program_result_nested_millions_deep(run):
    """Three million '[' as the result file, if the program could reach it (it cannot: the runtime's
    record is the device process's; a hostile writer of it is tested in hostile_files_test.cpp):
    the check fails the program, with a report, no crash."""
    if not have_nvcc():
        print("SKIPPED: no nvcc")
        return
    p = program_check(run, run.program("deep_result.cu"))
    expect(p, 1)
    assert "nests deeper" not in p.out + p.err, "the program reached the runtime's result file"
    json.loads(p.stdout.decode("utf-8"))


@case
def program_writes_huge_sparse_files(run):
    """A 200 MB timeline and a 1 GB out.bin, both sparse: refused unread with the cap named, and the
    check's memory stays small."""
    if not have_nvcc():
        print("SKIPPED: no nvcc")
        return
    import resource
    p = program_check(run, run.program("huge_files.cu"))
    # In the sandbox the 1 GB file stops the program at the file-size limit first (exit 120, named);
    # without one, the 200 MB timeline is refused unread with its cap named.
    expect(p, 1)
    both = p.out + p.err
    assert ("209715200 bytes, more than the cap of 32 MB" in both or
            "stopped at the file-size limit" in both), both[-3000:]
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert peak_kb < 1024 * 1024, f"the check's peak resident memory was {peak_kb} KB"


# --- the progress store ---------------------------------------------------------------------

def store(run):
    return run.env["CUDALAB_STATE"]


@case
def progress_values_out_of_range(run):
    os.makedirs(os.path.dirname(store(run)), exist_ok=True)
    legacy = store(run)[:-3] + ".json"
    with open(legacy, "w") as f:
        json.dump({"version": 1, "lessons": {"01-threads": {"state": "failed", "hints_shown": -5},
                                             "02-vector-add": {"state": "passed", "hints_shown": 1.5e300}}}, f)
    expect(run("hint", "01-threads"), 0, "Hint 1 of")
    expect(run("list"), 0, "02-vector-add")
    db = sqlite3.connect(store(run))
    db.execute("UPDATE lessons SET hints_shown = -5 WHERE id = '01-threads'")
    db.execute("INSERT OR REPLACE INTO lessons VALUES ('02-vector-add', 'passed', 1.5e300, 'x')")
    db.commit()
    db.close()
    expect(run("hint", "01-threads"), 0, "Hint 1 of", "hints_shown -5 is out of range")
    expect(run("hint", "02-vector-add"), 0, "Hint 1 of", "hints_shown is not a whole number")


@case
def progress_store_damaged(run):
    os.makedirs(os.path.dirname(store(run)), exist_ok=True)
    with open(store(run), "wb") as f:
        f.write(b"garbage" * 1000)
    p = run("list")
    expect(p, 0, "damaged", "kept as")
    kept = [n for n in os.listdir(os.path.dirname(store(run))) if ".damaged-" in n]
    assert len(kept) == 1, kept
    with open(os.path.join(os.path.dirname(store(run)), kept[0]), "rb") as f:
        assert f.read() == b"garbage" * 1000


@case
def ten_checks_at_once(run):
    procs = [subprocess.Popen([run.cli, "check", "01-threads", "--backend", "emu"], cwd=run.root, env=run.env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(10)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode in (0, 1), err
        assert b"not saved" not in err, err
    db = sqlite3.connect(store(run))
    (count,) = db.execute("SELECT count(*) FROM results WHERE lesson = '01-threads'").fetchone()
    assert count == 10, count


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(argv) != 4 or argv[3] not in CASES:
        print(__doc__, file=sys.stderr)
        return 2
    cli, root, name = argv[1:]
    with tempfile.TemporaryDirectory(prefix="cudalab-hostile-") as work:
        # As root the sandbox builds and runs a submission as an unprivileged user, who must be
        # able to read it (the grader's own files planted here stay 0600).
        os.chmod(work, 0o755)
        CASES[name](Run(os.path.abspath(cli), os.path.abspath(root), work))
    print(f"{name}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
