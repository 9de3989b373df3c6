#!/usr/bin/env python3
"""One synthetic-graph test (CTest label `graph`): compiles a graph with `streamtensor compile`,
runs its generated Verilator testbench with `streamtensor sim --json` under random HBM latency
and ready, and asserts that every output is bit-exact against the reference executor and that
the run finished (no deadlock). With --compare-deep it compiles the graph again with every FIFO
very deep and asserts that the LP-sized design's cycles are within 2 % of the deep design's."""
import argparse
import json
import os
import shutil
import subprocess
import sys


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def compile_and_sim(args, mode, seed):
    out = os.path.join(args.work, mode)
    rc, log = run([args.streamtensor, "compile", args.graph, "-o", out, "--fifo-mode", mode])
    print(log.strip())
    if rc != 0:
        sys.exit(f"FAIL: compile ({mode}) exited with {rc}")
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    rc, log = run([args.streamtensor, "sim", out, "--json", "--seed", str(seed)])
    lines = [l for l in log.splitlines() if l.startswith("{")]
    if not lines:
        print(log)
        sys.exit(f"FAIL: sim ({mode}) printed no JSON result (exit {rc})")
    result = json.loads(lines[-1])
    print(f"{mode}: {json.dumps(result)}")
    return report, result


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--graph", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--compare-deep", action="store_true")
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    report, lp = compile_and_sim(args, "lp", args.seed)
    if lp.get("deadlock") or not lp.get("bit_exact"):
        sys.exit(f"FAIL: LP-sized design: bit_exact={lp.get('bit_exact')} deadlock={lp.get('deadlock')}"
                 f" mismatches={lp.get('mismatches')} error={lp.get('error')}")
    print(f"LP: predicted {report['predicted_cycles']} cycles, measured {lp['cycles']}, "
          f"FIFO bits {report['fifo_bits']} (searched minima {report['searched_min_fifo_bits']}), "
          f"LP solve {report['fifo_lp_solve_seconds']:.4f} s")
    for s in report["streams"]:
        print(f"  FIFO {s['name']}: LP depth {s['fifo_depth']}, searched minimum "
              f"{s['searched_min_depth']}")
    if report["searched_min_fifo_bits"] > 0 and \
            report["fifo_bits"] > 1.25 * report["searched_min_fifo_bits"]:
        sys.exit(f"FAIL: LP FIFO bits {report['fifo_bits']} exceed 1.25 x the searched minima "
                 f"({report['searched_min_fifo_bits']})")
    if args.compare_deep:
        _, deep = compile_and_sim(args, "deep", args.seed)
        if deep.get("deadlock") or not deep.get("bit_exact"):
            sys.exit("FAIL: deep-FIFO design did not run bit-exactly")
        ratio = lp["cycles"] / deep["cycles"]
        print(f"cycles: LP {lp['cycles']} vs deep {deep['cycles']} (ratio {ratio:.4f})")
        if ratio > 1.02:
            sys.exit(f"FAIL: LP-sized FIFOs take {ratio:.4f}x the cycles of deep FIFOs (> 1.02)")
    print("PASS")


if __name__ == "__main__":
    main()
