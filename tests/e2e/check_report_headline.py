#!/usr/bin/env python3
"""report.md and report.json lead with the step prediction (CTest e2e.report_headline.<config>).

Compiles a full-size config of configs/ with seeded random weights and checks the design's
reports:
  - report.json's step_prediction predicts step c - 1 of each reported context c (64, 512, 1024,
    2048, 4096 below the max context, and the max), with step_cycles, step_hbm_bytes and
    bound_cycles indexed like its steps;
  - report.json's headline holds the reference contexts, 64 and the max context, and each row's
    cycles, bound and ratio are step_prediction's step_cycles, bound_cycles at step context - 1
    and their quotient;
  - the bound is the step's own HBM bytes as tools/bench/decode_bench.py counts them from the HBM
    manifest, at the device's peak rate in kernel cycles;
  - report.md's first figure is the headline's first row: "predicted step at context C: **X**";
  - the FIFO sizing's stage sum is labelled as such, and no predicted_cycles_per_step remains.
Prints FAIL: ... and exits 1 on the first difference. The design directory is removed after.

  check_report_headline.py --streamtensor build/bin/streamtensor --config configs/gpt2-medium \\
      --work build/tests/e2e/headline_gpt2 [--max-context N]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "bench"))
from decode_bench import embedding_row_bytes, step_bytes  # noqa: E402

REFERENCE_CONTEXT = 64


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(report, report_md, manifest):
    prediction = report["step_prediction"]
    max_context = report["max_context"]
    reported = [c for c in (64, 512, 1024, 2048, 4096) if c < max_context] + [max_context]
    if prediction["steps"] != [c - 1 for c in reported]:
        fail(f"step_prediction predicts steps {prediction['steps']}, expected step c - 1 of each "
             f"of the contexts {reported}")
    for key in ("contexts", "step_cycles", "step_hbm_bytes", "bound_cycles"):
        if len(prediction[key]) != len(reported):
            fail(f"step_prediction.{key} has {len(prediction[key])} entries, expected "
                 f"{len(reported)} (one per predicted step)")
    index = {t: i for i, t in enumerate(prediction["steps"])}
    steps = {t: prediction["step_cycles"][i] for t, i in index.items()}
    bounds = {t: prediction["bound_cycles"][i] for t, i in index.items()}
    step_bytes_of = {t: prediction["step_hbm_bytes"][i] for t, i in index.items()}
    if "predicted_cycles_per_step" in report:
        fail("report.json still has predicted_cycles_per_step (the stage sum, not the step)")
    if "fifo_sizing_stage_sum" not in report:
        fail("report.json has no fifo_sizing_stage_sum")
    contexts = [r["context"] for r in report["headline"]]
    expected = sorted({min(REFERENCE_CONTEXT, max_context), max_context})
    if contexts != expected:
        fail(f"headline contexts {contexts}, expected {expected}")
    bytes_per_cycle = prediction["hbm_peak_gbps"] * 1e3 / report["kernel_clock_mhz"]
    windows = prediction["layer_windows"]
    for row in report["headline"]:
        step = row["context"] - 1
        if row["cycles"] != steps[step]:
            fail(f"headline at context {row['context']}: {row['cycles']} cycles, step_prediction "
                 f"says {steps[step]}")
        if row["bound_cycles"] != bounds[step]:
            fail(f"headline bound at context {row['context']}: {row['bound_cycles']}, "
                 f"bound_cycles says {bounds[step]}")
        if abs(row["x_bound"] - steps[step] / bounds[step]) > 1e-9:
            fail(f"headline ratio {row['x_bound']} != {steps[step]} / {bounds[step]}")
        nbytes = step_bytes(manifest, windows, step) + embedding_row_bytes(manifest)
        if step_bytes_of[step] != nbytes:
            fail(f"step {step}: {step_bytes_of[step]} HBM bytes in report.json, "
                 f"{nbytes} as decode_bench counts them")
        if bounds[step] != round(nbytes / bytes_per_cycle):
            fail(f"step {step}: bound {bounds[step]} cycles, expected {nbytes} / "
                 f"{bytes_per_cycle} bytes a cycle")
    first = next((l for l in report_md.splitlines() if re.search(r"\*\*[\d.]+", l)), "")
    head = report["headline"][0]
    want = f"predicted step at context {head['context']}: **{head['cycles']}**"
    if want not in first:
        fail(f"report.md's first figure is '{first}', expected it to contain '{want}'")
    if "not a step prediction" not in report_md:
        fail("report.md does not label the FIFO sizing's stage sum")
    return head


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streamtensor", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--max-context", type=int, default=0)
    args = parser.parse_args()
    design = os.path.join(args.work, "design")
    shutil.rmtree(design, ignore_errors=True)
    os.makedirs(args.work, exist_ok=True)
    command = [args.streamtensor, "compile", args.config, "--random-weights", "--quiet",
               "-o", design]
    if args.max_context:
        command += ["--max-context", str(args.max_context)]
    r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(command)}: {r.stderr.strip()}")
    try:
        with open(os.path.join(design, "report.json")) as f:
            report = json.load(f)
        with open(os.path.join(design, "report.md")) as f:
            report_md = f.read()
        with open(os.path.join(design, "hbm", "manifest.json")) as f:
            manifest = json.load(f)
    finally:
        shutil.rmtree(design, ignore_errors=True)
    head = check(report, report_md, manifest)
    print(f"{os.path.basename(args.config)}: headline at context {head['context']}: "
          f"{head['cycles']} cycles, {head['x_bound']:.3f}x its bound of {head['bound_cycles']}; "
          f"equal to step_prediction at every reference context")
    return 0


if __name__ == "__main__":
    sys.exit(main())
