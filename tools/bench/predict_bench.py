#!/usr/bin/env python3
"""Prediction benchmark on a full-size model (CTest label `bench`, never in the default run).

Compiles configs/<config> (seeded random weights, W4A8, a short KV cache, --engine gemv or
per-op) and decodes one prompt token plus --tokens - 1 generated tokens in the generated
Verilator testbench, bit-exact against the golden model, and compares the measured cycles per
generated step with the compiler's prediction (report.json step_prediction). Simulated cycles
are exact, so the agreement is asserted: |measured / predicted - 1| <= --tolerance (3 %). Prints
ms/token at 250 MHz, the HBM bytes the run read and their rate, and the wall times (testbench
build, golden model, Verilator per simulated token). With --kv-prefill P the run resumes at
position P over the golden model's KV rows (sim --kv-prefill, with P + 1 prompt ids, so that the
golden model prefills them): its generated steps attend to
P + 2 .. P + tokens positions, e.g. --max-context 1024 --kv-prefill 1020 --tokens 4 measures
three steps at contexts 1022 .. 1024.
One per-op GPT-2 Medium step is ~6.4 M cycles (about ten minutes of Verilator); on the engine
it is ~121 k.

  tools/bench/predict_bench.py --streamtensor build/bin/streamtensor --config configs/gpt2-medium \
      --work build/bench-work --json bench/predict-gpt2-medium.json
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def tree_sha256(root):
    """One hash over every file under `root` (names and contents), in a stable order."""
    h = hashlib.sha256()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            h.update(os.path.relpath(path, root).encode())
            h.update(file_sha256(path).encode())
    return h.hexdigest()


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


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
    p.add_argument("--kv-prefill", type=int, default=0,
                   help="resume at this position over the golden KV rows (sim --kv-prefill): "
                        "the measured steps attend to kv-prefill + 1 .. positions")
    p.add_argument("--model-opt", type=int, default=0,
                   help="sim --model-opt: the Verilated model's -O level (0: sim's rule, by the "
                        "run's predicted length)")
    p.add_argument("--model-threads", type=int, default=0,
                   help="sim --model-threads (0: sim's rule)")
    p.add_argument("--keep-design", action="store_true",
                   help="reuse the design (and its Verilated testbench) if this streamtensor "
                        "compiled it with the same arguments, keep it")
    args = p.parse_args()
    name = os.path.basename(os.path.normpath(args.config))
    design = os.path.join(args.work, f"{name}_{args.precision}_{args.engine}_{args.max_context}")
    compile_cmd = [args.streamtensor, "compile", args.config, "--random-weights", "--precision",
                   args.precision, "--max-context", args.max_context, "--engine", args.engine,
                   "--target", "u55c", "-o", design]
    # A kept design is reused only when this compiler binary compiled it with these arguments
    # from these RTL templates (compile copies them into the design): after a change to either
    # the bench must measure the new design, not the old one.
    stamp_path = design + ".compiled-by.json"
    templates = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                             "rtl_templates")
    stamp = {"command": compile_cmd, "streamtensor_sha256": file_sha256(args.streamtensor),
             "rtl_templates_sha256": tree_sha256(templates)}
    kept = (args.keep_design and os.path.exists(os.path.join(design, "design.json"))
            and os.path.exists(stamp_path) and read_json(stamp_path) == stamp)
    if kept:
        print(f"reusing {design}: compiled by this streamtensor with the same arguments")
    else:
        shutil.rmtree(design, ignore_errors=True)
        if os.path.exists(stamp_path):
            os.remove(stamp_path)
        subprocess.run(compile_cmd, check=True)
        with open(stamp_path, "w") as f:
            json.dump(stamp, f)
    began = time.monotonic()
    # With --kv-prefill P the prompt is id 5 repeated P + 1 times: the golden model fills the KV
    # rows of positions 0 .. P - 1 from prompt ids in one prefill (GoldenExecutor::prefill)
    # instead of decoding each from the previous argmax. The design runs the same steps (it
    # resumes at P with one prompt id).
    prompt = ",".join(["5"] * (args.kv_prefill + 1))
    sim = [args.streamtensor, "sim", design, "--prompt-ids", prompt, "--tokens", str(args.tokens),
           "--json"]
    if args.kv_prefill:
        sim += ["--kv-prefill", str(args.kv_prefill)]
    if args.model_opt:
        sim += ["--model-opt", str(args.model_opt)]
    if args.model_threads:
        sim += ["--model-threads", str(args.model_threads)]
    proc = subprocess.run(sim, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
    walls = r.get("wall_seconds", {})
    sim_seconds = walls.get("simulation", 0)
    # The engine's prefetch FIFO depth (compile --engine-fifo-words), from the design's report.
    with open(os.path.join(design, "report.json")) as f:
        fifo_words = next((st["fifo_depth"] for st in json.load(f).get("streams", [])
                           if st.get("name") == "gemv_w0"), None)
    # Attention's form (compile --attention-tile): one pass in tiles of this many positions, or
    # two passes (0), from the design's manifest.
    attention_tile = read_json(os.path.join(design, "design.json")).get(
        "attention_tile_positions", 0)
    figures = {"config": name, "precision": args.precision, "engine": args.engine,
               "engine_fifo_words": fifo_words, "attention_tile_positions": attention_tile,
               "tokens": args.tokens, "max_context": int(args.max_context),
               "kv_prefill": args.kv_prefill,
               # The generated steps attend to these many positions (cached rows + the new one).
               "context_first": args.kv_prefill + 2, "context_last": args.kv_prefill + args.tokens,
               "measured_cycles": measured,
               "predicted_cycles": predicted, "measured_over_predicted": ratio,
               "prompt_step_measured": r["prompt_cycles_per_token"],
               "prompt_step_predicted": r["predicted_prompt_cycles_per_token"],
               "ms_per_token_250mhz": measured / 250e3, "sim_wall_seconds": wall,
               "hbm_bytes_read_and_written": hbm_bytes, "hbm_gb_per_s_250mhz": gbps,
               "testbench_build_seconds": walls.get("testbench_build"),
               "golden_seconds": walls.get("golden"),
               "verilator_seconds": sim_seconds,
               # How sim built the model (--model-opt, --model-threads; by the run's length).
               "model_opt": r.get("model_opt"), "model_threads": r.get("model_threads"),
               # Wall time per simulated step (the prompt step included), load and dump included.
               "verilator_seconds_per_token": sim_seconds / args.tokens if sim_seconds else None}
    print(f"{name} {args.precision} {args.engine}: generated step measured {measured:.0f} cycles, "
          f"predicted {predicted:.0f} (measured/predicted {ratio:.4f}); {measured / 250e3:.3f} "
          f"ms/token at 250 MHz; HBM {gbps:.0f} GB/s over the run; contexts "
          f"{args.kv_prefill + 2}..{args.kv_prefill + args.tokens}; sim {wall:.0f} s (testbench "
          f"build {walls.get('testbench_build', 0):.0f} s, golden {walls.get('golden', 0):.0f} s, "
          f"Verilator {sim_seconds:.0f} s for {args.tokens} steps, model -O{r.get('model_opt')} on "
          f"{r.get('model_threads')} threads)")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
            f.write("\n")
    if abs(ratio - 1) > args.tolerance:
        sys.exit(f"FAIL: measured/predicted {ratio:.4f} outside 1 +- {args.tolerance}")
    if not args.keep_design:
        shutil.rmtree(design, ignore_errors=True)


if __name__ == "__main__":
    main()
