#!/usr/bin/env python3
"""Observability of a generated design (CTest `graph.observe`, label `graph`; one Verilator
build, the traced one): diamond with its bypass FIFO `fork_pre.out1_to_cvt_pre_1.in` forced to
depth 2 (the LP sizes it deeper) deadlocks. `streamtensor sim --trace --json --watchdog N`
must
  1. stop at the watchdog, exit non-zero, report "deadlock": true, and name the blocked kernels
     and streams: fork_pre blocked writing the bypass into cvt_pre_1 (its FIFO full, 2/2), and
     cvt_pre_0 waiting on fork_pre's other output, and the cycle of kernels each waiting for the
     next through both arms; the printed stall report says so in words;
  2. report the forced FIFO's high-water mark as 2 (its depth), every high-water mark within
     its FIFO's depth, and sim/stall_report.{json,md}, and draw sim/stall_report.svg with the
     streams of the wait-for cycle bold (the picture of the deadlock);
  3. write sim/trace.fst and sim/trace.gtkw, the save file in GTKWave's syntax, every signal it
     names present in the FST (fst2vcd's $var list), one group per producer node."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from picture_checks import check_stall_svg  # noqa: E402

BYPASS = "fork_pre.out1_to_cvt_pre_1.in"


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def fail(message):
    sys.exit(f"FAIL: {message}")


def fst_signals(fst):
    """Every signal of the FST as scope.name (GTKWave's trace names, vectors with [msb:lsb])."""
    rc, vcd = run(["fst2vcd", fst])
    if rc != 0:
        fail(f"fst2vcd {fst} exited with {rc}")
    scope, names = [], set()
    for line in vcd.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "$scope":
            scope.append(words[2])
        elif words[0] == "$upscope":
            scope.pop()
        elif words[0] == "$var":
            # $var wire 64 ! name [63:0] $end
            name = words[4] + (words[5] if words[5] != "$end" else "")
            names.add(".".join(scope + [name]))
        elif words[0] == "$enddefinitions":
            break
    return names


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--streamtensor", required=True)
    p.add_argument("--graph", required=True, help="tests/graph/diamond.yaml")
    p.add_argument("--work", required=True)
    p.add_argument("--watchdog", type=int, default=2000)
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    # The LP's depth for the bypass (compile only: no simulation).
    lp_design = os.path.join(args.work, "lp")
    rc, log = run([args.streamtensor, "compile", args.graph, "-o", lp_design])
    if rc != 0:
        print(log)
        fail(f"compile exited with {rc}")
    with open(os.path.join(lp_design, "report.json")) as f:
        lp_depth = {s["name"]: s["fifo_depth"] for s in json.load(f)["streams"]}[BYPASS]
    if lp_depth <= 2:
        fail(f"the LP sizes {BYPASS} to {lp_depth}: the test needs a FIFO it sizes deeper than 2")

    design = os.path.join(args.work, "forced")
    rc, log = run([args.streamtensor, "compile", args.graph, "-o", design,
                   "--fifo-depth", f"{BYPASS}=2"])
    if rc != 0:
        print(log)
        fail(f"compile --fifo-depth exited with {rc}")

    # 1. The deadlock, named by the watchdog.
    rc, log = run([args.streamtensor, "sim", design, "--json", "--trace",
                   "--watchdog", str(args.watchdog)])
    lines = [l for l in log.splitlines() if l.startswith("{")]
    if not lines:
        print(log)
        fail(f"sim printed no JSON result (exit {rc})")
    result = json.loads(lines[-1])
    print(json.dumps(result.get("watchdog"), indent=1))
    if rc == 0 or not result.get("deadlock") or result.get("bit_exact"):
        fail(f"the forced design must deadlock and exit non-zero: exit {rc}, "
             f"deadlock={result.get('deadlock')}, bit_exact={result.get('bit_exact')}")
    dog = result.get("watchdog")
    if not dog:
        fail("no watchdog diagnosis in the result")
    if result["cycles"] > 4 * args.watchdog:
        fail(f"the watchdog ({args.watchdog} idle cycles) stopped the run only after "
             f"{result['cycles']} cycles")
    writers = {(w["kernel"], w["stream"], w["consumer"]) for w in dog["blocked_writers"]}
    if ("fork_pre", BYPASS, "cvt_pre_1") not in writers:
        fail(f"the watchdog does not name fork_pre blocked writing {BYPASS} into cvt_pre_1: "
             f"{sorted(writers)}")
    bypass_writer = [w for w in dog["blocked_writers"] if w["stream"] == BYPASS][0]
    if bypass_writer["fifo_count"] != 2 or bypass_writer["fifo_depth"] != 2:
        fail(f"the bypass FIFO should be full at 2/2: {bypass_writer}")
    readers = {(r["kernel"], r["stream"], r["producer"]) for r in dog["waiting_readers"]}
    if ("cvt_pre_0", "fork_pre.out0_to_cvt_pre_0.in", "fork_pre") not in readers:
        fail(f"the watchdog does not name cvt_pre_0 waiting on fork_pre.out0: {sorted(readers)}")
    # The deadlock itself: a closed cycle of kernels each waiting for the next, through the
    # bypass (fork_pre can not write it) and the other arm (cvt_pre_0 waits on fork_pre).
    cycle = dog.get("wait_cycle", [])
    closed = cycle and all(cycle[i]["waits_for"] == cycle[(i + 1) % len(cycle)]["kernel"]
                           for i in range(len(cycle)))
    steps = {(c["kernel"], c["waits_for"], c["stream"]) for c in cycle}
    if not closed or ("fork_pre", "cvt_pre_1", BYPASS) not in steps or \
            ("cvt_pre_0", "fork_pre", "fork_pre.out0_to_cvt_pre_0.in") not in steps:
        fail(f"the watchdog's wait-for cycle is not the bypass deadlock: {cycle}")
    print("wait-for cycle: " + " -> ".join(c["kernel"] for c in cycle + cycle[:1]))
    if BYPASS not in dog["full_fifos"]:
        fail(f"the bypass FIFO is not among the full FIFOs: {dog['full_fifos']}")

    # 2. The stall report of the deadlocked run.
    streams = {s["name"]: s for s in result["streams"]}
    if streams[BYPASS]["fifo_high_water"] != 2 or streams[BYPASS]["fifo_depth"] != 2:
        fail(f"the forced FIFO (LP depth {lp_depth}) reports high-water "
             f"{streams[BYPASS]['fifo_high_water']} / depth {streams[BYPASS]['fifo_depth']}, "
             f"expected 2 / 2")
    for s in streams.values():
        if s["fifo_high_water"] > s["fifo_depth"] or s["transfers"] > s["tokens"]:
            fail(f"inconsistent stall report entry {s}")
    for f in ("stall_report.json", "stall_report.md"):
        if not os.path.exists(os.path.join(design, "sim", f)):
            fail(f"sim did not write sim/{f}")
    error = check_stall_svg(design, "")
    if error:
        fail(error)
    with open(os.path.join(design, "sim", "stall_report.dot")) as f:
        bold = [line for line in f if "style=bold" in line]
    if not any(BYPASS in line and "wait-for cycle" in line for line in bold):
        fail(f"stall_report.dot does not draw {BYPASS} bold as part of the wait-for cycle")
    # The printed report says it in words (same build, text mode).
    rc, text = run([args.streamtensor, "sim", design, "--trace", "--watchdog",
                    str(args.watchdog)])
    want = f"kernel fork_pre blocked writing stream {BYPASS} into kernel cvt_pre_1"
    if rc == 0 or want not in text or "DEADLOCK" not in text:
        print(text)
        fail(f"the printed stall report lacks '{want}' or DEADLOCK (exit {rc})")

    # 3. The waveform and its GTKWave save file.
    fst = os.path.join(design, "sim", "trace.fst")
    gtkw = os.path.join(design, "sim", "trace.gtkw")
    for f in (fst, gtkw):
        if not os.path.exists(f) or os.path.getsize(f) == 0:
            fail(f"sim --trace did not write {f}")
    have = fst_signals(fst)
    with open(gtkw) as f:
        save = f.read().splitlines()
    named, groups = [], []
    for i, line in enumerate(save):
        if not line or line.startswith("[") or line.startswith("*"):
            continue
        if re.fullmatch(r"@[0-9a-fA-F]+", line):
            continue
        if line.startswith("-"):
            if save[i - 1] == "@800200":
                groups.append(line[1:])
            continue
        named.append(line)
    missing = [n for n in named if n not in have]
    if missing:
        fail(f"the .gtkw names {len(missing)} signals the FST lacks, e.g. {missing[:3]}")
    producers = {s["producer"].split(".")[0] for s in result["streams"]}
    if len(groups) != len(producers):
        fail(f"{len(groups)} groups in the .gtkw for {len(producers)} producer nodes")
    if not any(n.endswith(f"_fifo_count[1:0]") for n in named):
        fail("the .gtkw shows no FIFO occupancy")
    print(f"trace: {len(named)} signals in {len(groups)} groups, all in the FST "
          f"({len(have)} signals)")
    print("PASS")


if __name__ == "__main__":
    main()
