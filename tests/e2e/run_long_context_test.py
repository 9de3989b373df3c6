#!/usr/bin/env python3
"""Decode at a long context on a fixture (CTest label e2e): the prediction holds where the KV
reads dominate a step.

The fixtures stop at 64 positions, where attention is a small part of a step. A RoPE model has no
position table, so its fixture with a larger max_position_embeddings is the same model with a
longer KV cache: this copies the fixture, raises that field to --max-context (a model with a
learned position table, GPT-2, keeps its own and compiles with --max-context up to it), compiles
it at --precision, resumes a run at position --kv-prefill over the golden model's KV rows (`sim
--kv-prefill P --tokens N`) and asserts what a user relies on there:
  - the run finishes, bit-exact against the golden model, its tokens the golden model's; with
    --full-size-build on the model a full-size run gets (sim's -O2 build on 2 Verilator threads,
    asked for here: this short run would get the -O1 single-threaded one, which compiles in
    about a third of the CPU time);
  - the measured cycles per generated token agree with the compiler's prediction within 3 %: at
    such a context each layer's K and V rows take most of a step, read by one DMA per cache
    command after command while the engine's weight stream refills on the same pseudo-channels.
Exits 1 with "FAIL:".
"""
import argparse
import json
import os
import shutil
import subprocess

from run_e2e_test import fail, run_sim_json


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--streamtensor", required=True)
    ap.add_argument("--fixture", required=True, help="model directory with reference.json")
    ap.add_argument("--precision", required=True)
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--max-context", type=int, required=True)
    ap.add_argument("--kv-prefill", type=int, required=True)
    ap.add_argument("--tokens", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--full-size-build", action="store_true",
                    help="simulate on sim's -O2 model on 2 Verilator threads, as a full-size run")
    ap.add_argument("--compile-args", default="",
                    help="more compile options, space-separated (e.g. a cache read step)")
    a = ap.parse_args()
    if not 0 < a.kv_prefill < a.max_context - a.tokens:
        fail("--kv-prefill %d: expected 1 .. %d" % (a.kv_prefill, a.max_context - a.tokens - 1))

    model = os.path.join(a.work, "model")
    design = os.path.join(a.work, "design")
    shutil.rmtree(a.work, ignore_errors=True)
    shutil.copytree(a.fixture, model)
    config_path = os.path.join(model, "config.json")
    with open(config_path) as f:
        config = json.load(f)
    context_args = []
    if "n_positions" in config:
        # A learned position table: the context it has, no longer.
        if a.max_context > config["n_positions"]:
            fail("%s: --max-context %d exceeds the position table's %d rows"
                 % (config_path, a.max_context, config["n_positions"]))
        context_args = ["--max-context", str(a.max_context)]
    elif "max_position_embeddings" in config:
        config["max_position_embeddings"] = a.max_context
        with open(config_path, "w") as f:
            json.dump(config, f, indent=1)
    else:
        fail("%s: max_position_embeddings or n_positions expected" % config_path)
    with open(os.path.join(a.fixture, "reference.json")) as f:
        prompt = json.load(f)["cases"][0]["prompt"]

    r = subprocess.run([a.streamtensor, "compile", model, "--precision", a.precision,
                        "--target", "u55c", "--quiet", "-o", design] + context_args +
                       a.compile_args.split(),
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("compile: " + r.stderr.strip())
    res, r = run_sim_json([a.streamtensor, "sim", design, "--prompt-ids",
                           ",".join(map(str, prompt)), "--kv-prefill", str(a.kv_prefill),
                           "--tokens", str(a.tokens), "--seed", str(a.seed), "--json"] +
                          (["--model-opt", "2", "--model-threads", "2"]
                           if a.full_size_build else []))
    name = "%s %s at context %d%s" % (os.path.basename(os.path.normpath(a.fixture)), a.precision,
                                      a.kv_prefill,
                                      " (%s)" % a.compile_args if a.compile_args else "")
    if a.full_size_build and (res.get("model_opt"), res.get("model_threads")) != (2, 2):
        fail("%s: the model was built at -O%s on %s threads, asked for -O2 on 2" %
             (name, res.get("model_opt"), res.get("model_threads")))
    if res.get("deadlock") or res.get("timeout"):
        fail("%s: did not finish: %s" % (name, res.get("error", "")))
    if not res.get("bit_exact") or r.returncode != 0:
        fail("%s: not bit-exact (exit %d): %s" % (name, r.returncode,
                                                  res.get("first_mismatch", res.get("error", ""))))
    if res["tokens"] != res["golden_tokens"]:
        fail("%s: tokens %s, the golden model's %s" % (name, res["tokens"], res["golden_tokens"]))
    measured = res["generated_cycles_per_token"]
    predicted = res["predicted_cycles_per_token"]
    ratio = measured / predicted
    print("%s: %d tokens, generated %.1f cycles per token, predicted %.1f, measured/predicted "
          "%.3f" % (name, len(res["tokens"]), measured, predicted, ratio))
    if abs(ratio - 1) > 0.03:
        fail("%s: measured/predicted %.3f, off by more than 3 %%" % (name, ratio))
    print("PASS: %s" % name)


if __name__ == "__main__":
    main()
