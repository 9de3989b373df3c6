#!/usr/bin/env python3
"""Synthesize one RTL template with Yosys for UltraScale+ (synth_xilinx -family xcup) and check it.

Fails on a Yosys error, on any inferred latch, or on an unmet --expect (e.g. URAM288>=1, or
RAMB36E2==0). Writes a JSON report with the cell counts and the LUT, FF, BRAM36, URAM and DSP
totals, and prints a one-line summary. Used by the `synth` CTest label.

--keep-hierarchy synthesizes module by module (synth_xilinx without -flatten): Yosys maps each
distinct parameterization once however often the top instantiates it, so a whole LLM top takes
minutes instead of hours. The totals then count every instance through the hierarchy, and the
report adds the breakdown by template of the top's instances ("by_module") and the top's own
glue logic ("top_glue").

--elaborate-only stops before technology mapping: `hierarchy -check` (every module and port the
top names exists, at the top's parameters), `proc` (where a latch would be inferred) and `check
-assert` (no logic loop, no wire with two drivers, no used wire without one). A whole LLM top
takes seconds instead of the ~10 minutes of synth_xilinx; the report has the instances by
template, and no resource totals.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile



def classify(cells):
    """Totals by resource kind, counted the way Vivado's utilization report groups them."""
    totals = {"LUT": 0, "FF": 0, "BRAM36": 0.0, "URAM": 0, "DSP": 0, "LATCH": 0}
    for cell, n in cells.items():
        if re.match(r"^LUT[1-6]$|^LUT6_2$", cell):
            totals["LUT"] += n
        elif cell.startswith("RAM32M16") or cell.startswith("RAM64M8"):
            totals["LUT"] += 8 * n  # one LUTRAM slice's eight LUTs
        elif re.match(r"^RAM(32|64|128|256|512)", cell) or cell.startswith("SRL"):
            totals["LUT"] += n
        elif cell in ("FDRE", "FDSE", "FDCE", "FDPE"):
            totals["FF"] += n
        elif cell in ("LDCE", "LDPE") or cell.startswith("$_DLATCH") or cell == "$dlatch":
            totals["LATCH"] += n
        elif cell == "RAMB36E2":
            totals["BRAM36"] += n
        elif cell == "RAMB18E2":
            totals["BRAM36"] += 0.5 * n
        elif cell == "URAM288":
            totals["URAM"] += n
        elif cell.startswith("DSP48E2"):
            totals["DSP"] += n
    return totals


def load_stat_json(path):
    """Yosys's `stat -json`. Yosys 0.23 leaves a comma after "modules" when it writes no
    "design" section (no top module); strip it before parsing."""
    with open(path) as f:
        text = f.read()
    return json.loads(re.sub(r",\s*}\s*$", "\n}", text))


def template_of(module):
    """The template a Yosys module derives from: `$paramod$<hash>\\st_fifo` and
    `$paramod\\st_fifo\\Width=...` are both st_fifo."""
    m = re.match(r"^\$paramod(?:\$[0-9a-f]+)?\\([^\\]+)", module)
    return m.group(1) if m else module.lstrip("\\")


