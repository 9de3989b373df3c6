#!/usr/bin/env python3
"""Prints the Markdown table of docs/fifo-sizing.md ("The search in RTL", Measured) from the
designs the graph tests left in <build>/tests/graph/<graph>/lp: for each, it re-runs the LP
design and the search build (random HBM, then deterministic HBM; the testbenches are already
built) with seed 1, and prints LP vs RTL-searched FIFO bits and LP vs deep cycles.
Usage: fifo_search_figures.py --streamtensor build/bin/streamtensor --graphs build/tests/graph"""
import argparse
import json
import os
import subprocess


def sim(streamtensor, design, extra):
    out = subprocess.run([streamtensor, "sim", design, "--json", "--seed", "1"] + extra,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    return json.loads([l for l in out.splitlines() if l.startswith("{")][-1])


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--graphs", required=True, help="<build>/tests/graph")
    p.add_argument("names", nargs="*", help="graphs (default: every one with a search build)")
    args = p.parse_args()
    names = args.names or sorted(
        g for g in os.listdir(args.graphs)
        if os.path.isdir(os.path.join(args.graphs, g, "lp", "search", "tb", "build")))
    print("| graph | FIFOs | LP bits | RTL-searched bits | LP / searched | timing-model bits | "
          "cycles LP / deep (random HBM) | cycles LP / deep (deterministic HBM) | runs |")
    print("|---|---|---|---|---|---|---|---|---|")
    details = []
    for g in names:
        d = os.path.join(args.graphs, g, "lp")
        lp = sim(args.streamtensor, d, [])
        rnd = sim(args.streamtensor, d, ["--fifo-search"])
        det = sim(args.streamtensor, d, ["--fifo-search", "--jitter", "0",
                                         "--ready-probability", "1"])
        with open(os.path.join(d, "report.json")) as f:
            report = json.load(f)
        same = "" if rnd["cycles_sized"] == lp["cycles"] else " (LP design: %d)" % lp["cycles"]
        print(f"| {g} | {len(det['fifos'])} | {det['sized_fifo_bits']} | "
              f"{det['searched_fifo_bits']} | "
              f"{det['sized_fifo_bits'] / max(det['searched_fifo_bits'], 1):.3f} | "
              f"{report['searched_min_fifo_bits']} | {rnd['cycles_sized']}{same} / "
              f"{rnd['cycles_deep']} | {det['cycles_sized']} / {det['cycles_deep']} | "
              f"{det['trials']} |")
        for f in det["fifos"]:
            if f["sized_depth"] != f["searched_min_depth"]:
                details.append(f"{g} `{f['name']}` {f['sized_depth']} -> "
                               f"{f['searched_min_depth']} ({f['token_bits']} bits)")
    print("\nWhere the RTL minimum is below the LP depth: " + ("; ".join(details) or "nowhere") +
          ".")


if __name__ == "__main__":
    main()
