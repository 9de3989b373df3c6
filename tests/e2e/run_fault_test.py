#!/usr/bin/env python3
"""A planted fault in an LLM design is caught (CTest `e2e.fault.*`, label `e2e`; one Verilator
build per test, ccache shared): the fixture is compiled with one FIFO forced below the depth
the LP chose (`compile <model-dir> --fifo-depth STREAM=DEPTH`) and decoded in Verilator. Never a
silent hang: with --expect deadlock the run must stop at the watchdog, exit non-zero with
"deadlock": true, and the watchdog must name the forced stream: its producer kernel blocked
writing it into its consumer kernel (FIFO full at DEPTH/DEPTH), the stream among the full FIFOs,
and a closed wait-for cycle of kernels through it; the printed stall report says so. With
--expect bit_exact the run must still complete bit-exactly (tokens, KV rows and taps against the
golden model), without a watchdog false alarm, the forced FIFO passing all its tokens, within
the default cycle budget; and with --timeout a third of its cycles it must stop as a timeout
(not a deadlock, not a mismatch) that reports the steps it finished."""
import argparse
import json
import os
import shutil
import subprocess
import sys


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def fail(message):
    sys.exit(f"FAIL: {message}")


def compile_design(args, out, forced):
    cmd = [args.streamtensor, "compile", args.model, "--precision", args.precision,
           "--target", "u55c", "-o", out]
    if args.engine:
        cmd += ["--engine", args.engine]
    if forced:
        cmd += ["--fifo-depth", f"{args.stream}={args.depth}"]
    rc, log = run(cmd)
    if rc != 0:
        print(log)
        fail(f"compile {' '.join(cmd[2:])} exited with {rc}")
    with open(os.path.join(out, "report.json")) as f:
        return {s["name"]: s for s in json.load(f)["streams"]}


