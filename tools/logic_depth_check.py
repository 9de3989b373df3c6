#!/usr/bin/env python3
"""Logic depth of the RTL templates at the parameters a generated design instantiates them with.

For every distinct (template, parameters) pair the top SystemVerilog of one or more design
directories (`streamtensor compile ... -o DIR`) instantiates, Yosys synthesizes the template on
its own, flattened, for UltraScale+ (`synth_xilinx -family xcup -flatten`), and this script
measures the deepest combinational path between sequential cells in logic levels. It fails when
a template is deeper than --limit (docs/logic-depth.md: the limit, its source, the method and
the measured table) and lists the nets with more than --fanout loads.

The depth: a longest-path walk over the flattened netlist (`write_json`), the same walk `ltp
-noff` does, cut at the sequential cells: FD*, SRL*, RAMB18E2/RAMB36E2, URAM288 and DSP48E2 (the
multiplier's input and output registers are packed into the DSP by Vivado; the logic before and
after a DSP is reported in its own columns). One LUT, MUXF7/8/9 or LUTRAM read is one level;
Yosys 0.23 maps carry chains to CARRY4 where Vivado uses CARRY8, so a CARRY4 continuing a chain
from another CARRY4's CO counts half a level (a chain of n CARRY4 counts ceil(n/2), the CARRY8s
Vivado places), and a CARRY4 whose S and DI are all constant counts none (Vivado folds it). Yosys's own `ltp -noff` runs too, after the sequential cells are deleted (it
treats FDRE as logic otherwise, -noff knowing only Yosys's internal flip-flops); its length (in
cells, CARRY4 counted whole) is printed beside the figure as a cross-check, and is never smaller.

Depths split by where a path starts and ends: reg->reg (the figure checked), in->reg, reg->out
and in->out (module ports). A template's ports connect through the top's wires to other
templates; docs/logic-depth.md says how those paths are bounded.

--hier Parent:Child keeps every instance of Child inside Parent as its own module
(keep_hierarchy): the GEMV engine's 32 channels are the same module, so Yosys maps one instead
of 32. The child is measured flattened on its own, and inside the parent each child instance is
a node whose input pins carry the child's in->reg depth and whose outputs start at the child's
reg->out depth (and pass in->out through): paths crossing the boundary are counted whole, with
the child's worst pin standing for every pin (an upper bound).
"""
import argparse
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

SEQ = re.compile(r"^(FD[CPRS]E|SRL16E|SRLC32E|SRLC16E|RAMB18E2|RAMB36E2|URAM288|DSP48E2)$")
CLOCK_PINS = {"C", "CLK", "WCLK", "CLKARDCLK", "CLKBWRCLK"}
# LUTRAM: the read is combinational from the read address; data in and write enable are
# sampled at the clock.
LUTRAM = re.compile(r"^RAM(32|64|128|256|512)")
LUTRAM_COMB_IN = re.compile(r"^(ADDR[A-H]|A\d*|DPRA\d*|A)$")


def parse_instances(top_sv):
    """(template, ((name, value), ...)) for every template instance of a generated top."""
    text = open(top_sv).read()
    out = []
    for m in re.finditer(r"^\s*(st_\w+)\s*#\s*\((.*?)\)\s*(\w+)\s*\(", text, re.S | re.M):
        params = tuple(re.findall(r"\.(\w+)\(\s*((?:\"[^\"]*\")|[^()]*?)\s*\)", m.group(2)))
        out.append((m.group(1), params))
    for m in re.finditer(r"^\s*(st_\w+)\s+(\w+)\s*\(", text, re.M):
        out.append((m.group(1), ()))
    return out


def design_sources(design_dir, templates_dir=None):
    """The design's sources in its filelist's order; with templates_dir, each template's copy in
    the design is replaced by the tree's own file (the design gives the parameters only)."""
    rtl = os.path.join(design_dir, "rtl")
    tree = {}
    if templates_dir:
        for root, _, names in os.walk(templates_dir):
            for n in names:
                tree[n] = os.path.join(root, n)
    files = [tree.get(f.strip(), os.path.join(rtl, f.strip()))
             for f in open(os.path.join(rtl, "filelist.f")) if f.strip()]
    tops = [f for f in files if f.endswith("_top.sv")]
    return [f for f in files if not f.endswith("_top.sv")], tops


def yosys_value(v):
    """A parameter value as chparam takes it: strings quoted, negative integers (which chparam
    cannot parse) as their 32-bit two's complement."""
    if v.startswith('"'):
        return v
    v = v.replace(" ", "")
    if re.fullmatch(r"-\d+", v):
        return "32'b" + format((1 << 32) + int(v), "032b")
    return v


