#!/usr/bin/env python3
"""Makes a class of generated students for `cudalab grade` (docs/instructors.md, "Grading a class").

    scripts/make_class.py OUT --students N [--lessons ID,...] [--seed S] [--missing P] [--hostile K]

OUT/student-NNN/ID.cu for each student and lesson, each file drawn (by --seed) from the lesson's
variants in tests/submissions/ID/ (passing, failing, cheating), solutions/ID.cu and
exercises/ID.cu and signed with a comment naming the student (so that no two students' files are the
same bytes, as in a real class: nothing is compiled once for many); with probability P (default
0.1) a student did not submit the lesson. The last
K students (default 0) are hostile: a FIFO, a link to the solution, a file that includes
/etc/passwd, a file of random bytes, a file that includes the solution by a relative path, in turn."""
import argparse
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lesson_ids(root):
    ids = []
    with open(os.path.join(root, "lessons", "manifest.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("id") and "=" in line:
                ids.append(line.split("=", 1)[1].strip().strip('"'))
    return ids


def variants(root, lesson):
    found = []
    sub = os.path.join(root, "tests", "submissions", lesson)
    if os.path.isdir(sub):
        found += sorted(os.path.join(sub, f) for f in os.listdir(sub) if f.endswith(".cu"))
    for folder in ("solutions", "exercises"):
        p = os.path.join(root, folder, lesson + ".cu")
        if os.path.isfile(p):
            found.append(p)
    return found


def hostile(path, lesson, kind, root):
    if kind == 0:
        os.mkfifo(path)
    elif kind == 1:
        os.symlink(os.path.join(root, "solutions", lesson + ".cu"), path)
    elif kind == 2:
        open(path, "w").write('// reads a file of the grader\n#include "/etc/passwd"\n')
    elif kind == 3:
        open(path, "wb").write(bytes(random.Random(lesson).getrandbits(8) for _ in range(4096)))
    else:
        open(path, "w").write('#include "../../solutions/%s.cu"\n' % lesson)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--students", type=int, required=True)
    ap.add_argument("--lessons", default="", help="ID,ID,... (default: every lesson of the manifest)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--missing", type=float, default=0.1)
    ap.add_argument("--hostile", type=int, default=0)
    ap.add_argument("--root", default=ROOT, help="the course (lessons/, solutions/, exercises/, tests/submissions/)")
    a = ap.parse_args()
    ids = [i for i in a.lessons.split(",") if i] or lesson_ids(a.root)
    pools = {i: variants(a.root, i) for i in ids}
    for i, pool in pools.items():
        if not pool:
            sys.exit("make_class: no variants for lesson %s" % i)
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    width = max(3, len(str(a.students)))
    for n in range(a.students):
        student = os.path.join(a.out, "student-%0*d" % (width, n + 1))
        os.makedirs(student, exist_ok=True)
        bad = n >= a.students - a.hostile
        for k, lesson in enumerate(ids):
            path = os.path.join(student, lesson + ".cu")
            if os.path.lexists(path):
                os.remove(path)
            if bad:
                hostile(path, lesson, (n - (a.students - a.hostile) + k) % 5, a.root)
                continue
            if rng.random() < a.missing:
                continue
            with open(rng.choice(pools[lesson]), "rb") as src, open(path, "wb") as dst:
                dst.write(src.read() + b"\n// submitted by student-%0*d\n" % (width, n + 1))
    print("%s: %d students x %d lessons (%s)" % (a.out, a.students, len(ids), ",".join(ids)))


if __name__ == "__main__":
    main()
