#!/usr/bin/env python3
"""docs/ci.md's table of which tests each step of ./test.sh runs, from the one place that decides
it: the rules of tests/tiers.cmake, which the build writes to BUILD/tests/test_tiers.json.

  scripts/ci_steps.py BUILD            print the table
  scripts/ci_steps.py BUILD --write    put it into docs/ci.md (between its two markers)
  scripts/ci_steps.py BUILD --check    fail, saying what differs, when docs/ci.md's table is not
                                       the rules' table, when test.sh selects a step's tests other
                                       than by its label, or when a test of BUILD lacks a label
                                       the rules give it
      ... --check --every-rule-matches  also when a rule by name matches no test of BUILD (a
                                       renamed test would silently change steps; only a build
                                       with the GUI and nvcc has every test)
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ci.md"
BEGIN = ("<!-- which tests each step runs: written by scripts/ci_steps.py from tests/tiers.cmake; "
         "the test `ci: docs/ci.md lists what each step runs` fails when they differ -->")
END = "<!-- end of the written table -->"
# The step of ./test.sh -> the ctest label it selects (test.sh must select exactly these).
SELECTIONS = {"quick": "^quick$", "asan": "^asan$", "tsan": "^tsan$"}


def left_out(rules, step):
    labels = rules[f"CUDALAB_NOT_{step.upper()}_LABELS"]
    names = rules[f"CUDALAB_NOT_{step.upper()}_NAMES"]
    parts = []
    if labels:
        parts.append("the tests labelled " + ", ".join(f"`{l}`" for l in labels))
    if names:
        # (a | inside a table cell must be escaped, even in code)
        parts.append("the tests whose names match " +
                     ", ".join("`" + n.replace("|", "\\|") + "`" for n in names))
    return "; ".join(parts) if parts else "nothing"


def table(rules):
    rows = [
        ("`./test.sh quick`", f"`ctest -L '{SELECTIONS['quick']}'` in `build/`",
         left_out(rules, "quick")),
        ("test suite", "`ctest`, every test, in `build/`", "nothing"),
        ("ASan+UBSan tests", f"`ctest -L '{SELECTIONS['asan']}'` in `build-asan/`",
         left_out(rules, "asan")),
        ("TSan tests", f"`ctest -L '{SELECTIONS['tsan']}'` in `build-tsan/`",
         "all but the cases of `cudalab_thread_tests` (its files are listed in "
         "tests/CMakeLists.txt)"),
    ]
    lines = [BEGIN, "", "| step | runs | leaves out |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    lines += ["", END]
    return "\n".join(lines) + "\n"


def written_table(text):
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < start:
        return None, start, end
    return text[start:end + len(END) + 1], start, end + len(END) + 1


def test_sh_problems():
    """test.sh must select each step's tests by its label alone: no name regex, no other label."""
    problems = []
    text = (ROOT / "test.sh").read_text()
    calls = [line.strip() for line in text.splitlines()
             if re.search(r"\bctest\b", line) and not line.lstrip().startswith("#")]
    used = set()
    for call in calls:
        for flag in re.findall(r"(?<!\S)(-E|-LE|-R|--exclude-regex|--tests-regex|--label-exclude)(?!\S)", call):
            problems.append(f"test.sh: `{call}` selects tests with {flag}; use a label of tests/tiers.cmake")
        for label in re.findall(r"(?<!\S)-L\s+'([^']*)'", call):
            if label not in SELECTIONS.values():
                problems.append(f"test.sh: `{call}` selects label {label!r}, not a step's label")
            used.add(label)
    for step, label in SELECTIONS.items():
        if label not in used:
            problems.append(f"test.sh: no ctest call selects -L '{label}' (the {step} step)")
    return problems


def rule_problems(rules, build, every_rule_matches):
    """Every test carries the labels the rules give it; with every_rule_matches, every rule by
    name matches a test of this build."""
    shown = subprocess.run(["ctest", "--test-dir", str(build), "-N", "--show-only=json-v1"],
                           capture_output=True, text=True, check=True)
    tests = json.loads(shown.stdout)["tests"]
    names = [t["name"] for t in tests]
    problems = []
    # Each test carries the tier labels the rules give it (the labelling itself works).
    for t in tests:
        labels = set()
        for prop in t.get("properties", []):
            if prop["name"] == "LABELS":
                labels = set(prop["value"])
        if "tsan" in labels:
            continue  # cudalab_thread_tests' cases: the TSan step's own binary
        own = labels - {"quick", "asan"}
        for step in ("quick", "asan"):
            expected = not (own & set(rules[f"CUDALAB_NOT_{step.upper()}_LABELS"])) and not any(
                re.search(p, t["name"]) for p in rules[f"CUDALAB_NOT_{step.upper()}_NAMES"])
            if expected != (step in labels):
                problems.append(f"{build}: test {t['name']!r} {'lacks' if expected else 'has'} "
                                f"the label {step!r}, against tests/tiers.cmake's rules")
    for key, patterns in rules.items():
        if not every_rule_matches or not key.endswith("_NAMES"):
            continue
        for pattern in patterns:
            if not any(re.search(pattern, name) for name in names):
                problems.append(f"tests/tiers.cmake: {key}'s rule {pattern!r} matches no test of {build}")
    return problems


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    build = pathlib.Path(argv[1])
    rules = json.loads((build / "tests" / "test_tiers.json").read_text())
    wanted = table(rules)
    mode = argv[2] if len(argv) > 2 else ""
    if mode == "":
        sys.stdout.write(wanted)
        return 0
    text = DOC.read_text()
    current, start, end = written_table(text)
    if mode == "--write":
        if current is None:
            print(f"{DOC}: no markers; put these two lines where the table goes:\n{BEGIN}\n{END}",
                  file=sys.stderr)
            return 1
        DOC.write_text(text[:start] + wanted + text[end:])
        return 0
    if mode != "--check":
        print(__doc__, file=sys.stderr)
        return 2
    problems = test_sh_problems() + rule_problems(rules, build, "--every-rule-matches" in argv[3:])
    if current != wanted:
        problems.append(f"{DOC}: the table of what each step runs differs from tests/tiers.cmake's "
                        f"rules; `scripts/ci_steps.py {build} --write` writes it:\n{wanted}")
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print("docs/ci.md and test.sh agree with tests/tiers.cmake")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