class Netlist:
    """One module of Yosys's write_json output, as a graph of cells."""

    def __init__(self, mod, boxes=None):
        self.cells = mod.get("cells", {})
        self.ports = mod.get("ports", {})
        self.boxes = boxes or {}  # cell type -> child figures
        self.driver = {}  # bit -> (cell, port)
        for name, c in self.cells.items():
            for port, bits in c["connections"].items():
                if c.get("port_directions", {}).get(port) == "output":
                    for b in bits:
                        if isinstance(b, int):
                            self.driver[b] = (name, port)
        self.memo = {}
        self.names = {}
        for net, info in mod.get("netnames", {}).items():
            for i, b in enumerate(info["bits"]):
                if isinstance(b, int):
                    old = self.names.get(b)
                    label = f"{net}[{i}]" if len(info["bits"]) > 1 else net
                    if old is None or (old.startswith("$") and not net.startswith("$")):
                        self.names[b] = label

    def kind(self, cell):
        t = self.cells[cell]["type"]
        if t in self.boxes:
            return "box"
        if SEQ.match(t):
            return "seq"
        return "comb"

    def comb_inputs(self, cell):
        c = self.cells[cell]
        t = c["type"]
        for port, bits in c["connections"].items():
            if c.get("port_directions", {}).get(port) != "input" or port in CLOCK_PINS:
                continue
            if LUTRAM.match(t) and not LUTRAM_COMB_IN.match(port):
                continue
            for b in bits:
                if isinstance(b, int):
                    yield port, b

    def weight(self, cell, port_from_cell):
        t = self.cells[cell]["type"]
        if t in ("GND", "VCC", "BUFG", "IBUF", "OBUF", "INV"):
            return 0.0 if t != "INV" else 1.0
        if t == "CARRY4":
            if self.constant_carry(cell):
                return 0.0
            return 0.5 if port_from_cell == "CI_CARRY4" else 1.0
        return 1.0

    def constant_carry(self, cell):
        """A CARRY4 whose S and DI are all constants only passes or replaces its carry: the
        upper part of the 32-bit index arithmetic Yosys leaves for `a[i] <= x` and similar,
        which Vivado's constant propagation removes."""
        c = self.cells[cell]["connections"]
        return all(not isinstance(b, int) for p in ("S", "DI") for b in c.get(p, []))

    def arrival(self, bit):
        """(from_reg, from_in, from_dsp) depth at a bit: the levels of the deepest path from a
        register output, from a module input, and from a DSP output (None: no such path)."""
        d = self.driver.get(bit)
        if d is None:
            return (None, 0.0, None)  # a module input (or undriven/constant)
        cell, port = d
        k = self.kind(cell)
        if k == "seq":
            if self.cells[cell]["type"] == "DSP48E2":
                return (None, None, 0.0)
            return (0.0, None, None)
        if k == "box":
            child = self.boxes[self.cells[cell]["type"]]
            through = self.cell_arrival(cell)
            r = child["reg_to_out"]
            dsp = child.get("dsp_to_out")
            fr = max_opt(r, add_opt(through[0], child["in_to_out"]))
            fi = add_opt(through[1], child["in_to_out"])
            fd = max_opt(dsp, add_opt(through[2], child["in_to_out"]))
            return (fr, fi, fd)
        return self.cell_arrival(cell)

    def cell_arrival(self, cell):
        """Arrival at the output of a combinational cell (or, for a box, at its input pins)."""
        if cell in self.memo:
            return self.memo[cell]
        # Iterative depth-first walk: the netlists have paths hundreds of cells long.
        stack, open_ = [(cell, False)], set()
        while stack:
            c, expanded = stack.pop()
            if c in self.memo:
                continue
            if expanded:
                self.memo[c] = self._eval(c)
                open_.discard(c)
                continue
            open_.add(c)
            stack.append((c, True))
            for _, b in self.comb_inputs(c):
                d = self.driver.get(b)
                if d and d[0] not in self.memo and self.kind(d[0]) in ("comb", "box"):
                    if d[0] in open_:
                        raise RuntimeError(f"combinational loop through {d[0]}")
                    stack.append((d[0], False))
        return self.memo[cell]

    def _eval(self, cell):
        best = [None, None, None]
        box = self.kind(cell) == "box"
        for port, b in self.comb_inputs(cell):
            a = self.arrival(b)
            w = 0.0 if box else self.weight(cell, self._ci_kind(cell, port, b))
            for i in range(3):
                if a[i] is not None:
                    v = a[i] + w
                    if best[i] is None or v > best[i]:
                        best[i] = v
        if not box and all(x is None for x in best):
            best[2] = None
            best[1] = 0.0 + self.weight(cell, None)  # constant-fed: count as an input path
        return tuple(best)

    def _ci_kind(self, cell, port, bit):
        if self.cells[cell]["type"] == "CARRY4" and port == "CI":
            d = self.driver.get(bit)
            if d and self.cells[d[0]]["type"] == "CARRY4":
                return "CI_CARRY4"
        return None

    def endpoints(self):
        """(kind, bit, extra) for every path end: register inputs, DSP inputs, box inputs and
        module outputs."""
        for name, c in self.cells.items():
            k = self.kind(name)
            if k in ("seq", "box"):
                for port, bits in c["connections"].items():
                    if c.get("port_directions", {}).get(port) != "input" or port in CLOCK_PINS:
                        continue
                    for b in bits:
                        if isinstance(b, int):
                            if k == "box":
                                yield "box", b, name
                            elif c["type"] == "DSP48E2":
                                yield "dsp", b, name
                            else:
                                yield "reg", b, name
        for pname, p in self.ports.items():
            if p["direction"] == "output":
                for b in p["bits"]:
                    if isinstance(b, int):
                        yield "out", b, pname

    def measure(self):
        fig = {k: None for k in ("reg_to_reg", "in_to_reg", "reg_to_out", "in_to_out",
                                 "reg_to_dsp", "dsp_to_reg", "dsp_to_out", "in_to_dsp")}
        worst_bit = None
        for kind, b, where in self.endpoints():
            fr, fi, fd = self.arrival(b)
            if kind == "box":
                child = self.boxes[self.cells[where]["type"]]
                fr, fi, fd = (add_opt(fr, child["in_to_reg"]), add_opt(fi, child["in_to_reg"]),
                              add_opt(fd, child["in_to_reg"]))
                kind = "reg"
            if kind == "reg":
                if fr is not None and (fig["reg_to_reg"] is None or fr > fig["reg_to_reg"]):
                    fig["reg_to_reg"], worst_bit = fr, b
                fig["in_to_reg"] = max_opt(fig["in_to_reg"], fi)
                fig["dsp_to_reg"] = max_opt(fig["dsp_to_reg"], fd)
            elif kind == "dsp":
                fig["reg_to_dsp"] = max_opt(fig["reg_to_dsp"], fr)
                fig["in_to_dsp"] = max_opt(fig["in_to_dsp"], fi)
                fig["reg_to_reg"] = max_opt(fig["reg_to_reg"], fd)
            else:
                fig["reg_to_out"] = max_opt(fig["reg_to_out"], fr)
                fig["in_to_out"] = max_opt(fig["in_to_out"], fi)
                fig["dsp_to_out"] = max_opt(fig["dsp_to_out"], fd)
        for k, v in fig.items():
            if v is not None:
                fig[k] = int(math.ceil(v))
        # Vivado packs the registers next to a multiply into the DSP (AREG/BREG, MREG/PREG):
        # the paths into and out of a DSP are register paths too, and count in the figure.
        fig["reg_to_reg_only"] = fig["reg_to_reg"]
        fig["reg_to_reg"] = max((fig[k] for k in ("reg_to_reg", "reg_to_dsp", "dsp_to_reg")
                                 if fig[k] is not None), default=None)
        fig["path"] = self.trace(worst_bit) if worst_bit is not None else []
        return fig

    def trace(self, bit):
        """The deepest reg-started path ending at `bit`, as cell types and net names."""
        path = []
        while True:
            d = self.driver.get(bit)
            if d is None or self.kind(d[0]) != "comb":
                path.append(self.names.get(bit, str(bit)))
                break
            cell = d[0]
            path.append(f"{self.cells[cell]['type']}:{self.names.get(bit, str(bit))}")
            nxt, best = None, None
            for port, b in self.comb_inputs(cell):
                a = self.arrival(b)[0]
                if a is not None and (best is None or a > best):
                    best, nxt = a, b
            if nxt is None:
                break
            bit = nxt
        return list(reversed(path))

    def fanout(self, threshold):
        loads = {}
        for name, c in self.cells.items():
            for port, bits in c["connections"].items():
                if c.get("port_directions", {}).get(port) != "input" or port in CLOCK_PINS:
                    continue
                for b in bits:
                    if isinstance(b, int):
                        loads[b] = loads.get(b, 0) + 1
        return sorted(((self.names.get(b, str(b)), n) for b, n in loads.items() if n > threshold),
                      key=lambda x: -x[1])


