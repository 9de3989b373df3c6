#!/usr/bin/env python3
"""Checks the compiler's cycle prediction against a measured LLM run (issue 6 acceptance).

Reads the JSON that `streamtensor sim <design> --json` prints (a file, or - for stdin), prints
the measured and predicted cycles per generated token, and exits 1 unless
|measured / predicted - 1| <= tolerance (default 0.10). Exits 2 when the JSON lacks the figures
(a run of one token, a design compiled without report.json's step_prediction).
"""
import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sim_json", help="output of 'streamtensor sim --json' (- for stdin)")
    parser.add_argument("--tolerance", type=float, default=0.10)
    args = parser.parse_args()
    text = sys.stdin.read() if args.sim_json == "-" else open(args.sim_json).read()
    lines = [l for l in text.splitlines() if l.startswith("{")]
    if not lines:
        print("check_prediction: no JSON line in the sim output", file=sys.stderr)
        return 2
    run = json.loads(lines[-1])
    measured = run.get("generated_cycles_per_token")
    predicted = run.get("predicted_cycles_per_token")
    if "predicted_step_cycles" not in run or not measured or not predicted:
        print("check_prediction: need generated_cycles_per_token and the step prediction "
              "(predicted_step_cycles) in the sim JSON", file=sys.stderr)
        return 2
    ratio = measured / predicted
    ok = abs(ratio - 1) <= args.tolerance
    print(f"{run.get('top', '?')}: generated cycles/token measured {measured:.1f}, predicted "
          f"{predicted:.1f}, ratio {ratio:.3f} ({'within' if ok else 'OUTSIDE'} "
          f"{args.tolerance:.0%})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
