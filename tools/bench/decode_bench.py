#!/usr/bin/env python3
"""Decode benchmark of the GEMV-engine designs (issue 17; CTest label `bench`, never in the
default run).

For each full-size config (seeded random weights, W4A8, --engine gemv, the default context:
max_position_embeddings capped at 4096) it compiles the design and reads what the compiler
planned and predicted: cycles per generated token at contexts 64, 512, 1024 and the max (the
step that decodes with that many tokens in the context), the HBM bytes that step reads (the
engine's weight streams of every channel, the norm parameters, one embedding row and the
cached K/V rows of every layer, each layer's sliding window respected), the resource estimate
against the U55C. From them: ms/token at 250 MHz, the HBM rate, the ratio to the step's own
bound (its bytes / 460 GB/s) and to the pure W4 bound (the weights alone, docs/sources.md §4).
Measured figures come from bench.predict.*.gemv JSON files (--measured): Verilator cycles per
generated token, measured/predicted and the Verilator wall time.

Writes JSON (--json), a Markdown table beside the paper's and the peers' figures (--markdown)
and an SVG plot of ms/token against context with each model's bound line (--svg).

  tools/bench/decode_bench.py --streamtensor build/bin/streamtensor --configs configs \\
      --work build/bench-work --json bench/results.json --markdown bench/results.md \\
      --svg bench/decode.svg [--measured build/bench/predict-gpt2-medium-gemv.json]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

CLOCK_HZ = 250e6
HBM_BYTES_PER_S = 460e9
CONFIGS = ["gpt2-medium", "qwen2.5-0.5b", "tinyllama-1.1b", "llama-3.2-1b", "gemma-3-1b",
           "qwen2.5-7b", "llama-3.1-8b", "qwen3-1.7b", "mistral-7b"]
CONTEXTS = [64, 512, 1024]
# docs/sources.md §4: weights read per token at W4 with one 16-bit scale per 128 weights.
W4_BOUND_MB = {"gpt2-medium": 179.5, "qwen2.5-0.5b": 250.8, "tinyllama-1.1b": 525.3,
               "gemma-3-1b": 507.7, "llama-3.2-1b": 627.5, "qwen2.5-7b": 3590.4,
               "llama-3.1-8b": 3811.0, "qwen3-1.7b": 873.7, "mistral-7b": 3612.3}
# docs/sources.md §1, §2: published batch-1 decode figures (ms/token) to print beside ours.
PEERS = [
    ("StreamTensor paper (HLS), GPT-2 Medium, U55C 250 MHz W4A8, 32:32", "gpt2-medium", 5.01),
    ("StreamTensor paper (HLS), GPT-2 Medium, U55C 250 MHz W4A8, 256:256", "gpt2-medium", 4.36),
    ("Allo, GPT-2 Medium, U280 250 MHz", "gpt2-medium", 4.90),
    ("DFX, GPT-2 Medium, U280 200 MHz FP16", "gpt2-medium", 5.40),
    ("A100 W8A8, GPT-2 Medium", "gpt2-medium", 8.83),
    ("FlexLLM, Llama-3.2-1B W4A4, U280 292 MHz", "llama-3.2-1b", 6.94),
    ("llama.cpp on an RTX 4080, Llama-3.2-1B Q4_K_M", "llama-3.2-1b", 2.1),
]


def fail(message):
    sys.exit(f"FAIL: {message}")


def step_bytes(manifest, layer_windows, step):
    """HBM bytes step `step` reads but for the embedding rows: engine streams, norm parameters
    and the K/V rows attention reads (min(step, window - 1) on a windowed layer, at least one:
    step 0 reads the row it just wrote)."""
    total = 0
    for b in manifest["buffers"]:
        kind = b["kind"]
        if kind in ("engine_stream", "norm_params"):
            total += b["bytes"]
        elif kind in ("k_cache", "v_cache"):
            for window in layer_windows:
                rows = min(step, window - 1) if window > 0 else step
                total += max(rows, 1) * b["row_bytes"]
    return total


def embedding_row_bytes(manifest):
    """Bytes of one row of every embedding table (row r at r * row bytes: from its format)."""
    total = 0
    for b in manifest["buffers"]:
        if b["kind"] == "embedding_table":
            words = b["format"].split("row r at r * ")
            if len(words) > 1:
                total += int(words[1].split()[0])
    return total


def compile_config(args, config):
    name = os.path.basename(config)
    design = os.path.join(args.work, f"{name}_w4a8")
    shutil.rmtree(design, ignore_errors=True)
    began = time.monotonic()
    r = subprocess.run([args.streamtensor, "compile", config, "--random-weights", "--precision",
                        "w4a8", "--engine", "gemv", "--target", "u55c", "--quiet", "-o", design],
                       capture_output=True, text=True)
    wall = time.monotonic() - began
    if r.returncode != 0:
        fail(f"compile {name}: {r.stderr.strip()}")
    with open(os.path.join(design, "report.json")) as f:
        report = json.load(f)
    with open(os.path.join(design, "hbm", "manifest.json")) as f:
        manifest = json.load(f)
    shutil.rmtree(design, ignore_errors=True)
    return report, manifest, wall


def figures_of(name, report, manifest, wall, extra_contexts=()):
    prediction = report["step_prediction"]
    # compile predicts step c - 1 of each reported context c (each an exact simulation).
    table = dict(zip(prediction["steps"], prediction["step_cycles"]))
    windows = report["step_prediction"].get("layer_windows") or [0] * report["layers"]
    max_context = report["max_context"]
    embedding_row = embedding_row_bytes(manifest)
    points = []
    contexts = [c for c in list(CONTEXTS) + list(extra_contexts) if c <= max_context]
    for context in sorted(set(contexts + [max_context])):
        step = context - 1
        if step not in table:
            continue  # a measured context compile does not report: its sim run predicts it
        cycles = table[step]
        nbytes = step_bytes(manifest, windows, step) + embedding_row
        ms = cycles / CLOCK_HZ * 1e3
        bound_ms = nbytes / HBM_BYTES_PER_S * 1e3
        points.append({"context": context, "predicted_cycles": cycles, "ms_per_token": ms,
                       "hbm_bytes": nbytes, "hbm_gb_per_s": nbytes / (cycles / CLOCK_HZ) / 1e9,
                       "bound_ms": bound_ms, "over_bound": ms / bound_ms,
                       "over_w4_bound": ms / (W4_BOUND_MB[name] * 1e6 / HBM_BYTES_PER_S * 1e3)})
    estimate, budget = report["resource_estimate"], report["resource_budget"]
    resources = {k: {"estimate": estimate[k], "budget": budget[k],
                     "fraction": estimate[k] / budget[k]} for k in estimate if budget.get(k)}
    curve = [{"context": t + 1, "ms_per_token": table[t] / CLOCK_HZ * 1e3,
              "bound_ms": (step_bytes(manifest, windows, t) + embedding_row) / HBM_BYTES_PER_S
              * 1e3} for t in sorted(table)]
    return {"config": name, "precision": "w4a8", "engine": "gemv", "max_context": max_context,
            "compile_wall_seconds": wall, "w4_bound_mb": W4_BOUND_MB[name], "points": points,
            "resources": resources, "curve": curve}


def attention_form(m):
    """Attention's form in a measured design: one pass in tiles (compile --attention-tile), or
    two passes (designs measured before one pass existed have no such field)."""
    tile = m.get("attention_tile_positions", 0)
    return f"one pass, tiles of {tile}" if tile else "two passes"


def markdown(results, measured):
    lines = ["# Decode benchmark (GEMV engine, W4A8, 250 MHz)", "",
             "Predicted by the compiler (`tools/bench/decode_bench.py`); measured rows come from "
             "Verilator (`bench.predict.*.gemv*`). *Bound*: the step's own HBM bytes "
             "(weights, scales, norm parameters, embedding row, cached K/V rows) / 460 GB/s; "
             "*W4 bound*: the weights alone (docs/sources.md §4).", "",
             "| model | context | cycles/token | ms/token | HBM GB/s | x bound | x W4 bound |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        for p in r["points"]:
            lines.append(f"| {r['config']} | {p['context']} | {p['predicted_cycles']:,} | "
                         f"{p['ms_per_token']:.3f} | {p['hbm_gb_per_s']:.0f} | "
                         f"{p['over_bound']:.2f} | {p['over_w4_bound']:.2f} |")
    if measured:
        lines += ["", "Measured in Verilator (bit-exact against the golden model; a context "
                  "past the first few resumes over the golden KV rows, `sim --kv-prefill`):", "",
                  "| model | contexts (generated steps) | cycles/token | ms/token | x bound | "
                  "measured/predicted | HBM GB/s | Verilator s/token (model) | golden s | "
                  "engine FIFO words | attention |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for m in measured:
            # One prompt token: generated step t decodes with t + 1 tokens in the context.
            first, last = m.get("context_first", 2), m.get("context_last", m["tokens"])
            over = ""
            for r in results:
                for q in r["points"] if r["config"] == m["config"] else []:
                    if q["context"] == last:
                        over = f"{m['ms_per_token_250mhz'] / (q['ms_per_token'] / q['over_bound']):.2f}"
            per_token = m.get("verilator_seconds_per_token")
            model = (f" (-O{m['model_opt']}, {m['model_threads']} thr.)" if m.get("model_opt")
                     else "")
            walls = (f"{per_token:.0f}{model} | {m.get('golden_seconds') or 0:.0f}" if per_token
                     else " | ")
            lines.append(f"| {m['config']} | {first} .. {last} | "
                         f"{m['measured_cycles']:,.0f} | {m['ms_per_token_250mhz']:.3f} | {over} | "
                         f"{m['measured_over_predicted']:.4f} | "
                         f"{m.get('hbm_gb_per_s_250mhz', 0):.0f} | {walls} | "
                         f"{m.get('engine_fifo_words') or ''} | {attention_form(m)} |")
    lines += ["", "Resources (estimate / U55C):", "",
              "| model | LUT | FF | DSP | BRAM36 | URAM | compile wall (s), this run |",
              "|---|---|---|---|---|---|---|"]
    for r in results:
        res = r["resources"]
        cells = [f"{res[k]['fraction'] * 100:.0f} %" if k in res else "" for k in
                 ("lut", "ff", "dsp", "bram36", "uram")]
        lines.append(f"| {r['config']} | " + " | ".join(cells) +
                     f" | {r['compile_wall_seconds']:.1f} |")
    lines += ["", "Published batch-1 decode figures (docs/sources.md §1, §2) beside ours at context 64:", "",
              "| system | ms/token | ours (predicted) |", "|---|---|---|"]
    ours = {r["config"]: r["points"][0]["ms_per_token"] for r in results}
    for label, config, ms in PEERS:
        mine = f"{ours[config]:.3f}" if config in ours else ""
        lines.append(f"| {label} | {ms:.2f} | {mine} |")
    return "\n".join(lines) + "\n"


def svg(results):
    width, height, left, right, top, bottom = 760, 460, 70, 190, 30, 50
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    max_x = max(r["max_context"] for r in results)
    max_y = max(max(p["ms_per_token"] for p in r["curve"]) for r in results) * 1.05
    sx = lambda x: left + (width - left - right) * x / max_x
    sy = lambda y: height - bottom - (height - top - bottom) * y / max_y
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18">ms/token at 250 MHz against context (W4A8, GEMV engine, '
           'predicted); dashed: the bound (HBM bytes / 460 GB/s)</text>']
    for i in range(6):
        y = max_y * i / 5
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    for i in range(5):
        x = max_x * i / 4
        out.append(f'<text x="{sx(x):.1f}" y="{height - bottom + 18}" text-anchor="middle">'
                   f'{x:.0f}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" '
               'text-anchor="middle">context (tokens)</text>')
    for i, r in enumerate(results):
        c = colours[i % len(colours)]
        pts = " ".join(f"{sx(p['context']):.1f},{sy(p['ms_per_token']):.1f}" for p in r["curve"])
        bound = " ".join(f"{sx(p['context']):.1f},{sy(p['bound_ms']):.1f}" for p in r["curve"])
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{pts}"/>')
        out.append(f'<polyline fill="none" stroke="{c}" stroke-dasharray="5,4" points="{bound}"/>')
        out.append(f'<text x="{width - right + 10}" y="{top + 20 + 18 * i}" fill="{c}">'
                   f'{r["config"]}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--configs", required=True, help="the configs/ directory")
    p.add_argument("--only", help="comma-separated config names (default: all five)")
    p.add_argument("--work", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--markdown")
    p.add_argument("--svg")
    p.add_argument("--measured", nargs="*", default=[],
                   help="bench.predict JSON files of engine designs (missing ones are skipped)")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    names = args.only.split(",") if args.only else CONFIGS
    measured = []
    for path in args.measured:
        if os.path.exists(path):
            with open(path) as f:
                measured.append(json.load(f))
    results = []
    for name in names:
        report, manifest, wall = compile_config(args, os.path.join(args.configs, name))
        # The measured contexts get a predicted point too (their bound, measured/predicted).
        extra = [m.get("context_last", m["tokens"]) for m in measured if m["config"] == name]
        r = figures_of(name, report, manifest, wall, extra)
        results.append(r)
        for q in r["points"]:
            print(f"{name} context {q['context']}: {q['predicted_cycles']:,} cycles, "
                  f"{q['ms_per_token']:.3f} ms/token, {q['hbm_gb_per_s']:.0f} GB/s, "
                  f"{q['over_bound']:.2f}x its bound, {q['over_w4_bound']:.2f}x the W4 bound")
    for path, text in ((args.markdown, markdown(results, measured)),
                       (args.svg, svg(results) if args.svg else None)):
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"results": results, "measured": measured}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
