#!/usr/bin/env python3
"""Compile benchmark of one full-size config (CTest label `bench`, never in the default run).

Compiles configs/<config> with seeded random weights (`compile --random-weights`, the model's
default context: max_position_embeddings, at most 4096) at W4A8 and W8A16 and prints, per
precision and phase, the wall time, the process's CPU time (all threads; on a machine shared
with other jobs, CPU / wall says how much of its cores the compile got) and the process's peak
RSS (from `compile --timings`), the total wall time and the peak RSS against twice the model's
fp32 weights (the budget of issue 15).
Writes the figures as JSON (--json). Prints figures; it fails only when a compile fails.

  tools/bench/compile_bench.py --streamtensor build/bin/streamtensor --config configs/gpt2-medium \
      --work build/bench-work --json bench/compile-gpt2-medium.json
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--config", required=True, help="a model directory (configs/<name>)")
    p.add_argument("--work", required=True, help="scratch directory (designs are deleted)")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--precisions", default="w4a8,w8a16")
    args = p.parse_args()
    name = os.path.basename(os.path.normpath(args.config))
    os.makedirs(args.work, exist_ok=True)
    results = {"config": name, "runs": []}
    for precision in args.precisions.split(","):
        out = os.path.join(args.work, f"{name}_{precision}")
        timings = out + ".timings.json"
        shutil.rmtree(out, ignore_errors=True)
        began = time.monotonic()
        proc = subprocess.run([args.streamtensor, "compile", args.config, "--random-weights",
                               "--precision", precision, "--target", "u55c", "-o", out,
                               "--timings", timings], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        wall = time.monotonic() - began
        print(proc.stdout, end="")
        if proc.returncode != 0:
            sys.exit(f"FAIL: compile {name} {precision} exited {proc.returncode}")
        with open(timings) as f:
            t = json.load(f)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        weights = report.get("parameters", 0) * 4
        run = {"precision": precision, "wall_seconds": wall,
               "compile_seconds": t["total_seconds"], "cpu_seconds": t.get("cpu_seconds"),
               "peak_rss_bytes": t["peak_rss_bytes"],
               "fp32_weight_bytes": weights, "max_context": report["max_context"],
               "phases": t["phases"]}
        results["runs"].append(run)
        shutil.rmtree(out, ignore_errors=True)
    print(f"\n{name}: compile (--random-weights, default context), 2 cores")
    print(f"| precision | context | wall s | CPU s | peak RSS GB | 2x fp32 GB | "
          f"phases: wall s (CPU s) |")
    print(f"|---|---|---|---|---|---|---|")
    for r in results["runs"]:
        # A phase beside the main sequence has no CPU time of its own (support/phase_log.h).
        phases = ", ".join(f"{ph['name']} {ph['seconds']:.2f} " +
                           ("(beside)" if ph.get("beside") else f"({ph.get('cpu_seconds') or 0:.2f})")
                           for ph in r["phases"])
        print(f"| {r['precision']} | {r['max_context']} | {r['wall_seconds']:.2f} | "
              f"{r['cpu_seconds'] or 0:.2f} | {r['peak_rss_bytes'] / 1e9:.2f} | "
              f"{2 * r['fp32_weight_bytes'] / 1e9:.2f} | {phases} |")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