def check_timeout(args, sim, complete):
    """The same design with a budget of a third of its cycles: the run stops as a timeout, not
    a deadlock or a mismatch, with the steps it finished; the default budget (3x the predicted
    cycles) was enough for the complete run."""
    budget = complete["cycles"] // 3
    if complete.get("budget_cycles", 0) < complete["cycles"]:
        fail(f"the default budget {complete.get('budget_cycles')} is below the run's "
             f"{complete['cycles']} cycles")
    rc, log = run(sim + ["--json", "--timeout", str(budget)])
    lines = [l for l in log.splitlines() if l.startswith("{")]
    if not lines:
        print(log)
        fail(f"sim --timeout {budget} printed no JSON result (exit {rc})")
    r = json.loads(lines[-1])
    steps = len(args.prompt_ids.split(",")) + args.tokens - 1
    print(f"--timeout {budget}: exit {rc}, timeout {r.get('timeout')}, deadlock "
          f"{r.get('deadlock')}, completed_steps {r.get('completed_steps')} of {steps}")
    if rc == 0 or not r.get("timeout") or r.get("deadlock") or r.get("bit_exact"):
        fail(f"a run out of budget must exit non-zero as a timeout, not a deadlock: exit {rc}, "
             f"timeout={r.get('timeout')}, deadlock={r.get('deadlock')}")
    if "first_mismatch" in r or "watchdog" in r:
        fail(f"a timeout must not be reported as a mismatch or a watchdog deadlock: {r}")
    if r.get("completed_steps") is None or not 0 <= r["completed_steps"] < steps:
        fail(f"the timeout should report the steps it finished: {r.get('completed_steps')}")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--model", required=True, help="a fixture model directory")
    p.add_argument("--precision", default="w4a8")
    p.add_argument("--engine", help="compile --engine (default: the compiler's)")
    p.add_argument("--stream", required=True, help="the stream whose FIFO is forced")
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--producer", required=True, help="the stream's producer kernel")
    p.add_argument("--consumer", required=True, help="the stream's consumer kernel")
    p.add_argument("--expect", choices=["deadlock", "bit_exact"], required=True)
    p.add_argument("--prompt-ids", default="1,2,3")
    p.add_argument("--tokens", type=int, default=2)
    p.add_argument("--watchdog", type=int, default=5000)
    p.add_argument("--work", required=True)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)

    # The LP's depth (compile only), then the design with the FIFO forced below it. The design
    # directory is kept between runs so its testbench build is incremental.
    lp = compile_design(args, os.path.join(args.work, "lp"), False)
    if args.stream not in lp:
        fail(f"{args.stream} is not a stream of the design: {sorted(lp)[:5]} ...")
    lp_depth = lp[args.stream]["fifo_depth"]
    if lp_depth <= args.depth:
        fail(f"the LP sizes {args.stream} to {lp_depth}: the test needs a depth below it "
             f"(forced {args.depth})")
    if (lp[args.stream]["from"], lp[args.stream]["to"]) != (args.producer, args.consumer):
        fail(f"{args.stream} runs {lp[args.stream]['from']} -> {lp[args.stream]['to']}, "
             f"not {args.producer} -> {args.consumer}")
    design = os.path.join(args.work, "forced")
    shutil.rmtree(os.path.join(design, "sim"), ignore_errors=True)
    forced = compile_design(args, design, True)
    if forced[args.stream]["fifo_depth"] != args.depth:
        fail(f"compile --fifo-depth did not force {args.stream}: report.json says depth "
             f"{forced[args.stream]['fifo_depth']}")

    sim = [args.streamtensor, "sim", design, "--prompt-ids", args.prompt_ids, "--tokens",
           str(args.tokens), "--watchdog", str(args.watchdog)]
    rc, log = run(sim + ["--json"])
    lines = [l for l in log.splitlines() if l.startswith("{")]
    if not lines:
        print(log)
        fail(f"sim printed no JSON result (exit {rc})")
    result = json.loads(lines[-1])
    streams = {s["name"]: s for s in result.get("streams", [])}
    if args.stream not in streams:
        fail(f"the result has no stall report entry for {args.stream}")
    mine = streams[args.stream]
    print(f"LP depth {lp_depth}, forced {args.depth}: exit {rc}, deadlock "
          f"{result.get('deadlock')}, bit_exact {result.get('bit_exact')}, "
          f"{result.get('cycles')} cycles; {args.stream}: high-water "
          f"{mine['fifo_high_water']} / {mine['fifo_depth']}, stalled on ready "
          f"{mine['stalled_on_ready']}")
    for f in ("stall_report.json", "stall_report.md"):
        if not os.path.exists(os.path.join(design, "sim", f)):
            fail(f"sim did not write sim/{f}")
    if mine["fifo_depth"] != args.depth or mine["fifo_high_water"] > args.depth:
        fail(f"the stall report should show the forced FIFO at depth {args.depth}: {mine}")
    for s in streams.values():
        if s["fifo_high_water"] > s["fifo_depth"]:
            fail(f"a FIFO held more than its depth: {s}")

    if args.expect == "bit_exact":
        if rc != 0 or not result.get("bit_exact") or result.get("deadlock"):
            fail(f"with {args.stream} at depth {args.depth} the run must still complete "
                 f"bit-exactly: exit {rc}, bit_exact={result.get('bit_exact')}, "
                 f"deadlock={result.get('deadlock')}, "
                 f"first_mismatch={result.get('first_mismatch')}")
        if result["tokens"] != result["golden_tokens"]:
            fail(f"tokens {result['tokens']} != golden {result['golden_tokens']}")
        if mine["transfers"] != mine["tokens"] or mine["fifo_count"] != 0:
            fail(f"the forced FIFO did not pass the whole run's tokens: {mine}")
        check_timeout(args, sim, result)
        print("PASS")
        return

    # --expect deadlock: the watchdog, not the timeout, ends the run and names the stream.
    print(json.dumps(result.get("watchdog"), indent=1))
    if rc == 0 or not result.get("deadlock") or result.get("bit_exact"):
        fail(f"the forced design must deadlock and exit non-zero: exit {rc}, "
             f"deadlock={result.get('deadlock')}, bit_exact={result.get('bit_exact')}")
    dog = result.get("watchdog")
    if not dog:
        fail(f"no watchdog diagnosis in the result (blocked_at_timeout: "
             f"{result.get('blocked_at_timeout')})")
    writers = {(w["kernel"], w["stream"], w["consumer"]): w for w in dog["blocked_writers"]}
    key = (args.producer, args.stream, args.consumer)
    if key not in writers:
        fail(f"the watchdog does not name {args.producer} blocked writing {args.stream} into "
             f"{args.consumer}: {sorted(writers)}")
    if writers[key]["fifo_count"] != args.depth or writers[key]["fifo_depth"] != args.depth:
        fail(f"the forced FIFO should be full at {args.depth}/{args.depth}: {writers[key]}")
    if args.stream not in dog["full_fifos"]:
        fail(f"{args.stream} is not among the full FIFOs: {dog['full_fifos']}")
    cycle = dog.get("wait_cycle", [])
    closed = cycle and all(cycle[i]["waits_for"] == cycle[(i + 1) % len(cycle)]["kernel"]
                           for i in range(len(cycle)))
    if not closed or (args.producer, args.consumer, args.stream) not in {
            (c["kernel"], c["waits_for"], c["stream"]) for c in cycle}:
        fail(f"the wait-for cycle does not pass through {args.stream}: {cycle}")
    print("wait-for cycle: " + " -> ".join(c["kernel"] for c in cycle + cycle[:1]))
    # The printed report says it in words (same build, text mode).
    rc, text = run(sim)
    want = f"kernel {args.producer} blocked writing stream {args.stream} into kernel {args.consumer}"
    if rc == 0 or want not in text or "DEADLOCK" not in text:
        print(text)
        fail(f"the printed stall report lacks '{want}' or DEADLOCK (exit {rc})")
    print("PASS")


if __name__ == "__main__":
    main()
