// Pass lower-to-dataflow: turns the tensor graph into a dataflow graph. Each op's loop nest is
// tiled (a tile size per loop, tile loops in the chosen order, reductions innermost) and every
// operand's itensor is inferred from the tiled loops exactly as the paper does: the tile loops
// are the iteration space, the operand's indexing map gives the iteration map (a loop the
// operand does not index re-streams its data), the tile gives the token. The op becomes a kernel
// (or a view for transpose and reshape); each input or constant tensor gets one read DMA per
// consumer, streaming exactly the order that consumer wants (HBM holds it pre-tiled); each
// output tensor gets a write DMA. Streams join producers to consumers whatever their types: the
// converters come in the next pass.
#include <numeric>

#include "ir/dtype.h"
#include "model/kernel_templates.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"

namespace st::passes {

namespace {

using ir::ITensorLoop;
using ir::ITensorType;
using ir::NodeKind;
using ir::Op;
using ir::OpKind;

int64_t largestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

std::string opWhere(const Op &op) {
  return ir::toString(op.kind) + " '" + op.name + "'";
}

/// The op's tiling: the user's (checked) or the default one.
OpTiling tilingOf(const CompileState &state, const Op &op) {
  const unsigned n = op.numLoops();
  OpTiling t;
  auto it = state.tilings.find(op.name);
  if (it != state.tilings.end())
    t = it->second;
  if (t.tileSizes.empty())
    for (unsigned d = 0; d < n; ++d)
      t.tileSizes.push_back(largestDivisorAtMost(op.loopExtents[d], state.options.defaultTileSize));
  if (t.loopOrder.empty()) {
    for (unsigned d = 0; d < n; ++d)
      if (op.iterators[d] == ir::IteratorKind::Parallel)
        t.loopOrder.push_back(d);
    for (unsigned d = 0; d < n; ++d)
      if (op.iterators[d] == ir::IteratorKind::Reduction)
        t.loopOrder.push_back(d);
  }
  const std::string where = opWhere(op);
  if (t.tileSizes.size() != n)
    throw Error("tiling", where + " tile",
                std::to_string(n) + " tile sizes (one per loop), got " +
                    std::to_string(t.tileSizes.size()));
  for (unsigned d = 0; d < n; ++d)
    if (t.tileSizes[d] < 1 || op.loopExtents[d] % t.tileSizes[d] != 0)
      throw Error("tiling", where + " tile[" + std::to_string(d) + "]",
                  "a divisor of the loop extent " + std::to_string(op.loopExtents[d]) + ", got " +
                      std::to_string(t.tileSizes[d]));
  std::vector<bool> seen(n, false);
  bool inReductions = false;
  if (t.loopOrder.size() != n)
    throw Error("tiling", where + " order", "a permutation of the " + std::to_string(n) + " loops");
  for (unsigned d : t.loopOrder) {
    if (d >= n || seen[d])
      throw Error("tiling", where + " order", "a permutation of 0.." + std::to_string(n - 1));
    seen[d] = true;
    bool reduction = op.iterators[d] == ir::IteratorKind::Reduction;
    if (inReductions && !reduction)
      throw Error("tiling", where + " order",
                  "reduction loops innermost (a streaming kernel emits one token per reduction)");
    inReductions = reduction;
  }
  return t;
}

/// itensor of one operand of a tiled loop nest. The output stream has no reduction loops.
ITensorType operandType(const ir::TensorGraph &g, const Op &op, const OpTiling &t,
                        const ir::Operand &operand, bool isOutput) {
  const ir::TensorInfo &tensor = g.tensor(operand.tensor);
  std::vector<ITensorLoop> loops;
  std::vector<int> position(op.numLoops(), -1);
  for (unsigned d : t.loopOrder) {
    if (isOutput && op.iterators[d] == ir::IteratorKind::Reduction)
      continue;
    position[d] = static_cast<int>(loops.size());
    loops.push_back({op.loopExtents[d] / t.tileSizes[d], t.tileSizes[d]});
  }
  std::vector<ir::SliceOffset> offsets;
  std::vector<int64_t> sizes;
  const std::string where = opWhere(op) + " operand '" + tensor.name + "'";
  for (const ir::AffineExpr &e : operand.map.results) {
    if (auto d = e.singleDim()) {
      if (position[*d] < 0)
        throw Error("lowering", where, "an output indexed by parallel loops only");
      offsets.push_back(ir::SliceOffset::loopIndex(static_cast<unsigned>(position[*d])));
      sizes.push_back(t.tileSizes[*d]);
    } else if (e.isConstant() && e.constant == 0) {
      offsets.push_back(ir::SliceOffset::constantValue(0));
      sizes.push_back(1);
    } else {
      throw Error("lowering", where,
                  "an indexing map whose results are loop indices or 0 (a projected permutation)");
    }
  }
  return ir::inferITensorType(loops, offsets, sizes, ir::toString(tensor.dtype), tensor.shape);
}

/// A row-major stream of `tensor` in tokens of `chunk` elements along its last dimension.
ITensorType rowMajorType(const ir::TensorInfo &tensor, int64_t chunk) {
  std::vector<ITensorLoop> loops;
  std::vector<ir::SliceOffset> offsets;
  std::vector<int64_t> sizes;
  for (size_t j = 0; j < tensor.shape.size(); ++j) {
    int64_t size = j + 1 == tensor.shape.size() ? chunk : 1;
    offsets.push_back(ir::SliceOffset::loopIndex(static_cast<unsigned>(loops.size())));
    loops.push_back({tensor.shape[j] / size, size});
    sizes.push_back(size);
  }
  return ir::inferITensorType(loops, offsets, sizes, ir::toString(tensor.dtype), tensor.shape);
}

/// The stream a transpose view emits for input stream `in`: the same tokens and loops, the
/// tile's lanes permuted (free wiring). Output dim j is input dim perm[j].
ITensorType transposedType(const ITensorType &in, const std::vector<unsigned> &perm) {
  ITensorType out = in;
  for (size_t j = 0; j < perm.size(); ++j) {
    out.elementShape[j] = in.elementShape[perm[j]];
    out.iterMap[j] = in.iterMap[perm[j]];
  }
  return out;
}

/// The permutation of a transpose op (output dim j = input dim perm[j]), read off its map.
std::vector<unsigned> transposePermutation(const Op &op) {
  std::vector<unsigned> perm(op.numLoops());
  const ir::AffineMap &m = op.inputs[0].map;
  for (unsigned i = 0; i < m.numResults(); ++i)
    perm[*m.results[i].singleDim()] = i;
  return perm;
}

int64_t bitsOf(const ir::TensorGraph &g, ir::TensorId t) {
  return ir::bitWidth(g.tensor(t).dtype);
}
bool signedOf(const ir::TensorGraph &g, ir::TensorId t) {
  return ir::isSigned(g.tensor(t).dtype);
}

/// The kernel node of one op, with its ports typed.
ir::DataflowNode kernelFor(const CompileState &state, ir::OpId id) {
  const ir::TensorGraph &g = *state.graph;
  const Op &op = g.op(id);
  ir::DataflowNode node;
  node.name = op.name;
  node.op = id;
  const std::string where = opWhere(op);
  if (op.kind == OpKind::Reshape) {
    const ir::TensorInfo &in = g.tensor(op.inputs[0].tensor);
    const ir::TensorInfo &out = g.tensor(op.output.tensor);
    int64_t chunk = largestDivisorAtMost(std::gcd(in.shape.back(), out.shape.back()),
                                         state.options.defaultTileSize);
    node.kind = NodeKind::View;
    node.inputs = {{"in", rowMajorType(in, chunk)}};
    node.outputs = {{"out", rowMajorType(out, chunk)}};
    return node;
  }
  if (op.kind == OpKind::Generic)
    throw Error("lowering", where,
                "an op with an RTL kernel (matmul, elementwise, reduce, transpose, reshape); "
                "generic loop nests have none yet");
  const OpTiling t = tilingOf(state, op);
  for (size_t i = 0; i < op.inputs.size(); ++i)
    node.inputs.push_back({op.kind == OpKind::Matmul
                               ? (i == 0 ? "a" : "b")
                               : (op.inputs.size() == 1 ? "in" : "in" + std::to_string(i)),
                           operandType(g, op, t, op.inputs[i], false)});
  node.outputs.push_back({"out", operandType(g, op, t, op.output, true)});
  switch (op.kind) {
  case OpKind::Matmul: {
    const bool batched = op.numLoops() == 4;
    const unsigned m = batched ? 1 : 0;
    if (batched && t.tileSizes[0] != 1)
      throw Error("tiling", where + " tile[0]", "1 for the batch loop of a batched matmul");
    model::MatmulParams p;
    p.tm = t.tileSizes[m];
    p.tn = t.tileSizes[m + 1];
    p.tk = t.tileSizes[m + 2];
    p.kTiles = op.loopExtents[m + 2] / t.tileSizes[m + 2];
    p.aBits = bitsOf(g, op.inputs[0].tensor);
    p.bBits = bitsOf(g, op.inputs[1].tensor);
    p.outBits = bitsOf(g, op.output.tensor);
    p.aSigned = signedOf(g, op.inputs[0].tensor);
    p.bSigned = signedOf(g, op.inputs[1].tensor);
    p.outSigned = signedOf(g, op.output.tensor);
    node.module = model::matmulTemplate().module();
    node.params = model::matmulTemplate().encode(p);
    break;
  }
  case OpKind::Reduce: {
    unsigned r = 0;
    while (op.iterators[r] != ir::IteratorKind::Reduction)
      ++r;
    int64_t outer = 1, inner = 1;
    for (unsigned d = 0; d < op.numLoops(); ++d)
      (d < r ? outer : inner) *= d == r ? 1 : t.tileSizes[d];
    model::ReduceParams p;
    p.outerLanes = outer;
    p.reduceLanes = t.tileSizes[r];
    p.innerLanes = inner;
    p.tokens = op.loopExtents[r] / t.tileSizes[r];
    p.inBits = bitsOf(g, op.inputs[0].tensor);
    p.outBits = bitsOf(g, op.output.tensor);
    p.combiner =
        op.combiner == ir::Combiner::Max ? model::ReduceCombiner::Max : model::ReduceCombiner::Sum;
    p.inSigned = signedOf(g, op.inputs[0].tensor);
    p.outSigned = signedOf(g, op.output.tensor);
    node.module = model::reduceTemplate().module();
    node.params = model::reduceTemplate().encode(p);
    break;
  }
  case OpKind::Elementwise:
    node.module = "st_ew_" + op.name;
    break;
  case OpKind::Transpose:
    node.kind = NodeKind::View;
    break;
  default:
    break;
  }
  return node;
}

} // namespace

void lowerToDataflow(CompileState &state) {
  const ir::TensorGraph &g = *state.graph;
  ir::DataflowGraph &df = state.dataflow;
  df.source = &g;
  std::map<ir::OpId, ir::NodeId> kernelOf;
  for (ir::OpId id : g.topologicalOrder())
    kernelOf[id] = df.addNode(kernelFor(state, id));

  // Read DMAs: one per consuming port, in that port's order, unless the user forced the
  // tensor's layout (then one DMA in that layout, and converters where consumers differ).
  for (ir::TensorId t = 0; t < g.numTensors(); ++t) {
    const ir::TensorInfo &info = g.tensor(t);
    if (info.role != ir::TensorRole::Input && info.role != ir::TensorRole::Constant)
      continue;
    auto forced = state.forcedLayouts.find(info.name);
    std::optional<ir::NodeId> shared;
    for (ir::OpId c : g.consumers(t)) {
      const Op &op = g.op(c);
      for (unsigned i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i].tensor != t)
          continue;
        ir::PortRef dst{kernelOf[c], i};
        if (forced != state.forcedLayouts.end() && shared) {
          df.connect({*shared, 0}, dst);
          continue;
        }
        ir::DataflowNode dma = ir::readDmaNode(
            forced != state.forcedLayouts.end()
                ? "rd_" + info.name
                : "rd_" + info.name + "_" + op.name +
                      (op.inputs.size() > 1 ? "_" + std::to_string(i) : ""),
            forced != state.forcedLayouts.end() ? forced->second
                                                : df.node(kernelOf[c]).inputs[i].type);
        dma.tensor = t;
        ir::NodeId n = df.addNode(std::move(dma));
        if (forced != state.forcedLayouts.end())
          shared = n;
        df.connect({n, 0}, dst);
      }
    }
  }

  // Streams between kernels, and write DMAs for the outputs. A transpose fed by a kernel takes
  // that kernel's order and permutes only the lanes of each tile, so it costs no converter.
  for (ir::OpId id : g.topologicalOrder()) {
    const Op &op = g.op(id);
    ir::PortRef src{kernelOf[id], 0};
    if (op.kind == OpKind::Transpose) {
      if (auto p = g.producer(op.inputs[0].tensor)) {
        ir::DataflowNode &view = df.node(kernelOf[id]);
        view.inputs[0].type = df.node(kernelOf[*p]).outputs[0].type;
        view.outputs[0].type = transposedType(view.inputs[0].type, transposePermutation(op));
      }
    }
    for (ir::OpId c : g.consumers(op.output.tensor)) {
      const Op &consumer = g.op(c);
      for (unsigned i = 0; i < consumer.inputs.size(); ++i)
        if (consumer.inputs[i].tensor == op.output.tensor)
          df.connect(src, {kernelOf[c], i});
    }
    const ir::TensorInfo &out = g.tensor(op.output.tensor);
    if (out.role == ir::TensorRole::Output) {
      auto forced = state.forcedLayouts.find(out.name);
      ir::DataflowNode dma = ir::writeDmaNode(
          "wr_" + out.name,
          forced != state.forcedLayouts.end() ? forced->second : df.node(src.node).outputs[0].type);
      dma.tensor = op.output.tensor;
      df.connect(src, {df.addNode(std::move(dma)), 0});
    }
  }
  for (const auto &[name, type] : state.forcedLayouts) {
    auto t = g.findTensor(name);
    if (!t)
      throw Error("layouts", "tensor '" + name + "'", "a tensor of the graph");
    const ir::TensorInfo &info = g.tensor(*t);
    if (info.role == ir::TensorRole::Intermediate)
      throw Error("layouts", "tensor '" + name + "'",
                  "an input, constant or output tensor (an intermediate's order is its "
                  "producer's: choose the producer's tiling order instead)");
    ir::checkCoversTensor(type, info.shape);
    if (type.elementType != ir::toString(info.dtype))
      throw Error("layouts", "tensor '" + name + "'",
                  "element type " + ir::toString(info.dtype) + ", got " + type.elementType);
  }
  state.invariants = {};
}

} // namespace st::passes
