#!/usr/bin/env python3
"""The SLR floorplan of a full-size config (CTest e2e.floorplan.<config>).

Compiles a full-size config of configs/ with seeded random weights and --floorplan:
  - at the default budgets (70 % of each SLR, 50 % of each boundary's super long lines), when
    no floorplan fits: one st::Error naming the floorplan, the limits that leave none and the
    SLR budgets or SLL limits, and no design directory (nothing half-written);
  - at --slr-budget/--sll-budget (where one fits): report.json's "floorplan" has the three SLRs,
    each SLR's used LUT, FF, DSP, BRAM36 and URAM within its budget, and the budget the given
    share of the SLR; every boundary's crossing bits within the given share of its SLL capacity;
    every crossing stream between two SLRs; vivado/floorplan.xdc one pblock per SLR used,
    resized to that SLR; link.cfg without slr= when the design spans SLRs, with the v++
    pre-placement hook; the ILP's solve time printed.
Prints FAIL: ... and exits 1 on the first difference.

  check_floorplan.py --streamtensor build/bin/streamtensor --config configs/gpt2-medium \\
      --work build/tests/e2e/floorplan_gpt2 --slr-budget 0.9 --sll-budget 0.9
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

RESOURCES = ["lut", "ff", "dsp", "bram36", "uram"]


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def compile_design(args, out, budgets):
    cmd = [args.streamtensor, "compile", args.config, "--random-weights", "--precision", "w4a8",
           "--target", "u55c", "-o", out, "--quiet", "--floorplan"] + budgets
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout.strip()


def check_default_error(args):
    """At the default budgets: a fit, or the one clear error and no directory."""
    out = os.path.join(args.work, "default")
    rc, text = compile_design(args, out, [])
    if rc == 0:
        print(f"default budgets: a floorplan fits ({out}/report.json)")
        return
    if text.count("error:") != 1 or "floorplan" not in text:
        fail(f"default budgets: expected one floorplan error, got: {text}")
    if not re.search(r"SLR0 \d+, SLR1 \d+, SLR2 \d+|SLR0-SLR1 \d+ bits \(limit \d+\)", text):
        fail(f"default budgets: the error names no SLR budgets or SLL limits: {text}")
    if os.path.exists(out) or any(e.startswith("default.partial") for e in
                                  os.listdir(args.work)):
        fail("default budgets: the failed compile left a design directory")
    print(f"default budgets: {text}")


def check_fit(args):
    out = os.path.join(args.work, "fit")
    rc, text = compile_design(args, out, ["--slr-budget", str(args.slr_budget),
                                          "--sll-budget", str(args.sll_budget)])
    if rc != 0:
        fail(f"--slr-budget {args.slr_budget} --sll-budget {args.sll_budget}: {text}")
    report = json.load(open(os.path.join(out, "report.json")))
    fp = report.get("floorplan")
    if fp is None:
        fail("report.json has no floorplan")
    names = [s["name"] for s in fp["slrs"]]
    if names != ["SLR0", "SLR1", "SLR2"]:
        fail(f"floorplan slrs {names}")
    for s in fp["slrs"]:
        for r in RESOURCES:
            used, budget, cap = s["used"][r], s["budget"][r], s["capacity"][r]
            if used > budget:
                fail(f"{s['name']} {r}: {used} over its budget {budget}")
            if abs(budget - int(cap * args.slr_budget)) > 1:
                fail(f"{s['name']} {r}: budget {budget} is not {args.slr_budget} of {cap}")
        print(f"{s['name']}: " + ", ".join(
            f"{r} {s['used'][r]:.0f}/{s['budget'][r]:.0f} "
            f"({100 * s['used'][r] / max(1, s['budget'][r]):.0f} %)" for r in RESOURCES))
    for b in fp["boundaries"]:
        if b["bits"] > args.sll_budget * b["sll_capacity"]:
            fail(f"{b['name']}: {b['bits']} bits over {args.sll_budget} of {b['sll_capacity']}")
        print(f"{b['name']}: {b['bits']} bits of {b['sll_capacity']} SLLs "
              f"({100 * b['bits'] / b['sll_capacity']:.0f} %)")
    for c in fp["crossing_streams"]:
        if c["from"] == c["to"] or c["from"] not in names or c["to"] not in names:
            fail(f"crossing {c}")
        if "relay_stages" not in c:
            fail(f"crossing {c} without relay_stages")
    used = sorted(fp["placement"].keys())
    xdc = open(os.path.join(out, "vivado", "floorplan.xdc")).read()
    pblocks = re.findall(r"^create_pblock (\S+)$", xdc, re.M)
    resized = dict(re.findall(r"^resize_pblock \[get_pblocks (\S+)\] -add "
                              r"\[get_clock_regions -of_objects \[get_slrs (\S+)\]\]$", xdc, re.M))
    if sorted(pblocks) != sorted("st_" + s.lower() for s in used) or \
            any(resized.get("st_" + s.lower()) != s for s in used):
        fail(f"floorplan.xdc: pblocks {pblocks} resized {resized} vs the SLRs used {used}")
    link = open(os.path.join(out, "vitis", "link.cfg")).read()
    slr_lines = re.findall(r"^slr=.*$", link, re.M)
    if len(used) > 1 and slr_lines:
        fail(f"link.cfg pins a design spanning {used}: {slr_lines}")
    if "prop=run.impl_1.STEPS.PLACE_DESIGN.TCL.PRE=" not in link:
        fail("link.cfg: no pre-placement hook")
    print(f"floorplan.xdc: pblocks {sorted(pblocks)}; link.cfg: {slr_lines or 'no slr='}; "
          f"ILP {fp['items']} items, {fp['solve_seconds']:.3f} s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--slr-budget", type=float, required=True)
    p.add_argument("--sll-budget", type=float, required=True)
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    check_default_error(args)
    check_fit(args)
    shutil.rmtree(args.work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
