#!/usr/bin/env python3
"""End-to-end test of one fixture at one precision (CTest label e2e).

Compiles the Hugging Face fixture directory to the LLM accelerator (`streamtensor compile
<model-dir> --precision P --target u55c`), decodes the prompt of its reference.json in Verilator
under random HBM latency and ready (`streamtensor sim --prompt-ids ... --tokens N --json`), and
asserts what a user relies on:
  - the run finishes (no deadlock) and is bit-exact against the golden model: every generated
    token, every step's KV-cache rows and debug taps (logits, each layer's block output);
  - the tokens equal the golden model's, and with --check-hf also Hugging Face's greedy tokens
    recorded in reference.json (the W8A16 fidelity bar);
  - at least 16 tokens are generated;
  - the measured cycles per generated token agree with the compiler's prediction within 3 %
    (cycle counts from simulation are exact; the HBM timing is seeded);
  - the design's dataflow.svg and the run's sim/stall_report.svg were rendered by Graphviz and
    draw every node, AXI master, pseudo-channel and stream (tests/picture_checks.py);
  - with --kv-prefill-check, a second run resumes at position P = prompt length + 7 over the
    golden model's KV rows of positions 0 .. P-1 (`sim --kv-prefill P --tokens 4`, the same
    Verilated model): bit-exact, its tokens continue the first run's (the argmax of steps
    P .. P+3), and its cycles per generated token agree with the prediction within 3 %.
Exits 1 with "FAIL:".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from picture_checks import check_dataflow_svg, check_stall_svg  # noqa: E402


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run_sim_json(cmd, what="sim"):
    """Runs `streamtensor sim ... --json`; returns (its JSON result, the completed process).
    Fails naming `what` when it printed no JSON line."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    if not lines:
        fail("%s printed no JSON (exit %d):\n%s\n%s" % (what, r.returncode, r.stdout, r.stderr))
    return json.loads(lines[-1]), r


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--streamtensor", required=True)
    ap.add_argument("--fixture", required=True, help="model directory with reference.json")
    ap.add_argument("--precision", required=True)
    ap.add_argument("--work", required=True, help="scratch directory (the design goes here)")
    ap.add_argument("--engine", help="compile --engine (default: the compiler's, gemv)")
    ap.add_argument("--engine-packed-pairs", type=int,
                    help="compile --engine-packed-pairs (default: the compiler's choice)")
    ap.add_argument("--tokens", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check-hf", action="store_true",
                    help="also require Hugging Face's greedy tokens (reference.json)")
    ap.add_argument("--kv-prefill-check", action="store_true",
                    help="also resume a run at position prompt + 7 over prefilled KV rows")
    a = ap.parse_args()
    if a.tokens < 16:
        fail("--tokens %d: the e2e bar is at least 16 generated tokens" % a.tokens)

    with open(os.path.join(a.fixture, "reference.json")) as f:
        case = json.load(f)["cases"][0]
    prompt = case["prompt"]
    design = os.path.join(a.work, "design")
    shutil.rmtree(design, ignore_errors=True)
    os.makedirs(a.work, exist_ok=True)
    compile_cmd = [a.streamtensor, "compile", a.fixture, "--precision", a.precision,
                   "--target", "u55c", "-o", design]
    if a.engine:
        compile_cmd += ["--engine", a.engine]
    if a.engine_packed_pairs is not None:
        compile_cmd += ["--engine-packed-pairs", str(a.engine_packed_pairs)]
    r = subprocess.run(compile_cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("compile: " + r.stderr.strip())
    error = check_dataflow_svg(design, r.stderr)
    if error:
        fail(error)
    sim_cmd = [a.streamtensor, "sim", design, "--prompt-ids", ",".join(map(str, prompt)),
               "--tokens", str(a.tokens), "--seed", str(a.seed), "--json"]
    res, r = run_sim_json(sim_cmd)
    error = check_stall_svg(design, r.stderr)
    if error:
        fail(error)
    name = "%s %s" % (os.path.basename(os.path.normpath(a.fixture)), a.precision)
    print("%s: tokens %s" % (name, res.get("tokens")))
    print("%s: golden %s" % (name, res.get("golden_tokens")))
    print("%s: cycles per token: prompt %.1f, generated %.1f, predicted %.1f; HBM %d bytes, "
          "%.2f GB/s" % (name, res.get("prompt_cycles_per_token", 0),
                         res.get("generated_cycles_per_token", 0),
                         res.get("predicted_cycles_per_token", 0), res.get("hbm_bytes", 0),
                         res.get("hbm_gbytes_per_s", 0)))
    if res.get("deadlock"):
        fail("%s: deadlock: %s" % (name, res.get("error", "")))
    if not res.get("bit_exact"):
        fail("%s: not bit-exact: %s" % (name, res.get("first_mismatch", res.get("error", ""))))
    tokens = res["tokens"]
    if len(tokens) < 16:
        fail("%s: %d tokens generated, expected >= 16" % (name, len(tokens)))
    if tokens != res["golden_tokens"]:
        fail("%s: tokens differ from the golden model's" % name)
    if a.check_hf:
        hf = case["greedy_tokens"][:len(tokens)]
        if tokens != hf:
            fail("%s: tokens %s differ from Hugging Face's %s" % (name, tokens, hf))
        print("%s: equal to Hugging Face's greedy tokens" % name)
    measured = res.get("generated_cycles_per_token")
    predicted = res.get("predicted_cycles_per_token")
    if not measured or not predicted:
        fail("%s: no measured or predicted cycles per generated token" % name)
    ratio = measured / predicted
    print("%s: measured/predicted cycles per generated token = %.3f" % (name, ratio))
    if abs(ratio - 1) > 0.03:
        fail("%s: measured %.1f vs predicted %.1f cycles per generated token: off by more than "
             "3 %%" % (name, measured, predicted))
    if r.returncode != 0:
        fail("%s: sim exited %d" % (name, r.returncode))
    if a.kv_prefill_check:
        check_resumed_run(a, design, prompt, tokens, name)
    print("PASS: %s" % name)


def check_resumed_run(a, design, prompt, tokens, name):
    """Resumes at position P = len(prompt) + 7 over the golden KV rows of 0 .. P-1."""
    position = len(prompt) + 7
    new_tokens = 4
    res, r = run_sim_json([a.streamtensor, "sim", design, "--prompt-ids",
                           ",".join(map(str, prompt)), "--kv-prefill", str(position),
                           "--tokens", str(new_tokens), "--seed", str(a.seed + 1), "--json"],
                          "%s: resumed sim" % name)
    if not res.get("bit_exact") or r.returncode != 0:
        fail("%s: resumed at %d: not bit-exact: %s" % (
            name, position, res.get("first_mismatch", res.get("error", ""))))
    # The first run's k-th token is the argmax of step len(prompt) - 1 + k; the resumed run's
    # first token that of step P.
    first = position - (len(prompt) - 1)
    want = tokens[first:first + new_tokens]
    if res["tokens"] != want:
        fail("%s: resumed at %d: tokens %s, the first run's %s" % (name, position, res["tokens"],
                                                                   want))
    ratio = res["generated_cycles_per_token"] / res["predicted_cycles_per_token"]
    print("%s: resumed at position %d: tokens %s, generated %.1f cycles per token, "
          "measured/predicted %.3f" % (name, position, res["tokens"],
                                       res["generated_cycles_per_token"], ratio))
    if abs(ratio - 1) > 0.03:
        fail("%s: resumed at %d: measured/predicted %.3f, off by more than 3 %%" % (
            name, position, ratio))


if __name__ == "__main__":
    main()