def hierarchy_cells(modules, top):
    """Primitive cells of `top` counted through its hierarchy, and the same per template of the
    top's direct instances: (total, {template: (instances, cells)}, top's own cells)."""
    memo = {}

    def flat(name):
        if name not in memo:
            cells = {}
            for cell, n in modules[name].get("num_cells_by_type", {}).items():
                sub = flat(cell) if cell in modules else {cell: 1}
                for c, k in sub.items():
                    cells[c] = cells.get(c, 0) + n * k
            memo[name] = cells
        return memo[name]

    by_template, glue = {}, {}
    for cell, n in modules[top].get("num_cells_by_type", {}).items():
        if cell in modules:
            instances, cells = by_template.setdefault(template_of(cell), (0, {}))
            for c, k in flat(cell).items():
                cells[c] = cells.get(c, 0) + n * k
            by_template[template_of(cell)] = (instances + n, cells)
        else:
            glue[cell] = n
    return flat(top), by_template, glue


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--top", required=True)
    ap.add_argument("--param", action="append", default=[], help="Name=Value override")
    ap.add_argument("--expect", action="append", default=[], help="CELL>=N, CELL==N or CELL<=N")
    ap.add_argument("--report", required=True, help="JSON report to write")
    ap.add_argument("--keep-hierarchy", action="store_true",
                    help="synthesize module by module and count through the hierarchy")
    ap.add_argument("--elaborate-only", action="store_true",
                    help="hierarchy, proc and check -assert only: no resource counts")
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        stat_json = os.path.join(tmp, "stat.json")
        script = ["read_verilog -sv " + " ".join(args.sources)]
        # One chparam for all overrides: one per parameter would elaborate intermediate
        # combinations, which a template's parameter checks ($fatal) may reject.
        if args.param:
            sets = " ".join("-set {} {}".format(*p.split("=", 1)) for p in args.param)
            script.append(f"chparam {sets} {args.top}")
        if args.elaborate_only:
            script += [f"hierarchy -check -top {args.top}", "proc", "opt_clean", "check -assert",
                       "setattr -mod -unset top"]
        elif args.keep_hierarchy:
            # Without the top attribute `stat -json` lists the modules only (Yosys 0.23 prints
            # its hierarchy tree as text into the JSON otherwise); the totals are summed here.
            script += [f"synth_xilinx -family xcup -top {args.top} -noiopad",
                       "setattr -mod -unset top"]
        else:
            script.append(f"synth_xilinx -family xcup -top {args.top} -noiopad -flatten")
        script.append(f"tee -q -o {stat_json} stat -json")
        proc = subprocess.run([args.yosys, "-q", "-p", "; ".join(script)],
                              capture_output=True, text=True)
        log = proc.stdout + proc.stderr
        if proc.returncode != 0:
            print(log)
            print(f"FAIL: yosys exited with {proc.returncode} on {args.top}")
            return 1
        stat = load_stat_json(stat_json)

    label = args.top + ("(" + ",".join(args.param) + ")" if args.param else "")
    if args.keep_hierarchy or args.elaborate_only:
        modules = stat.get("modules", {})
        top = next((m for m in modules if m.lstrip("\\") == args.top), None)
        if top is None:
            print(f"FAIL: {label}: Yosys's statistics have no module {args.top}")
            return 1
        cells, by_template, glue = hierarchy_cells(modules, top)
    else:
        cells = stat.get("design", {}).get("num_cells_by_type", {})
    totals = classify(cells)
    if args.elaborate_only:
        # RTLIL cells before mapping: only the instances and the latches mean something.
        report = {"top": args.top, "params": args.param, "elaborate_only": True,
                  "latches": totals["LATCH"],
                  "by_module": {t: {"instances": n} for t, (n, _) in sorted(by_template.items())}}
    elif args.keep_hierarchy:
        report = {"top": args.top, "params": args.param, "cells": cells, "totals": totals,
                  "by_module": {t: {"instances": n, "totals": classify(c)}
                                for t, (n, c) in sorted(by_template.items())},
                  "top_glue": classify(glue)}
    else:
        report = {"top": args.top, "params": args.param, "cells": cells, "totals": totals}
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    with open(args.report, "w") as f:
        json.dump(report, f, indent=2, sort_keys=True)
    if args.elaborate_only:
        instances = sum(m["instances"] for m in report["by_module"].values())
        print(f"{label}: elaborated, {instances} instances of {len(report['by_module'])} "
              "templates, check -assert clean")
    else:
        print(f"{label}: LUT {totals['LUT']}  FF {totals['FF']}  BRAM36 {totals['BRAM36']:g}  "
              f"URAM {totals['URAM']}  DSP {totals['DSP']}")

    failures = []
    if totals["LATCH"] or re.search(r"Latch inferred", log):
        failures.append(f"{totals['LATCH']} latch cell(s) inferred")
    for e in args.expect:
        m = re.match(r"^(\w+)\s*(>=|==|<=)\s*(\d+(?:\.\d+)?)$", e)
        if not m:
            failures.append(f"bad --expect '{e}'")
            continue
        name, op, want = m.group(1), m.group(2), float(m.group(3))
        have = totals.get(name, cells.get(name, 0))
        ok = {">=": have >= want, "==": have == want, "<=": have <= want}[op]
        if not ok:
            failures.append(f"expected {name} {op} {want:g}, synthesized {have:g}")
    for msg in failures:
        print(f"FAIL: {label}: {msg}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
