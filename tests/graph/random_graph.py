#!/usr/bin/env python3
"""Random graph generator (issue 40): seeded, valid graph YAML (docs/graph-yaml.md) of 3-12 ops
over the whole op set (matmul, batched matmul, element-wise with numpy broadcasting, reduce,
transpose, reshape) with random tilings and tile-loop orders, forced input/output layouts,
forks (a tensor read by several ops, an intermediate also written out) and skip connections.
Tensors stay small (dimensions 2..16, at most 128 elements) so that one graph compiles and
simulates in seconds. Python standard library only.

    random_graph.py --seed 7                    # one graph on stdout
    random_graph.py --seed 7 --out g.yaml       # ... into a file
    random_graph.py --corpus DIR --count 20     # seeds 1..20 as DIR/random_<seed>.yaml

The same seed gives the same graph on every machine (random.Random(seed), no hash order).
run_random_graphs.py compiles and simulates them; the fuzz harness of the graph reader takes
them as seeds (tests/fuzz/seeds/graph_yaml)."""
import argparse
import math
import os
import random
import sys

DIMS = (2, 4, 8)
MAX_ELEMENTS = 128
TOKEN_BITS = 256  # the widest token (tile elements x element bits) an operand may get
BITS = {"i4": 4, "i8": 8, "i16": 16, "i32": 32, "ui8": 8}


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def numel(shape):
    return math.prod(shape)


