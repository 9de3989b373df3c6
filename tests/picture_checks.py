"""Checks of the pictures a design directory carries, shared by the graph and e2e tests:
dataflow.svg (every compile) and sim/stall_report.svg (every sim) must be SVG files that Graphviz
`dot` rendered (the compile and sim print a note instead when it failed or is missing) and must
draw every node of report.json, every AXI master and every stream the stall report lists.
Each returns an error message, or None."""
import html
import json
import os


def _svg_text(path):
    if not os.path.exists(path):
        return None, f"{path} was not written (is Graphviz dot installed? tools/deps.sh)"
    with open(path) as f:
        text = f.read()
    if "<svg" not in text or not text.rstrip().endswith("</svg>"):
        return None, f"{path} is not a whole SVG file"
    return html.unescape(text), None


def check_dataflow_svg(design, stderr=""):
    if "note:" in stderr:
        return f"compile printed a note about the picture: {stderr.strip()}"
    text, error = _svg_text(os.path.join(design, "dataflow.svg"))
    if error:
        return error
    with open(os.path.join(design, "report.json")) as f:
        report = json.load(f)
    for node in report["nodes"]:
        if f"<title>{node['name']}</title>" not in text:
            return f"dataflow.svg lacks node {node['name']}"
    for m in report["axi_masters"]:
        if m["port"] not in text:
            return f"dataflow.svg lacks AXI master {m['port']}"
        for c in m["hbm_channels"]:
            if f"HBM[{c}]" not in text:
                return f"dataflow.svg lacks pseudo-channel HBM[{c}] of {m['port']}"
    for s in report["streams"]:
        if f"FIFO depth {s['fifo_depth']}" not in text:
            return f"dataflow.svg lacks the FIFO depth of stream {s['name']}"
    return None


def check_stall_svg(design, stderr=""):
    if "note:" in stderr:
        return f"sim printed a note about the picture: {stderr.strip()}"
    text, error = _svg_text(os.path.join(design, "sim", "stall_report.svg"))
    if error:
        return error
    with open(os.path.join(design, "sim", "stall_report.json")) as f:
        stall = json.load(f)
    for s in stall["streams"]:
        if s["name"] not in text:
            return f"stall_report.svg lacks stream {s['name']}"
    return None
