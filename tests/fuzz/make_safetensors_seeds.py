#!/usr/bin/env python3
"""Writes the safetensors fuzz seeds (tests/fuzz/seeds/safetensors/) from the fixtures' files.

Each seed keeps a fixture file's header (tensor names, dtypes, __metadata__) with every
dimension cut to at most 2, so the data section stays a few hundred bytes and the seed fits the
fuzzer's input size limit (tools/fuzz: -max_len 4096); the data are the tensor's first values.
F16 and BF16 variants of the first fixture cover the other dtypes the reader converts.
Run from the repository root: python3 tests/fuzz/make_safetensors_seeds.py
"""
import glob
import json
import os
import struct

OUT = "tests/fuzz/seeds/safetensors"
SIZE = {"F32": 4, "F16": 2, "BF16": 2}


def shrink(path, dtype=None):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    body = data[8 + n :]
    out_header, out_body = {}, b""
    for name, entry in header.items():
        if name == "__metadata__":
            out_header[name] = entry
            continue
        shape = [min(d, 2) for d in entry["shape"]]
        count = 1
        for d in shape:
            count *= d
        begin = entry["data_offsets"][0]
        values = struct.unpack("<%df" % count, body[begin : begin + 4 * count])
        kind = dtype or entry["dtype"]
        if kind == "F32":
            raw = struct.pack("<%df" % count, *values)
        elif kind == "F16":
            raw = struct.pack("<%de" % count, *values)
        else:  # BF16: the high half of each float
            raw = b"".join(struct.pack("<f", v)[2:] for v in values)
        out_header[name] = {
            "dtype": kind,
            "shape": shape,
            "data_offsets": [len(out_body), len(out_body) + len(raw)],
        }
        out_body += raw
    text = json.dumps(out_header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(text)) + text + out_body


def main():
    os.makedirs(OUT, exist_ok=True)
    files = sorted(glob.glob("tests/fixtures/*/*.safetensors"))
    for path in files:
        name = path.split("/")[-2] + "_" + os.path.basename(path)
        open(os.path.join(OUT, name), "wb").write(shrink(path))
    for dtype in ("F16", "BF16"):
        name = "%s_%s.safetensors" % (files[0].split("/")[-2], dtype.lower())
        open(os.path.join(OUT, name), "wb").write(shrink(files[0], dtype))


if __name__ == "__main__":
    main()
