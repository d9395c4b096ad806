#!/usr/bin/env python3
"""`cudalab grade`, its shards and the Gradescope bundle, through the CLI (ctest -R grade/).

    run_grade_tests.py --list
    run_grade_tests.py CUDALAB SOURCE_DIR CASE

Each case grades a class made by scripts/make_class.py over two quick lessons, with a fixed seed,
and checks what `cudalab grade` wrote (docs/instructors.md)."""
import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile

LESSONS = "01-threads,03-matrix-2d"
CASES = {}


def case(f):
    CASES[f.__name__] = f
    return f


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def make_class(src, out, students, hostile=0, seed=3, missing=0.15):
    subprocess.run([sys.executable, os.path.join(src, "scripts", "make_class.py"), out, "--students", str(students),
                    "--lessons", LESSONS, "--seed", str(seed), "--missing", str(missing), "--hostile", str(hostile)],
                   check=True, stdout=subprocess.DEVNULL)


def grade(cudalab, *args, timeout=300):
    p = subprocess.run([cudalab, "grade", *args], capture_output=True, text=True, timeout=timeout)
    return p


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_gradescope(j, where):
    if not isinstance(j.get("score"), (int, float)):
        fail(where + ": no numeric score")
    if not isinstance(j.get("tests"), list) or not j["tests"]:
        fail(where + ": no tests array")
    for t in j["tests"]:
        for k in ("name", "score", "max_score", "status", "output"):
            if k not in t:
                fail("%s: a test without %s: %s" % (where, k, t))
        if t["status"] not in ("passed", "failed") or not (0 <= t["score"] <= t["max_score"]):
            fail("%s: bad test %s" % (where, t))
    total = sum(t["score"] for t in j["tests"])
    if abs(total - j["score"]) > 1e-9:
        fail("%s: score %s is not the tests' sum %s" % (where, j["score"], total))


@case
def class_of_twenty(cudalab, src, tmp):
    """20 students (missing files, one hostile): CSV, JSON and every student's reports."""
    subs, out = os.path.join(tmp, "subs"), os.path.join(tmp, "out")
    make_class(src, subs, 20, hostile=1)
    started = time.time()
    p = grade(cudalab, subs, "--lessons", LESSONS, "--jobs", "2", "--seed", "11", "--out", out)
    took = time.time() - started
    print(p.stderr[-2000:], p.stdout[-1000:])
    if p.returncode != 0:
        fail("exit %d" % p.returncode)
    if "seed 11" not in p.stderr:
        fail("the seed is not printed")
    r = rows(os.path.join(out, "results.csv"))
    if len(r) != 40:
        fail("results.csv has %d rows, not 40" % len(r))
    lessons = LESSONS.split(",")
    maxima = {}
    for row in r:
        maxima.setdefault(row["lesson"], set()).add(row["max_score"])
        f = os.path.join(subs, row["student"], row["lesson"] + ".cu")
        if not os.path.lexists(f):
            if row["outcome"] != "not_submitted" or float(row["score"]) != 0 or "not submitted" not in row["reason"]:
                fail("a missing file graded as %s" % row)
    for lesson, m in maxima.items():
        if len(m) != 1 or float(next(iter(m))) <= 0:
            fail("%s: max_score differs between students: %s" % (lesson, m))
    hostile = [row for row in r if row["student"] == "student-020"]
    for row in hostile:
        if row["outcome"] not in ("compile_error", "refused") or float(row["score"]) != 0:
            fail("the hostile student got %s" % row)
    if "/etc/passwd" in open(os.path.join(out, "student-020", "report.txt")).read().replace('"/etc/passwd"', ""):
        pass  # the directive is quoted in the message; no line of the file itself
    if "root:x:0:0" in "".join(open(os.path.join(dp, f), errors="replace").read()
                              for dp, _, fs in os.walk(out) for f in fs if not f.endswith(".db")):
        fail("a line of /etc/passwd is in the results")
    outcomes = {row["outcome"] for row in r}
    if "passed" not in outcomes or "not_submitted" not in outcomes:
        fail("the class should have passes and missing files: %s" % outcomes)
    s = rows(os.path.join(out, "students.csv"))
    if len(s) != 20 or any(k not in s[0] for k in lessons):
        fail("students.csv: %d rows, columns %s" % (len(s), list(s[0])))
    summary = json.load(open(os.path.join(out, "summary.json")))
    if summary["seed"] != "11" or len(summary["students"]) != 20 or set(summary["lessons"]) != set(lessons):
        fail("summary.json: %s" % {k: summary[k] for k in ("seed", "lessons")})
    for st in summary["students"]:
        d = os.path.join(out, st)
        rep = json.load(open(os.path.join(d, "report.json")))
        if [x["lesson"] for x in rep] != lessons:
            fail(st + "/report.json lessons " + str([x["lesson"] for x in rep]))
        gs = json.load(open(os.path.join(d, "results.json")))
        check_gradescope(gs, st + "/results.json")
        if abs(gs["score"] - summary["students"][st]["score"]) > 1e-9:
            fail(st + ": Gradescope score differs from the summary")
        root = ET.parse(os.path.join(d, "junit.xml")).getroot()
        if root.tag != "testsuites" or len(root.findall("testsuite")) != 2:
            fail(st + "/junit.xml")
        if int(root.get("tests")) != sum(len(ts.findall("testcase")) for ts in root.findall("testsuite")):
            fail(st + "/junit.xml: tests count")
        if "score" not in open(os.path.join(d, "report.txt")).read():
            fail(st + "/report.txt")
    con = sqlite3.connect(os.path.join(out, "grades.db"))
    if con.execute("SELECT count(*) FROM grades").fetchone()[0] != 40:
        fail("grades.db rows")
    if con.execute("SELECT value FROM meta WHERE key='seed'").fetchone()[0] != "11":
        fail("grades.db seed")
    print("graded 20 x 2 in %.1f s" % took)