def max_opt(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def add_opt(a, b):
    if a is None or b is None:
        return None
    return a + b


def module_named(modules, template):
    for name in modules:
        if name == template or re.match(r"^\$paramod(\$[0-9a-f]+)?\\" + re.escape(template) + r"(\\|$)", name):
            return name
    return None


def synthesize(yosys, sources, template, params, hier_children, tmp, max_gb=None):
    script = os.path.join(tmp, "run.ys")
    netlist = os.path.join(tmp, "net.json")
    ltp_log = os.path.join(tmp, "ltp.log")
    lines = ["read_verilog -sv " + " ".join(sources)]
    if params:
        lines.append("chparam " + " ".join(f"-set {n} {yosys_value(v)}" for n, v in params)
                     + f" {template}")
    synth = f"synth_xilinx -family xcup -top {template} -noiopad -flatten"
    if hier_children:
        # The children get keep_hierarchy between elaboration and flattening.
        lines.append(synth + " -run :prepare")
        for child in hier_children:
            lines.append(f"setattr -mod -set keep_hierarchy 1 $paramod*{child}* {child}")
        synth += " -run prepare:"
    lines += [synth,
              f"write_json {netlist}",
              "delete t:FD* t:SRL* t:RAMB* t:URAM* t:DSP48E2",
              f"tee -q -o {ltp_log} ltp -noff"]
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    def cap_memory():
        if max_gb:
            resource.setrlimit(resource.RLIMIT_AS, (int(max_gb * 2**30), int(max_gb * 2**30)))
    proc = subprocess.run([yosys, "-q", "-s", script], capture_output=True, text=True,
                          preexec_fn=cap_memory)
    if proc.returncode != 0:
        raise RuntimeError(f"yosys failed on {template}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    with open(netlist) as f:
        design = json.load(f)
    ltp = {}
    for m in re.finditer(r"Longest topological path in (\S+) \(length=(\d+)\)", open(ltp_log).read()):
        ltp[m.group(1).lstrip("\\")] = int(m.group(2))
    return design, ltp


def count_cells(mod):
    n = {"LUT": 0, "FF": 0, "DSP": 0}
    for c in mod.get("cells", {}).values():
        t = c["type"]
        if t.startswith("LUT"):
            n["LUT"] += 1
        elif t.startswith("FD"):
            n["FF"] += 1
        elif t.startswith("DSP"):
            n["DSP"] += 1
    return n


def measure_pair(args, sources, template, params, hier):
    children = [c for p, c in hier if p == template]
    with tempfile.TemporaryDirectory() as tmp:
        design, ltp = synthesize(args.yosys, sources, template, params, children, tmp,
                                 args.max_memory_gb)
    modules = design["modules"]
    top_name = next(n for n, m in modules.items() if m.get("attributes", {}).get("top"))
    boxes, result = {}, {"children": {}}
    for child in children:
        for name, mod in modules.items():
            if name != top_name and (name == child or name.endswith("\\" + child)
                                     or re.search(r"\\" + re.escape(child) + r"(\\|$)", name)):
                net = Netlist(mod)
                fig = net.measure()
                fig["fanout"] = net.fanout(args.fanout)
                fig["cells"] = count_cells(mod)
                # ltp names the module by its derived name
                fig["ltp"] = next((v for k, v in ltp.items() if child in k), None)
                boxes[name] = fig
                result["children"][child] = fig
    top = Netlist(modules[top_name], boxes)
    fig = top.measure()
    fig["fanout"] = top.fanout(args.fanout)
    fig["cells"] = count_cells(modules[top_name])
    fig["ltp"] = ltp.get(top_name.lstrip("\\"), max(ltp.values()) if ltp else None)
    result.update(fig)
    return result


def write_report(args, rows):
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    with open(args.report, "w") as f:
        json.dump({"limit": args.limit, "fanout_threshold": args.fanout, "rows": rows},
                  f, indent=1, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--yosys", default="yosys")
    ap.add_argument("--design", action="append", default=[],
                    help="design directory written by `streamtensor compile` (repeatable)")
    ap.add_argument("--config", action="append", default=[],
                    help="model directory (configs/...): compiled with --streamtensor at W4A8 "
                    "for the U55C into --work, then measured as a --design")
    ap.add_argument("--streamtensor", help="the streamtensor binary, for --config")
    ap.add_argument("--work", help="where --config designs are written")
    ap.add_argument("--pair", action="append", default=[],
                    help="TEMPLATE[:Name=Value,...] measured with the --sources (repeatable)")
    ap.add_argument("--templates", help="rtl_templates/: measure the tree's templates, not the "
                    "design's copies")
    ap.add_argument("--sources", nargs="*", default=[], help="sources for --pair")
    ap.add_argument("--only", action="append", default=[], help="measure these templates only")
    ap.add_argument("--skip", action="append", default=[], help="skip these templates")
    ap.add_argument("--hier", action="append", default=["st_gemv_engine:st_gemv_channel"],
                    help="Parent:Child: keep Child's instances inside Parent as one module")
    ap.add_argument("--limit", type=int, required=True,
                    help="most logic levels allowed reg->reg (docs/logic-depth.md)")
    ap.add_argument("--fanout", type=int, default=2000, help="list nets with more loads")
    ap.add_argument("--report", help="JSON report to write")
    ap.add_argument("--max-memory-gb", type=float, default=8,
                    help="address-space cap of one Yosys run (a shared machine); 0: none")
    args = ap.parse_args()
    hier = [tuple(h.split(":", 1)) for h in args.hier]

    for cfg in args.config:
        out = os.path.join(args.work, os.path.basename(cfg.rstrip("/")))
        proc = subprocess.run([args.streamtensor, "compile", cfg, "--random-weights", "--precision",
                               "w4a8", "--target", "u55c", "-o", out],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stdout[-2000:] + proc.stderr[-2000:])
            print(f"FAIL: streamtensor compile {cfg} exited with {proc.returncode}")
            return 1
        args.design.append(out)

    jobs = {}  # (template, params) -> (sources, params, [designs])
    for d in args.design:
        sources, tops = design_sources(d, args.templates)
        for top in tops:
            for template, params in parse_instances(top):
                key = (template, params)
                jobs.setdefault(key, (sources, params, []))[2].append(os.path.basename(d.rstrip("/")))
    for p in args.pair:
        template, _, rest = p.partition(":")
        params = tuple(tuple(kv.split("=", 1)) for kv in rest.split(",") if kv)
        jobs.setdefault((template, params), (args.sources, params, []))[2].append("pair")

    rows, failures, t_all = [], [], time.time()
    for (template, key), (sources, params, designs) in sorted(jobs.items()):
        if (args.only and template not in args.only) or template in args.skip:
            continue
        t0 = time.time()
        try:
            fig = measure_pair(args, sources, template, params, hier)
        except RuntimeError as e:
            print(f"FAIL: {template}: {e}")
            failures.append(template)
            continue
        fig.update(template=template, params=[f"{n}={v}" for n, v in key],
                   designs=sorted(set(designs)), seconds=round(time.time() - t0, 1))
        rows.append(fig)
        if args.report:  # after every pair: a long run's figures survive an interruption
            write_report(args, rows)
        label = template + "(" + ",".join(f"{n}={v}" for n, v in key) + ")"
        depth = [fig["reg_to_reg"]] + [c["reg_to_reg"] for c in fig["children"].values()]
        worst = max((x for x in depth if x is not None), default=0)
        print(f"{label}: reg->reg {fig['reg_to_reg']}  in->reg {fig['in_to_reg']}  "
              f"reg->out {fig['reg_to_out']}  in->out {fig['in_to_out']}  "
              f"ltp {fig['ltp']}  LUT {fig['cells']['LUT']}  ({fig['seconds']} s)")
        for child, c in fig["children"].items():
            print(f"  {child} (kept as a module): reg->reg {c['reg_to_reg']}  in->reg "
                  f"{c['in_to_reg']}  reg->out {c['reg_to_out']}  in->out {c['in_to_out']}  "
                  f"ltp {c['ltp']}")
        for net, n in fig["fanout"] + [f for c in fig["children"].values() for f in c["fanout"]]:
            print(f"  high fanout: {net} drives {n} loads")
        if worst > args.limit:
            failures.append(label)
            print(f"FAIL: {label}: {worst} logic levels > limit {args.limit}; deepest path: "
                  + " -> ".join(fig["path"][-40:]))
    print(f"{len(rows)} parameterizations measured in {time.time() - t_all:.0f} s, "
          f"limit {args.limit} levels")
    if rows:
        # Paths through the top's wires: out of one template, through the combinational in->out
        # of others (forks, joins), into a register of another. An upper bound from the worst
        # port figures, whichever templates a stream connects.
        worst = {k: max((r[k] for r in rows if r[k] is not None), default=0)
                 for k in ("reg_to_out", "in_to_reg", "in_to_out")}
        print(f"ports: worst reg->out {worst['reg_to_out']}, worst in->out {worst['in_to_out']}, "
              f"worst in->reg {worst['in_to_reg']}")
    if args.report:
        write_report(args, rows)
    if not rows:
        print("FAIL: nothing measured")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