class Graph:
    """The graph being built: tensors in declaration order, ops in topological order."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.tensors = {}  # name -> {"shape", "dtype", "role", "layout"}
        self.ops = []  # dicts in YAML key order
        self.produced = []  # computed tensors, oldest first
        self.consumers = {}  # tensor -> number of reading ops

    # --- tensors -------------------------------------------------------------------------
    def tensor(self, shape, dtype, role="intermediate", prefix="t"):
        name = f"{prefix}{len(self.tensors)}"
        self.tensors[name] = {"shape": list(shape), "dtype": dtype, "role": role, "layout": None}
        return name

    def shape(self, t):
        return self.tensors[t]["shape"]

    def bits(self, t):
        return BITS[self.tensors[t]["dtype"]]

    def source(self, shape, dtype=None):
        """A new input or constant tensor."""
        role = "input" if self.r.random() < 0.5 else "constant"
        dtype = dtype or self.r.choice(["i8", "i8", "i8", "i4", "ui8", "i16"])
        return self.tensor(shape, dtype, role, "x" if role == "input" else "w")

    def make_input(self, t):
        """Turns source `t` into an input (renamed x<n> if it was a constant w<n>)."""
        info = self.tensors.pop(t)
        info["role"] = "input"
        name = "x" + t[1:]
        self.tensors[name] = info
        return name

    def random_shape(self, rank=None):
        rank = rank or self.r.choice([1, 2, 2, 2, 2, 3])
        while True:
            shape = [self.r.choice(DIMS + (16,) if rank == 1 else DIMS) for _ in range(rank)]
            if numel(shape) <= MAX_ELEMENTS and (rank == 1 or numel(shape) >= 8):
                return shape

    def pick(self, ok=lambda t: True):
        """A tensor to read: mostly the newest computed one (a chain), sometimes an older one
        (a fork, a skip connection) or a source."""
        computed = [t for t in self.produced if ok(t)]
        if computed and self.r.random() < 0.7:
            return computed[-1]
        pool = [t for t in self.tensors if ok(t) and self.tensors[t]["role"] != "output"]
        return self.r.choice(pool) if pool else None

    def use(self, t):
        self.consumers[t] = self.consumers.get(t, 0) + 1

    # --- tilings -------------------------------------------------------------------------
    def tile(self, extent, most=8):
        return self.r.choice([d for d in divisors(extent) if d <= most])

    def tiles_fitting(self, extents, bits_of_tile, tries=50):
        """A tile per loop such that bits_of_tile(tile) <= TOKEN_BITS (all ones always fits)."""
        for _ in range(tries):
            tile = [self.tile(e) for e in extents]
            if bits_of_tile(tile) <= TOKEN_BITS:
                return tile
        return [1] * len(extents)

    def order(self, parallel, reduction=()):
        """A loop order: the parallel loops shuffled, the reduction loops innermost."""
        loops = list(parallel)
        self.r.shuffle(loops)
        return loops + list(reduction)

    # --- ops -----------------------------------------------------------------------------
    def add_op(self, kind, inputs, output, **extra):
        op = {"name": f"{kind[:3]}{len(self.ops)}", "op": kind, "inputs": inputs, "output": output}
        op.update(extra)
        for t in inputs:
            self.use(t)
        self.ops.append(op)
        self.produced.append(output)
        return op

    def matmul(self):
        a = self.pick(lambda t: len(self.shape(t)) in (2, 3) and self.bits(t) <= 16)
        if a is None:
            return False
        sa = self.shape(a)
        batched = len(sa) == 3
        m, k = sa[-2], sa[-1]
        n = self.r.choice(DIMS)
        bshape = ([sa[0]] if batched else []) + [k, n]
        same = [t for t in self.tensors
                if self.shape(t) == bshape and t != a and self.bits(t) <= 8
                and self.tensors[t]["role"] != "output"]
        b = self.r.choice(same) if same and self.r.random() < 0.3 else self.source(bshape, "i8")
        oshape = ([sa[0]] if batched else []) + [m, n]
        if numel(oshape) > MAX_ELEMENTS:
            return False
        out = self.tensor(oshape, self.r.choice(["i16", "i32", "i32"]))
        ab, bb, ob = self.bits(a), self.bits(b), self.bits(out)
        tm, tn, tk = self.tiles_fitting(
            [m, n, k], lambda t: max(t[0] * t[2] * ab, t[2] * t[1] * bb, t[0] * t[1] * ob,
                                     t[0] * t[1] * t[2] * 8))
        extra = {}
        if batched:
            extra["tile"] = [1, tm, tn, tk]
            if self.r.random() < 0.5:
                extra["order"] = self.order([0, 1, 2], [3])
        else:
            extra["tile"] = [tm, tn, tk]
            if self.r.random() < 0.5:
                extra["order"] = self.order([0, 1], [2])
        self.add_op("matmul", [a, b], out, **extra)
        return True

    def broadcast_operand(self, shape):
        """A second operand for an element-wise op over `shape`: an existing tensor of that
        shape (a join), or a new source of that shape or a broadcast one."""
        same = [t for t in self.tensors
                if self.shape(t) == shape and self.tensors[t]["role"] != "output"]
        if same and self.r.random() < 0.5:
            return self.r.choice(same)
        options = [list(shape), [shape[-1]]]
        if len(shape) >= 2:
            options.append(list(shape[:-1]) + [1])
        if len(shape) == 3:
            options.append([1] + list(shape[1:]))
        bshape = self.r.choice(options)
        computed = [t for t in self.produced if self.shape(t) == bshape and bshape != shape]
        if computed and self.r.random() < 0.5:
            return self.r.choice(computed)  # a computed tensor broadcast (re-streamed)
        return self.source(bshape)

    def body(self, arity):
        """An expression using every input in0..in{arity-1}."""
        r = self.r

        def leaf(i):
            e = f"in{i}"
            if r.random() < 0.3:
                e = r.choice([f"neg({e})", f"abs({e})", f"relu({e})",
                              f"mul({e}, {r.randint(-3, 5)})", f"add({e}, {r.randint(-20, 20)})"])
            return e

        e = leaf(0)
        for i in range(1, arity):
            e = f"{r.choice(['add', 'sub', 'mul', 'max', 'min'])}({e}, {leaf(i)})"
        if r.random() < 0.5:
            e = r.choice([f"shr_round({e}, {r.randint(0, 4)})", f"relu({e})",
                          f"max(min({e}, {r.randint(50, 3000)}), {r.randint(-3000, -50)})"])
        return e

    def elementwise(self):
        x = self.pick(lambda t: numel(self.shape(t)) >= 4)
        if x is None:
            return False
        shape = self.shape(x)
        arity = self.r.choice([1, 1, 2, 2, 2, 3])
        inputs = [x] + [self.broadcast_operand(shape) for _ in range(arity - 1)]
        if self.r.random() < 0.3:
            inputs = inputs[1:] + inputs[:1]  # the broadcast one first
        out = self.tensor(shape, self.r.choice(["i8", "i16", "i16", "i32"]))
        widest = max([self.bits(t) for t in inputs] + [self.bits(out)])
        tile = self.tiles_fitting(shape, lambda t: numel(t) * widest)
        extra = {"body": self.body(arity), "tile": tile}
        if len(shape) > 1 and self.r.random() < 0.4:
            extra["order"] = self.order(range(len(shape)))
        self.add_op("elementwise", inputs, out, **extra)
        return True

    def reduce(self):
        x = self.pick(lambda t: len(self.shape(t)) >= 2)
        if x is None:
            return False
        shape = self.shape(x)
        dim = self.r.randrange(len(shape))
        combiner = self.r.choice(["sum", "max"])
        oshape = shape[:dim] + shape[dim + 1:]
        dtype = self.tensors[x]["dtype"] if combiner == "max" else self.r.choice(["i16", "i32"])
        out = self.tensor(oshape, dtype)
        bits = max(self.bits(x), self.bits(out))
        tile = self.tiles_fitting(shape, lambda t: numel(t) * bits)
        extra = {"dim": dim, "combiner": combiner, "tile": tile}
        if self.r.random() < 0.6 or dim != len(shape) - 1:
            extra["order"] = self.order([d for d in range(len(shape)) if d != dim], [dim])
        self.add_op("reduce", [x], out, **extra)
        return True

    def default_tile_bits(self, t):
        """Bits of the token a view of source `t` streams (it takes no tiling: every loop gets
        the compiler's default tile, the largest divisor <= 4)."""
        return numel([max(d for d in divisors(e) if d <= 4) for e in self.shape(t)]) * self.bits(t)

    def transpose(self):
        x = self.pick(lambda t: len(self.shape(t)) >= 2 and (
            t in self.produced or self.default_tile_bits(t) <= TOKEN_BITS))
        if x is None:
            return False
        shape = self.shape(x)
        perms = [p for p in self.permutations(len(shape)) if p != list(range(len(shape)))]
        perm = self.r.choice(perms)
        out = self.tensor([shape[p] for p in perm], self.tensors[x]["dtype"])
        self.add_op("transpose", [x], out, perm=perm)
        return True

    @staticmethod
    def permutations(n):
        if n == 1:
            return [[0]]
        return [p[:i] + [n - 1] + p[i:] for p in Graph.permutations(n - 1) for i in range(n)]

    def reshape(self):
        x = self.pick(lambda t: numel(self.shape(t)) >= 4)
        if x is None:
            return False
        shape = self.shape(x)
        total = numel(shape)
        for _ in range(30):
            rank = self.r.choice([1, 2, 2, 3])
            dims, left = [], total
            for _ in range(rank - 1):
                d = self.r.choice([d for d in divisors(left) if d <= 16])
                dims.append(d)
                left //= d
            dims.append(left)
            if dims != shape and max(dims) <= 32:
                break
        else:
            return False
        out = self.tensor(dims, self.tensors[x]["dtype"])
        self.add_op("reshape", [x], out)
        return True

    # --- layouts and roles ---------------------------------------------------------------
    def layout(self, t):
        """A forced stream layout for an input or output tensor: random tiles, loop order."""
        info = self.tensors[t]
        shape = info["shape"]
        bits = BITS[info["dtype"]]
        tile = self.tiles_fitting(shape, lambda tl: numel(tl) * bits)
        loops = list(range(len(shape)))
        self.r.shuffle(loops)
        trips = [shape[d] // tile[d] for d in loops]
        steps = [tile[d] for d in loops]
        dims = ",".join(f"d{i}" for i in range(len(loops)))
        results = ",".join(f"d{loops.index(j)}" for j in range(len(shape)))
        elem = "x".join(str(s) for s in tile) + "x" + info["dtype"]
        return (f"itensor<{elem}, iter_space: [{','.join(map(str, trips))}]*"
                f"[{','.join(map(str, steps))}], iter_map: ({dims})->({results})>")

    def finish(self):
        for t in self.produced:
            if self.consumers.get(t, 0) == 0 or self.r.random() < 0.1:
                self.tensors[t]["role"] = "output"
        for t, info in self.tensors.items():
            if info["role"] in ("input", "output") and self.r.random() < 0.2:
                info["layout"] = self.layout(t)

    def build(self):
        self.make_input(self.source(self.random_shape(self.r.choice([2, 2, 2, 3]))))
        goal = self.r.randint(3, 12)
        makers = [(self.matmul, 3), (self.elementwise, 4), (self.reduce, 1.5),
                  (self.transpose, 1), (self.reshape, 1)]
        attempts = 0
        while len(self.ops) < goal and attempts < 200:
            attempts += 1
            make = self.r.choices([m for m, _ in makers], [w for _, w in makers])[0]
            make()
        self.finish()
        return self

    def yaml(self):
        lines = [f"# Random graph, seed {self.seed} (tests/graph/random_graph.py).",
                 f"name: random_{self.seed}", "tensors:"]
        for name, info in self.tensors.items():
            fields = [f"shape: [{', '.join(map(str, info['shape']))}]", f"dtype: {info['dtype']}"]
            if info["role"] != "intermediate":
                fields.append(f"role: {info['role']}")
            if info["layout"]:
                fields.append(f'layout: "{info["layout"]}"')
            lines.append(f"  {name}: {{{', '.join(fields)}}}")
        lines.append("ops:")
        for op in self.ops:
            fields = [f"name: {op['name']}", f"op: {op['op']}",
                      f"inputs: [{', '.join(op['inputs'])}]", f"output: {op['output']}"]
            for key in ("body", "dim", "combiner", "perm", "tile", "order"):
                if key not in op:
                    continue
                v = op[key]
                if key == "body":
                    fields.append(f'body: "{v}"')
                elif isinstance(v, list):
                    fields.append(f"{key}: [{', '.join(map(str, v))}]")
                else:
                    fields.append(f"{key}: {v}")
            lines.append(f"  - {{{', '.join(fields)}}}")
        return "\n".join(lines) + "\n"


def random_graph(seed):
    """The YAML text of the graph of `seed`."""
    return Graph(seed).build().yaml()


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write the graph of --seed here (default: stdout)")
    p.add_argument("--corpus", help="write --count graphs (seeds --first ..) into this directory")
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--first", type=int, default=1)
    args = p.parse_args()
    if args.corpus:
        os.makedirs(args.corpus, exist_ok=True)
        for seed in range(args.first, args.first + args.count):
            with open(os.path.join(args.corpus, f"random_{seed}.yaml"), "w") as f:
                f.write(random_graph(seed))
        return
    text = random_graph(args.seed)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