@case
def resume_after_kill(cudalab, src, tmp):
    """kill -9 in the middle, then the same command: finished pairs are kept, the rest graded."""
    subs, out = os.path.join(tmp, "subs"), os.path.join(tmp, "out")
    make_class(src, subs, 6, missing=0)
    args = [cudalab, "grade", subs, "--lessons", LESSONS, "--jobs", "1", "--seed", "5", "--out", out]
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = os.path.join(out, "grades.db")
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and p.poll() is None:
        try:
            done = sqlite3.connect(db, timeout=5).execute("SELECT count(*) FROM grades").fetchone()[0]
        except sqlite3.Error:
            done = 0
        if done >= 2:
            break
        time.sleep(0.05)
    if p.poll() is not None:
        fail("the run ended before it could be killed (exit %s)" % p.returncode)
    p.send_signal(signal.SIGKILL)
    p.wait()
    con = sqlite3.connect(db)
    before = dict(((s, l), t) for s, l, t in con.execute("SELECT student, lesson, graded_at FROM grades"))
    con.close()
    if not 2 <= len(before) < 12:
        fail("%d pairs recorded before the kill" % len(before))
    time.sleep(1.1)  # graded_at has a resolution of one second
    r = grade(cudalab, subs, "--lessons", LESSONS, "--jobs", "2", "--out", out)
    print(r.stderr[-1500:])
    if r.returncode != 0:
        fail("the resumed run exited %d" % r.returncode)
    if "seed 5" not in r.stderr or "%d already graded, %d to grade" % (len(before), 12 - len(before)) not in r.stderr:
        fail("the resumed run did not keep the seed and the %d finished pairs" % len(before))
    con = sqlite3.connect(db)
    after = dict(((s, l), t) for s, l, t in con.execute("SELECT student, lesson, graded_at FROM grades"))
    if len(after) != 12 or any(after[k] != v for k, v in before.items()):
        fail("pairs finished before the kill were graded again")
    # A changed file is graded again; nothing else is.
    with open(os.path.join(subs, "student-002", "01-threads.cu"), "a") as f:
        f.write("\n// changed\n")
    r = grade(cudalab, subs, "--lessons", LESSONS, "--out", out)
    if r.returncode != 0 or "11 already graded, 1 to grade" not in r.stderr:
        fail("a changed file: " + r.stderr[-800:])
    # Ctrl-C: exit 130, what was graded kept, and the summaries written.
    out2 = os.path.join(tmp, "out2")
    p = subprocess.Popen(args[:-1] + [out2], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        try:
            if sqlite3.connect(os.path.join(out2, "grades.db"), timeout=5).execute("SELECT count(*) FROM grades").fetchone()[0] >= 1:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    if p.returncode != 130 or "interrupted" not in err or not os.path.exists(os.path.join(out2, "results.csv")):
        fail("Ctrl-C: exit %s, %s" % (p.returncode, err[-500:]))


@case
def worker_killed(cudalab, src, tmp):
    """A worker killed in the middle of a pair (as the OOM killer would) costs that pair only,
    recorded as crashed; the run goes on, and the next run grades that pair again. A worker killed
    between two pairs costs nothing: a fresh one takes the next pair."""
    subs = os.path.join(tmp, "subs")
    make_class(src, subs, 6, missing=0)

    def comm(pid):
        try:
            return open("/proc/%s/comm" % pid).read().strip()
        except OSError:
            return ""

    # The kill lands where it lands: usually inside a pair (pairs take ~0.1 s, the gap between
    # two is a pipe write). A kill in the gap is checked too, and the run is tried again.
    for attempt in range(5):
        out = os.path.join(tmp, "out%d" % attempt)
        p = subprocess.Popen([cudalab, "grade", subs, "--lessons", LESSONS, "--jobs", "1", "--seed", "4",
                              "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = None
        deadline = time.time() + 120
        while killed is None and time.time() < deadline and p.poll() is None:
            try:
                children = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
            except OSError:
                children = []
            # A worker is a fork of cudalab itself (not the NVRTC helper, cudalab-compile, that
            # the grader may have started first).
            workers = [c for c in children if comm(c) == "cudalab"]
            if workers:
                time.sleep(0.3)  # into its first pairs
                os.kill(int(workers[0]), signal.SIGKILL)
                killed = workers[0]
            time.sleep(0.02)
        o, e = p.communicate(timeout=240)
        if killed is None or p.returncode != 0:
            fail("killed %s, exit %s: %s" % (killed, p.returncode, e[-800:]))
        r = rows(os.path.join(out, "results.csv"))
        crashed = [x for x in r if x["outcome"] == "crashed"]
        if len(r) != 12:
            fail("after a worker was killed: %d rows" % len(r))
        if not crashed:
            print("attempt %d: the kill fell between two pairs; nothing was lost" % attempt)
            continue
        if len(crashed) != 1 or "signal 9" not in crashed[0]["reason"]:
            fail("after a worker was killed: crashed %s" % crashed)
        break
    else:
        fail("five kills all fell between pairs")
    student = crashed[0]["student"]
    gs = json.load(open(os.path.join(out, student, "results.json")))
    check_gradescope(gs, student)
    p = grade(cudalab, subs, "--lessons", LESSONS, "--out", out)
    if p.returncode != 0 or "11 already graded, 1 to grade" not in p.stderr:
        fail("the crashed pair was not graded again: " + p.stderr[-600:])
    if any(x["outcome"] == "crashed" for x in rows(os.path.join(out, "results.csv"))):
        fail("still crashed after the second run")


@case
def shards_merged_equal_one_run(cudalab, src, tmp):
    """--shard 1/3, 2/3, 3/3 merged give the files an unsharded run gives."""
    subs = os.path.join(tmp, "subs")
    make_class(src, subs, 8, hostile=1)
    whole = os.path.join(tmp, "whole")
    p = grade(cudalab, subs, "--lessons", LESSONS, "--seed", "9", "--out", whole)
    if p.returncode != 0:
        fail("unsharded: " + p.stderr[-800:])
    parts = []
    for k in (1, 2, 3):
        d = os.path.join(tmp, "shard%d" % k)
        p = grade(cudalab, subs, "--lessons", LESSONS, "--seed", "9", "--shard", "%d/3" % k, "--out", d)
        if p.returncode != 0:
            fail("shard %d: %s" % (k, p.stderr[-800:]))
        parts.append(d)
    counts = [len(rows(os.path.join(d, "results.csv"))) for d in parts]
    if sum(counts) != 16 or 0 in counts:
        fail("the shards hold %s pairs" % counts)
    merged = os.path.join(tmp, "merged")
    p = subprocess.run([cudalab, "grade", "--merge", *parts, "--out", merged], capture_output=True, text=True)
    if p.returncode != 0:
        fail("merge: " + p.stderr)
    for f in ["results.csv", "students.csv"] + ["%s/results.json" % s for s in sorted(os.listdir(subs))]:
        a, b = open(os.path.join(whole, f)).read(), open(os.path.join(merged, f)).read()
        if a != b:
            fail("%s differs between the merged shards and one run" % f)
    sa, sb = json.load(open(os.path.join(whole, "summary.json"))), json.load(open(os.path.join(merged, "summary.json")))
    for j in (sa, sb):
        for st in j["students"].values():
            for l in st["lessons"].values():
                l.pop("seconds")
    if sa != sb:
        fail("summary.json differs")
    # Shards of different seeds are refused.
    other = os.path.join(tmp, "other")
    grade(cudalab, subs, "--lessons", "01-threads", "--seed", "10", "--shard", "1/9", "--out", other)
    p = subprocess.run([cudalab, "grade", "--merge", parts[0], other, "--out", os.path.join(tmp, "m2")], capture_output=True, text=True)
    if p.returncode != 2 or "seed" not in p.stderr:
        fail("shards of different seeds merged: %s" % p.stderr)


@case
def gradescope_bundle(cudalab, src, tmp):
    """The zip, unpacked as /autograder, run_autograder on sample submissions (setup.sh not run:
    the test uses the cudalab already built, through CUDALAB)."""
    z = os.path.join(tmp, "autograder.zip")
    p = subprocess.run([cudalab, "autograder", "gradescope", "--lessons", LESSONS, "-o", z], capture_output=True, text=True)
    if p.returncode != 0:
        fail(p.stderr)
    names = zipfile.ZipFile(z).namelist()
    for n in ("setup.sh", "run_autograder", "lessons.txt", "cudalab/CMakeLists.txt", "cudalab/engine/CMakeLists.txt",
              "cudalab/lessons/manifest.toml", "cudalab/solutions/01-threads.cu"):
        if n not in names:
            fail("the zip lacks " + n)
    if zipfile.ZipFile(z).testzip() is not None:
        fail("a damaged entry")
    names_seen = None
    for sample in ("solution", "exercise", "nothing"):
        root = os.path.join(tmp, "autograder-" + sample)
        os.makedirs(os.path.join(root, "submission", "nested"))
        with zipfile.ZipFile(z) as zf:  # as unzip does: the files, then their Unix permissions
            for info in zf.infolist():
                path = zf.extract(info, os.path.join(root, "source"))
                if info.external_attr >> 16:
                    os.chmod(path, (info.external_attr >> 16) & 0o777)
        if not os.access(os.path.join(root, "source", "run_autograder"), os.X_OK):
            fail("run_autograder is not executable once unzipped")
        for lesson in LESSONS.split(","):
            f = {"solution": os.path.join(src, "solutions", lesson + ".cu"), "exercise": os.path.join(src, "exercises", lesson + ".cu")}.get(sample)
            if f:
                open(os.path.join(root, "submission", "nested" if lesson.startswith("03") else "", lesson + ".cu"), "w").write(open(f).read())
        env = dict(os.environ, AUTOGRADER_ROOT=root, CUDALAB=cudalab, CUDALAB_BACKEND="emu")
        p = subprocess.run([os.path.join(root, "source", "run_autograder")], env=env, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            fail("run_autograder exited %d: %s" % (p.returncode, p.stderr))
        res = json.load(open(os.path.join(root, "results", "results.json")))
        check_gradescope(res, sample)
        names = [t["name"] for t in res["tests"]]
        if names_seen is not None and names != names_seen:
            fail("the tests differ between submissions: %s vs %s" % (names, names_seen))
        names_seen = names
        for lesson in LESSONS.split(","):
            if not any(n.startswith(lesson + ": ") for n in names):
                fail("no test of " + lesson)
        maximum = sum(t["max_score"] for t in res["tests"])
        expect = {"solution": maximum, "nothing": 0}.get(sample)
        if expect is not None and res["score"] != expect:
            fail("%s scored %s of %s" % (sample, res["score"], maximum))
        if sample == "exercise" and not 0 <= res["score"] < maximum:
            fail("the shipped exercise scored %s of %s" % (res["score"], maximum))
        print("%s: %s of %s, %d tests" % (sample, res["score"], maximum, len(names)))


@case
def classroom_template(cudalab, src, tmp):
    """Each lesson step of scripts/classroom/classroom.yml, run as the workflow runs it: its
    command passes on the solution and fails on the shipped exercise, its max-score is the lesson's,
    and the reporter lists every step."""
    import re
    text = open(os.path.join(src, "scripts", "classroom", "classroom.yml")).read()
    steps = re.findall(r"command: (\S+) check (\S+) --source (\S+)(.*)\n\s+timeout: \d+\n\s+max-score: (\d+)", text)
    if not steps:
        fail("no lesson steps")
    runners = re.search(r"runners: (\S+)", text).group(1).split(",")
    if runners != [lesson for _, lesson, _, _, _ in steps]:
        fail("the reporter's runners %s are not the steps %s" % (runners, [s[1] for s in steps]))
    for binary, lesson, source, rest, points in steps:
        if not re.search(r"\n\s+%s_RESULTS: \"\$\{\{ steps\.%s\.outputs\.result \}\}\"" % (re.escape(lesson.upper()), re.escape(lesson)), text):
            fail("no %s_RESULTS for the reporter" % lesson.upper())
        repo = os.path.join(tmp, lesson)
        os.makedirs(os.path.join(repo, os.path.dirname(binary)))
        os.symlink(cudalab, os.path.join(repo, binary))
        os.makedirs(os.path.join(repo, os.path.dirname(source)))
        for kind, want in (("solutions", 0), ("exercises", 1)):
            open(os.path.join(repo, source), "w").write(open(os.path.join(src, kind, lesson + ".cu")).read())
            p = subprocess.run("%s check %s --source %s%s" % (binary, lesson, source, rest), shell=True, cwd=repo,
                               capture_output=True, text=True, timeout=300)
            if p.returncode != want:
                fail("%s on the %s: exit %d\n%s" % (lesson, kind, p.returncode, p.stdout[-1000:]))
        p = subprocess.run([cudalab, "check", lesson, "--solution", "--format", "json", "--backend", "emu"], capture_output=True, text=True)
        if float(points) != json.loads(p.stdout)["max_score"]:
            fail("%s: max-score %s, but the lesson gives %s points" % (lesson, points, json.loads(p.stdout)["max_score"]))


# --- hostile classes (issue 23) ----------------------------------------------------------------

CONTROL = set(range(0, 32)) - {10} | {127}


def no_control_bytes(path, where):
    data = open(path, "rb").read()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s is not valid UTF-8: %s" % (where, e))
    bad = sorted({b for b in data if b in CONTROL})
    if bad:
        fail("%s holds control bytes %s" % (where, bad))
    return data.decode("utf-8")


@case
def hostile_names_and_control_bytes(cudalab, src, tmp):
    """A Latin-1 byte in a student's folder name gives one valid UTF-8 name (U+FFFD) in results.csv,
    summary.json, grades.db and the results' folders; terminal escapes and a CR from the submission
    reach none of the files; two folders that would share a name are refused."""
    subs, out = os.path.join(tmp, "subs").encode(), os.path.join(tmp, "out")
    latin1 = os.path.join(subs, b"stud\xe9nt")
    os.makedirs(latin1)
    with open(os.path.join(latin1, b"01-threads.cu"), "wb") as f:
        f.write(b'#error "\x1b[2J\x1b[H\rFORGED 100/100 \x1b]0;title\x07"\n')
    os.makedirs(os.path.join(subs, b"plain"))
    p = grade(cudalab, subs.decode(), "--lessons", "01-threads", "--seed", "1", "--out", out)
    if p.returncode != 0:
        fail("exit %d: %s" % (p.returncode, p.stderr[-800:]))
    name = "stud\ufffdnt"
    text = no_control_bytes(os.path.join(out, "results.csv"), "results.csv")
    r = rows(os.path.join(out, "results.csv"))
    if sorted(x["student"] for x in r) != ["plain", name]:
        fail("results.csv names %s" % [x["student"] for x in r])
    row = [x for x in r if x["student"] == name][0]
    if row["outcome"] != "compile_error" or "FORGED" not in row["reason"]:
        fail("the Latin-1 student's row: %s" % row)
    summary = json.loads(no_control_bytes(os.path.join(out, "summary.json"), "summary.json"))
    if sorted(summary["students"]) != ["plain", name]:
        fail("summary.json names %s" % list(summary["students"]))
    con = sqlite3.connect(os.path.join(out, "grades.db"))
    con.text_factory = bytes
    for student, reason in con.execute("SELECT student, reason FROM grades"):
        student.decode("utf-8")
        if any(b in CONTROL for b in reason) or any(b in CONTROL for b in student):
            fail("grades.db holds control bytes: %r %r" % (student, reason))
    if sorted(os.listdir(out.encode())) != sorted([b"grades.db", b"grade.log", b"plain", b"results.csv",
                                                   b"students.csv", b"summary.json", name.encode()]):
        fail("RESULTS/ holds %s" % os.listdir(out.encode()))
    no_control_bytes(os.path.join(out, name, "report.txt"), "report.txt")
    no_control_bytes(os.path.join(out, "students.csv"), "students.csv")
    # A second folder whose name is the same once made valid: refused, not merged into one student.
    os.makedirs(os.path.join(subs, b"stud\xe8nt"))
    p = grade(cudalab, subs.decode(), "--lessons", "01-threads", "--out", os.path.join(tmp, "out2"))
    if p.returncode != 2 or "rename one" not in p.stderr:
        fail("colliding names: exit %d: %s" % (p.returncode, p.stderr[-500:]))


def lesson_checks(cudalab, lesson):
    p = subprocess.run([cudalab, "check", lesson, "--solution", "--format", "json", "--backend", "emu"],
                       capture_output=True, text=True, timeout=300)
    j = json.loads(p.stdout)
    return j["max_score"], [c["name"] for c in j["checks"]]


@case
def hostile_program_pairs_keep_their_shape(cudalab, src, tmp):
    """Program lesson 02b: a missing file and a program stopped at the pair time limit are recorded
    with the lesson's maximum and its checks (Gradescope lists the lesson's tests), the timed-out
    pair is not graded again on the next run (unless the limit is raised), no temporary folder is
    left, and a program's stderr escapes reach no file."""
    lesson = "02b-host-program"
    maximum, names = lesson_checks(cudalab, lesson)
    subs, out = os.path.join(tmp, "subs"), os.path.join(tmp, "out")
    for student in ("missing", "sleeper", "shouter"):
        os.makedirs(os.path.join(subs, student))
    with open(os.path.join(subs, "sleeper", lesson + ".cu"), "w") as f:
        f.write("#include <unistd.h>\nint main() { for (;;) sleep(1); }\n")
    with open(os.path.join(subs, "shouter", lesson + ".cu"), "w") as f:
        f.write('#include <cstdio>\nint main() { std::fprintf(stderr, "\\x1b[2J\\rFORGED\\x1b[31m"); return 3; }\n')
    tmpdir = os.path.join(tmp, "tmpdir")
    os.makedirs(tmpdir)
    env = dict(os.environ, TMPDIR=tmpdir)
    args = [cudalab, "grade", subs, "--lessons", lesson, "--seed", "2", "--jobs", "1", "--out", out,
            "--backend", "emu", "--time-limit", "30"]
    p = subprocess.run(args + ["--pair-time-limit", "25"], capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        fail("exit %d: %s" % (p.returncode, p.stderr[-800:]))
    no_control_bytes(os.path.join(out, "results.csv"), "results.csv")
    by = {x["student"]: x for x in rows(os.path.join(out, "results.csv"))}
    want = {"missing": "not_submitted", "sleeper": "timed_out", "shouter": "failed"}
    for student, outcome in want.items():
        row = by[student]
        if row["outcome"] != outcome:
            fail("%s: outcome %s, expected %s (%s)" % (student, row["outcome"], outcome, row["reason"]))
        if float(row["max_score"]) != maximum or int(row["checks"]) != len(names):
            fail("%s: max_score %s and %s checks, the lesson has %s and %d" % (
                student, row["max_score"], row["checks"], maximum, len(names)))
        gs = json.load(open(os.path.join(out, student, "results.json")))
        check_gradescope(gs, student)
        if [t["name"] for t in gs["tests"]] != [lesson + ": " + n for n in names]:
            fail("%s: Gradescope tests %s" % (student, [t["name"] for t in gs["tests"]]))
        no_control_bytes(os.path.join(out, student, "report.txt"), student + "/report.txt")
    if "pair time limit of 25 s" not in by["sleeper"]["reason"]:
        fail("the timed-out pair's reason: " + by["sleeper"]["reason"])
    if "FORGED" not in by["shouter"]["reason"]:
        fail("the program's stderr is not in the reason: " + by["shouter"]["reason"])
    left = [os.path.join(dp, n) for dp, ds, fs in os.walk(tmpdir) for n in ds + fs]
    if left:
        fail("left in TMPDIR: %s" % left[:10])
    p = subprocess.run(args + ["--pair-time-limit", "25"], capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0 or "3 already graded, 0 to grade" not in p.stderr:
        fail("the second run graded again: " + p.stderr[-600:])


@case
def hostile_bundle_program_links(cudalab, src, tmp):
    """The Gradescope bundle grading program lesson 02b on a program that would leave a FIFO for its
    result and links to the bundle's run_autograder for its timeline (it cannot reach them: the
    device process writes them), in.bin and out.bin: run_autograder is untouched and results.json
    lists the lesson's tests, none passed."""
    import hashlib
    lesson = "02b-host-program"
    maximum, names = lesson_checks(cudalab, lesson)
    z = os.path.join(tmp, "autograder.zip")
    p = subprocess.run([cudalab, "autograder", "gradescope", "--lessons", lesson, "-o", z], capture_output=True, text=True)
    if p.returncode != 0:
        fail(p.stderr)
    root = os.path.join(tmp, "autograder")
    with zipfile.ZipFile(z) as zf:
        for info in zf.infolist():
            path = zf.extract(info, os.path.join(root, "source"))
            if info.external_attr >> 16:
                os.chmod(path, (info.external_attr >> 16) & 0o777)
    script = os.path.join(root, "source", "run_autograder")
    before = hashlib.sha256(open(script, "rb").read()).hexdigest()
    text = open(os.path.join(src, "tests", "hostile", "programs", "fifo_and_links.cu")).read()
    os.makedirs(os.path.join(root, "submission"))
    with open(os.path.join(root, "submission", lesson + ".cu"), "w") as f:
        f.write(text.replace("@VICTIM@", script))
    env = dict(os.environ, AUTOGRADER_ROOT=root, CUDALAB=cudalab, CUDALAB_BACKEND="emu")
    p = subprocess.run([script], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail("run_autograder exited %d: %s" % (p.returncode, p.stderr))
    if hashlib.sha256(open(script, "rb").read()).hexdigest() != before:
        fail("run_autograder was rewritten")
    res = json.load(open(os.path.join(root, "results", "results.json")))
    check_gradescope(res, "results.json")
    if res["score"] != 0 or [t["name"] for t in res["tests"]] != [lesson + ": " + n for n in names]:
        fail("results.json: score %s, tests %s" % (res["score"], [t["name"] for t in res["tests"]]))
    # The runtime's records are the device process's: the program's FIFO and links never reach them.
    if any("FIFO" in t["output"] for t in res["tests"]):
        fail("a test says the result file was a FIFO: the program reached it: %s" % res["tests"])


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return
    cudalab, src, name = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="cudalab-grade-") as tmp:
        os.environ["CUDALAB_ROOT"] = src
        CASES[name](os.path.abspath(cudalab), src, tmp)
    print("ok")


if __name__ == "__main__":
    main()
