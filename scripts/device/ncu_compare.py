#!/usr/bin/env python3
"""Compare cudalab's memory model with Nsight Compute on the lesson kernels (run on a GPU machine).

For each lesson, the reference solution runs twice on the GPU: under `ncu` (hardware counters per
kernel launch) and plainly with `--format json` (the model's figures per launch, from the same
launches' traces). Launches are paired in order and written as a Markdown table.

    python3 scripts/device/ncu_compare.py build-gpu/cudalab OUT.md
"""
import csv
import io
import json
import os
import subprocess
import sys

METRICS = {
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def ncu_launches(cli, lesson, which, env):
    cmd = ["ncu", "--csv", "--page", "raw", "--clock-control", "none", "--metrics", ",".join(METRICS.values()),
           cli, "check", lesson, *which, "--backend", "gpu"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    text = out.stdout
    start = text.find('"ID"')
    if start < 0:
        raise RuntimeError("ncu printed no table:\n" + out.stdout[-2000:] + out.stderr[-2000:])
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    launches = []
    for row in rows[1:]:
        if not row or not row[0].isdigit():
            continue
        rec = dict(zip(header, row))
        launches.append({k: number(rec.get(m, "")) for k, m in METRICS.items()} | {"name": rec.get("Kernel Name", "")})
    return launches


def model_launches(cli, lesson, which, env):
    out = subprocess.run([cli, "check", lesson, *which, "--backend", "gpu", "--format", "json"], env=env,
                         capture_output=True, text=True)
    return json.loads(out.stdout)["launches"]


def ratio(a, b):
    return a / b if b else 0.0


def main():
    cli, out_path = sys.argv[1], sys.argv[2]
    env = dict(os.environ, CUDALAB_NO_TIMING="1")
    lessons = [line.split()[0] for line in subprocess.run([cli, "list"], capture_output=True, text=True).stdout.splitlines()]
    lines = ["| lesson | file | kernel | grid x block | load sectors/request: model / ncu | store sectors/request: model / ncu "
             "| shared ld+st bank conflicts: model / ncu |", "|---|---|---|---|---|---|---|"]
    agree = total = 0
    runs = []
    for lesson in lessons:
        runs.append((lesson, "solution", ["--solution"]))
        runs.append((lesson, "exercise", []))
        wrong = os.path.join("lessons", lesson, "wrong")
        if os.path.isdir(wrong):
            for name in sorted(os.listdir(wrong)):
                runs.append((lesson, "wrong/" + name, ["--source", os.path.join(wrong, name)]))
    for lesson, label, which in runs:
        try:
            hw = ncu_launches(cli, lesson, which, env)
        except RuntimeError as e:
            lines.append(f"| {lesson} | {label} | (ncu failed: {str(e).splitlines()[0][:80]}) | | | | |")
            continue
        model = model_launches(cli, lesson, which, env)
        if len(model) != len(hw):
            lines.append(f"| {lesson} | {label} | ({len(model)} launches in the model, {len(hw)} profiled) | | | | |")
        for m, h in zip(model, hw):
            ml = ratio(m["global_load_sectors"], m["global_load_requests"])
            hl = ratio(h["ld_sectors"] or 0, h["ld_requests"] or 0)
            ms = ratio(m["global_store_sectors"], m["global_store_requests"])
            hs = ratio(h["st_sectors"] or 0, h["st_requests"] or 0)
            mc = m["shared_load_bank_conflicts"] + m["shared_store_bank_conflicts"]
            hc = (h["ld_conflicts"] or 0) + (h["st_conflicts"] or 0)
            same = abs(ml - hl) < 0.05 and abs(ms - hs) < 0.05 and mc == hc
            agree += same
            total += 1
            grid = "x".join(str(v) for v in m["grid"]) + " x " + "x".join(str(v) for v in m["block"])
            lines.append(f"| {lesson} | {label} | {m['kernel']} | {grid} | {ml:.2f} / {hl:.2f} | {ms:.2f} / {hs:.2f} | "
                         f"{mc} / {int(hc)} |{'' if same else ' **differs**'}")
    lines.append("")
    lines.append(f"{agree} of {total} launches agree (sectors per request within 0.05, bank conflicts equal).")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[-15:]))


if __name__ == "__main__":
    main()
