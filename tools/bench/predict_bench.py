#!/usr/bin/env python3
"""Prediction benchmark on a full-size model (CTest label `bench`, never in the default run).

Compiles configs/<config> (seeded random weights, W4A8, a short KV cache, --engine gemv or
per-op) and decodes one prompt token plus --tokens - 1 generated tokens in the generated
Verilator testbench, bit-exact against the golden model, and compares the measured cycles per
generated step with the compiler's prediction (report.json step_prediction). Simulated cycles
are exact, so the agreement is asserted: |measured / predicted - 1| <= --tolerance (3 %). Prints
ms/token at 250 MHz, the HBM bytes the run read and their rate, and the Verilator wall time.
One per-op GPT-2 Medium step is ~6.4 M cycles (about ten minutes of Verilator); on the engine
it is ~121 k.

  tools/bench/predict_bench.py --streamtensor build/bin/streamtensor --config configs/gpt2-medium \
      --work /tmp/bench --json bench/predict-gpt2-medium.json
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
    p.add_argument("--config", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--precision", default="w4a8")
    p.add_argument("--max-context", default="16")
    p.add_argument("--tolerance", type=float, default=0.03)
    p.add_argument("--engine", default="per-op", choices=["gemv", "per-op"])
    p.add_argument("--tokens", type=int, default=2, help="tokens the run decodes (prompt: 1)")
    args = p.parse_args()
    name = os.path.basename(os.path.normpath(args.config))
    design = os.path.join(args.work, f"{name}_{args.precision}")
    shutil.rmtree(design, ignore_errors=True)
    subprocess.run([args.streamtensor, "compile", args.config, "--random-weights", "--precision",
                    args.precision, "--max-context", args.max_context, "--engine", args.engine,
                    "--target", "u55c", "-o", design], check=True)
    began = time.monotonic()
    proc = subprocess.run([args.streamtensor, "sim", design, "--prompt-ids", "5", "--tokens", str(args.tokens),
                           "--json"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - began
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if not lines:
        print(proc.stdout)
        sys.exit(f"FAIL: sim printed no JSON result (exit {proc.returncode})")
    r = json.loads(lines[-1])
    if not r.get("bit_exact"):
        sys.exit(f"FAIL: {name}: not bit-exact: {lines[-1][:2000]}")
    measured = r["generated_cycles_per_token"]
    predicted = r["predicted_cycles_per_token"]
    ratio = measured / predicted
    hbm_bytes = r.get("hbm_bytes") or 0
    total_cycles = r.get("cycles") or 0
    gbps = hbm_bytes / (total_cycles / 250e6) / 1e9 if total_cycles else 0
    figures = {"config": name, "precision": args.precision, "engine": args.engine,
               "tokens": args.tokens, "max_context": int(args.max_context),
               "measured_cycles": measured,
               "predicted_cycles": predicted, "measured_over_predicted": ratio,
               "prompt_step_measured": r["prompt_cycles_per_token"],
               "prompt_step_predicted": r["predicted_prompt_cycles_per_token"],
               "ms_per_token_250mhz": measured / 250e3, "sim_wall_seconds": wall,
               "hbm_bytes_read_and_written": hbm_bytes, "hbm_gb_per_s_250mhz": gbps}
    print(f"{name} {args.precision} {args.engine}: generated step measured {measured:.0f} cycles, "
          f"predicted {predicted:.0f} (measured/predicted {ratio:.4f}); {measured / 250e3:.3f} "
          f"ms/token at 250 MHz; HBM {gbps:.0f} GB/s over the run; sim (build + "
          f"{args.tokens} steps) {wall:.0f} s")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
            f.write("\n")
    if abs(ratio - 1) > args.tolerance:
        sys.exit(f"FAIL: measured/predicted {ratio:.4f} outside 1 +- {args.tolerance}")
    shutil.rmtree(design, ignore_errors=True)


if __name__ == "__main__":
    main()
