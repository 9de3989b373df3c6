#!/usr/bin/env python3
"""`streamtensor eval <fixture> --fidelity --text-ids FILE` as a user runs it, twice: the table
and --json. Checks that the table has one row per precision (w4a8, w8a8, w8a16) and that every
figure it prints is the JSON's figure at the printed precision (the two views carry the same
numbers), that the positions are the text's windows minus one token each, that the figures are
in range, and that W8A16 stays at its measured level against fp32 (docs/numerics.md §7:
top-1 >= 95 %, mean logit cosine >= 0.999), so a numerics regression fails here.

usage: check_fidelity_cli.py STREAMTENSOR FIXTURE_DIR TEXT_IDS_JSON
"""
import json
import subprocess
import sys


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def main():
    exe, fixture, text_ids = sys.argv[1:4]
    base = [exe, "eval", fixture, "--fidelity", "--text-ids", text_ids]
    table = run(base)
    j = json.loads(run(base + ["--json"]))
    failures = []

    with open(text_ids) as f:
        sequences = json.load(f)["sequences"]
    window = j["window"]
    expected = sum(len(s[i:i + window]) - 1 for s in sequences for i in range(0, len(s), window)
                   if len(s[i:i + window]) >= 2)
    if j["positions"] != expected:
        failures.append(f"positions {j['positions']}, expected {expected}")
    if f"{j['positions']} positions in {j['sequences']} sequence(s)" not in table:
        failures.append("the table's header does not state the JSON's positions and sequences")

    rows = [line for line in table.splitlines() if line.startswith("| w")]
    names = [r.split("|")[1].strip() for r in rows]
    if names != ["w4a8", "w8a8", "w8a16"] or [p["precision"] for p in j["precisions"]] != names:
        failures.append(f"precision rows {names}, JSON {[p['precision'] for p in j['precisions']]}")
    for row, p in zip(rows, j["precisions"]):
        cells = [c.strip() for c in row.split("|")[2:-1]]
        printed = {
            "top1_agreement": (float(cells[0].rstrip(" %")) / 100, 5e-5),
            "mean_cosine": (float(cells[1]), 5e-6),
            "min_cosine": (float(cells[2]), 5e-6),
            "perplexity": (float(cells[3]), 5e-5),
            "fp32_perplexity": (float(cells[4]), 5e-5),
        }
        for key, (value, half_unit) in printed.items():
            if abs(value - p[key]) > half_unit * 1.0001:
                failures.append(f"{p['precision']} {key}: table {value}, JSON {p[key]}")
        if not (0 <= p["top1_agreement"] <= 1 and -1 <= p["min_cosine"] <= p["mean_cosine"] <= 1
                and p["perplexity"] > 0):
            failures.append(f"{p['precision']}: figures out of range {p}")
        if p["fp32_perplexity"] != j["fp32_perplexity"]:
            failures.append(f"{p['precision']}: fp32_perplexity differs from the top level's")
    w8a16 = next((p for p in j["precisions"] if p["precision"] == "w8a16"), None)
    if w8a16 and (w8a16["top1_agreement"] < 0.95 or w8a16["mean_cosine"] < 0.999):
        failures.append(f"W8A16 below its measured level: {w8a16}")

    print(table)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"table and JSON agree on {len(rows)} precisions x 5 figures, {j['positions']} positions")


if __name__ == "__main__":
    main()
