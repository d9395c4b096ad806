#!/usr/bin/env python3
"""Compares two outputs of tests/agreement/ops.cu, a run against a reference (the H200's).

usage: compare.py REFERENCE RUN

Each line is `name kind v0 v1 ...`. kind `exact`: every value bit for bit; `ulpN`: within N units
in the last place (NaN matches NaN; the width is the result's: 64-bit values are doubles, the ops
in HALF are 16-bit). Prints one line per operation that differs (how many values, the first few,
by input index) and a summary; exits 1 if any differs or is missing, 2 on unreadable input.
"""
import sys

HALF = {"hsqrt", "hexp"}


def load(path):
    ops = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                parts = line.split()
                if len(parts) < 3:
                    raise ValueError(f"{path}:{n}: not 'name kind values...'")
                ops[parts[0]] = (parts[1], [int(v, 16) for v in parts[2:]])
    except (OSError, ValueError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        sys.exit(2)
    return ops


def ordered(bits, width):
    """Maps a float's bits to an integer that orders like the float (for ULP distances)."""
    sign = 1 << (width - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def is_nan(bits, width):
    exp_bits, man_bits = {16: (5, 10), 32: (8, 23), 64: (11, 52)}[width]
    exp = (bits >> man_bits) & ((1 << exp_bits) - 1)
    return exp == (1 << exp_bits) - 1 and bits & ((1 << man_bits) - 1) != 0


def agree(kind, name, a, b):
    if a == b:
        return True
    if not kind.startswith("ulp"):
        return False
    width = 16 if name in HALF else 64 if max(a, b) > 0xFFFFFFFF else 32
    if is_nan(a, width) and is_nan(b, width):
        return True
    return abs(ordered(a, width) - ordered(b, width)) <= int(kind[3:])


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ref, run = load(sys.argv[1]), load(sys.argv[2])
    bad = 0
    for name, (kind, want) in ref.items():
        if name not in run:
            print(f"{name}: missing from {sys.argv[2]}")
            bad += 1
            continue
        got = run[name][1]
        if len(got) != len(want):
            print(f"{name}: {len(got)} values, the reference has {len(want)}")
            bad += 1
            continue
        diff = [i for i, (w, g) in enumerate(zip(want, got)) if not agree(kind, name, w, g)]
        if diff:
            bad += 1
            shown = ", ".join(f"[{i}] {want[i]:x} vs {got[i]:x}" for i in diff[:3])
            print(f"{name} ({kind}): {len(diff)} of {len(want)} differ: {shown}")
    print(f"{len(ref) - bad} of {len(ref)} operations agree with {sys.argv[1]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
