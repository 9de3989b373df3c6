#!/usr/bin/env python3
"""Random graphs (CTest label `graph`, and `slow` for the long run): compiles the graphs of
random_graph.py for a fixed range of seeds and simulates each in Verilator (one build per graph),
asserting per graph:
  1. under sim's default random HBM (latency jitter, ready probability 0.8) the design finishes
     and is bit-exact against the reference executor;
  2. under a deterministic HBM (fixed latency, always ready: the memory the prediction is
     cycle-level for) it is bit-exact too and the measured kernel cycles (start pulse to
     ap_done) are within --tolerance (3 %) of the compiler's prediction (report.json
     kernel_cycle_prediction, sim's kernel_over_predicted).
Prints one line per graph and the worst measured/predicted ratio; a failing graph's YAML stays
in --work. The testbenches are built at -O1 (sim's default for graph designs), `--jobs` graphs
at a time."""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_graph import random_graph  # noqa: E402


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def sim(streamtensor, design, extra):
    rc, log = run([streamtensor, "sim", design, "--json"] + extra)
    lines = [line for line in log.splitlines() if line.startswith("{")]
    if not lines:
        return None, log
    return json.loads(lines[-1]), log


def check_graph(args, seed):
    """Compiles and simulates the graph of `seed`; returns (seed, error or "", ratio, line)."""
    work = os.path.join(args.work, f"random_{seed}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    graph = os.path.join(work, "graph.yaml")
    with open(graph, "w") as f:
        f.write(random_graph(seed))
    design = os.path.join(work, "design")
    start = time.time()
    rc, log = run([args.streamtensor, "compile", graph, "-o", design, "--quiet"])
    if rc != 0:
        return seed, f"compile exited with {rc}: {log.strip()[-600:]}", None, ""
    rnd, log = sim(args.streamtensor, design, ["--seed", str(seed)])
    if rnd is None:
        return seed, f"sim (random HBM) printed no JSON result: {log.strip()[-600:]}", None, ""
    if rnd.get("deadlock") or not rnd.get("bit_exact"):
        return (seed, f"random HBM: bit_exact={rnd.get('bit_exact')} deadlock="
                f"{rnd.get('deadlock')} mismatches={rnd.get('mismatches')} "
                f"error={rnd.get('error')}", None, "")
    det, log = sim(args.streamtensor, design, ["--jitter", "0", "--ready-probability", "1"])
    if det is None:
        return seed, f"sim (deterministic HBM) printed no JSON result: {log[-600:]}", None, ""
    if not det.get("bit_exact") or "predicted_kernel_cycles" not in det:
        return (seed, f"deterministic HBM: bit_exact={det.get('bit_exact')}, prediction "
                f"{det.get('predicted_kernel_cycles')}", None, "")
    ratio = det["kernel_cycles"] / det["predicted_kernel_cycles"]
    line = (f"random_{seed}: {len(open(graph).read().split('- {name')) - 1} ops, kernel cycles "
            f"{det['kernel_cycles']}, predicted {det['predicted_kernel_cycles']}, measured/"
            f"predicted {ratio:.4f} ({time.time() - start:.0f} s)")
    if abs(ratio - 1) > args.tolerance:
        return seed, f"{line}: outside 1 +- {args.tolerance}", ratio, line
    if not args.keep:
        shutil.rmtree(design, ignore_errors=True)
    return seed, "", ratio, line


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--first", type=int, default=1, help="first seed")
    p.add_argument("--count", type=int, default=20, help="graphs (seeds first .. first+count-1)")
    p.add_argument("--tolerance", type=float, default=0.03)
    p.add_argument("--jobs", type=int, default=1, help="graphs compiled and simulated at once")
    p.add_argument("--keep", action="store_true", help="keep every design directory")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    start = time.time()
    seeds = range(args.first, args.first + args.count)
    failures, ratios = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for seed, error, ratio, line in pool.map(lambda s: check_graph(args, s), seeds):
            if ratio is not None:
                ratios.append((ratio, seed))
            print(f"FAIL: random_{seed}: {error}" if error else line, flush=True)
            if error:
                failures.append(seed)
    if ratios:
        worst = max(ratios, key=lambda r: abs(r[0] - 1))
        print(f"{len(ratios)} graphs simulated in {time.time() - start:.0f} s; measured/predicted "
              f"kernel cycles {min(ratios)[0]:.4f} .. {max(ratios)[0]:.4f}, worst {worst[0]:.4f} "
              f"(random_{worst[1]})")
    if failures:
        sys.exit(f"FAIL: {len(failures)} of {args.count} graphs: seeds {failures} (graphs in "
                 f"{args.work}/random_<seed>/graph.yaml)")
    print("PASS")


if __name__ == "__main__":
    main()
