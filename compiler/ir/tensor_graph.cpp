// TensorGraph: loop-nest ops over tensors; builders, verifier and text dump.
#include "ir/tensor_graph.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "support/error.h"

namespace st::ir {

std::string toString(IteratorKind k) { return k == IteratorKind::Parallel ? "parallel" : "reduction"; }

std::string toString(TensorRole r) {
  switch (r) {
  case TensorRole::Input:
    return "input";
  case TensorRole::Constant:
    return "constant";
  case TensorRole::Intermediate:
    return "intermediate";
  case TensorRole::Output:
    return "output";
  case TensorRole::State:
    return "state";
  }
  return "?";
}

std::string toString(OpKind k) {
  switch (k) {
  case OpKind::Matmul:
    return "matmul";
  case OpKind::Elementwise:
    return "elementwise";
  case OpKind::Reduce:
    return "reduce";
  case OpKind::Transpose:
    return "transpose";
  case OpKind::Reshape:
    return "reshape";
  case OpKind::Generic:
    return "generic";
  case OpKind::Llm:
    return "llm";
  }
  return "?";
}

std::string toString(Combiner c) {
  switch (c) {
  case Combiner::None:
    return "none";
  case Combiner::Sum:
    return "sum";
  case Combiner::Max:
    return "max";
  }
  return "?";
}

int64_t TensorInfo::numElements() const {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

namespace {
struct ScalarOpName {
  ScalarExpr::Kind kind;
  const char *name;
  unsigned arity;
};
constexpr ScalarOpName kScalarOps[] = {
    {ScalarExpr::Kind::Add, "add", 2}, {ScalarExpr::Kind::Sub, "sub", 2},
    {ScalarExpr::Kind::Mul, "mul", 2}, {ScalarExpr::Kind::Max, "max", 2},
    {ScalarExpr::Kind::Min, "min", 2}, {ScalarExpr::Kind::Neg, "neg", 1},
    {ScalarExpr::Kind::Abs, "abs", 1}, {ScalarExpr::Kind::Relu, "relu", 1},
    {ScalarExpr::Kind::ShiftRightRound, "shr_round", 1},
};
} // namespace

bool parseScalarOpKind(const std::string &name, ScalarExpr::Kind &out) {
  for (const auto &op : kScalarOps)
    if (name == op.name) {
      out = op.kind;
      return true;
    }
  return false;
}

int64_t ScalarExpr::evaluate(const std::vector<int64_t> &in) const {
  auto a = [&]() { return operands.at(0).evaluate(in); };
  auto b = [&]() { return operands.at(1).evaluate(in); };
  switch (kind) {
  case Kind::Input:
    return in.at(static_cast<size_t>(value));
  case Kind::Constant:
    return value;
  case Kind::Add:
    return a() + b();
  case Kind::Sub:
    return a() - b();
  case Kind::Mul:
    return a() * b();
  case Kind::Max:
    return std::max(a(), b());
  case Kind::Min:
    return std::min(a(), b());
  case Kind::Neg:
    return -a();
  case Kind::Abs:
    return std::abs(a());
  case Kind::Relu:
    return std::max<int64_t>(a(), 0);
  case Kind::ShiftRightRound: {
    int64_t x = a();
    if (value <= 0)
      return x;
    int64_t half = int64_t{1} << (value - 1);
    return x >= 0 ? (x + half) >> value : -((-x + half) >> value);
  }
  }
  return 0;
}

unsigned ScalarExpr::numInputsUsed() const {
  unsigned n = kind == Kind::Input ? static_cast<unsigned>(value) + 1 : 0;
  for (const auto &o : operands)
    n = std::max(n, o.numInputsUsed());
  return n;
}

std::string ScalarExpr::toString() const {
  if (kind == Kind::Input)
    return "in" + std::to_string(value);
  if (kind == Kind::Constant)
    return std::to_string(value);
  std::string s;
  for (const auto &op : kScalarOps)
    if (op.kind == kind)
      s = op.name;
  s += "(";
  for (size_t i = 0; i < operands.size(); ++i)
    s += (i ? ", " : "") + operands[i].toString();
  if (kind == Kind::ShiftRightRound)
    s += ", " + std::to_string(value);
  return s + ")";
}

bool Op::hasReduction() const {
  return std::find(iterators.begin(), iterators.end(), IteratorKind::Reduction) != iterators.end();
}

TensorId TensorGraph::addTensor(TensorInfo info) {
  if (findTensor(info.name))
    throw Error("tensor graph", "tensor '" + info.name + "'", "a unique tensor name");
  tensors_.push_back(std::move(info));
  return static_cast<TensorId>(tensors_.size() - 1);
}

OpId TensorGraph::addOp(Op op) {
  ops_.push_back(std::move(op));
  return static_cast<OpId>(ops_.size() - 1);
}

std::optional<TensorId> TensorGraph::findTensor(const std::string &name) const {
  for (TensorId t = 0; t < tensors_.size(); ++t)
    if (tensors_[t].name == name)
      return t;
  return std::nullopt;
}

std::optional<OpId> TensorGraph::producer(TensorId t) const {
  for (OpId o = 0; o < ops_.size(); ++o)
    if (ops_[o].output.tensor == t)
      return o;
  return std::nullopt;
}

std::vector<OpId> TensorGraph::consumers(TensorId t) const {
  std::vector<OpId> out;
  for (OpId o = 0; o < ops_.size(); ++o)
    for (const auto &in : ops_[o].inputs)
      if (in.tensor == t) {
        out.push_back(o);
        break;
      }
  return out;
}

std::vector<OpId> TensorGraph::topologicalOrder() const {
  std::vector<unsigned> pending(ops_.size(), 0);
  for (OpId o = 0; o < ops_.size(); ++o)
    for (const auto &in : ops_[o].inputs)
      if (producer(in.tensor))
        ++pending[o];
  std::vector<OpId> order, ready;
  for (OpId o = ops_.size(); o-- > 0;)
    if (pending[o] == 0)
      ready.push_back(o);
  while (!ready.empty()) {
    OpId o = ready.back();
    ready.pop_back();
    order.push_back(o);
    std::vector<OpId> next;
    for (OpId c : consumers(ops_[o].output.tensor)) {
      for (const auto &in : ops_[c].inputs)
        if (in.tensor == ops_[o].output.tensor)
          --pending[c];
      if (pending[c] == 0)
        next.push_back(c);
    }
    ready.insert(ready.end(), next.rbegin(), next.rend());
  }
  if (order.size() != ops_.size()) {
    for (OpId o = 0; o < ops_.size(); ++o)
      if (pending[o] != 0)
        throw Error("tensor graph", "op '" + ops_[o].name + "'", "an acyclic graph (op is on a cycle)");
  }
  return order;
}

namespace {
// The smallest and largest value an affine expression takes over the loop box.
std::pair<int64_t, int64_t> exprRange(const AffineExpr &e, const std::vector<int64_t> &extents) {
  int64_t lo = e.constant, hi = e.constant;
  for (size_t d = 0; d < e.coeffs.size(); ++d) {
    int64_t span = e.coeffs[d] * (extents[d] - 1);
    (span > 0 ? hi : lo) += span;
  }
  return {lo, hi};
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}
} // namespace

void TensorGraph::verify() const {
  std::map<TensorId, OpId> writer;
  for (OpId o = 0; o < ops_.size(); ++o) {
    const Op &op = ops_[o];
    const std::string where = "op '" + op.name + "'";
    auto fail = [&](const std::string &field, const std::string &expected) {
      throw Error("tensor graph", where + " " + field, expected);
    };
    if (op.iterators.size() != op.loopExtents.size())
      fail("iterators", "one iterator kind per loop (" + std::to_string(op.numLoops()) + ")");
    for (auto e : op.loopExtents)
      if (e < 1)
        fail("loop extents", "positive extents");
    if (op.hasReduction() && op.combiner == Combiner::None)
      fail("combiner", "sum or max, since the op has reduction loops");
    if (op.body.numInputsUsed() > op.inputs.size())
      fail("body", "only inputs in0..in" + std::to_string(op.inputs.size()) + " (body uses " +
                       op.body.toString() + ")");
    auto checkOperand = [&](const Operand &operand, const std::string &field) {
      if (operand.tensor >= tensors_.size())
        fail(field, "an existing tensor");
      const TensorInfo &t = tensors_[operand.tensor];
      if (op.isOpaque())
        return;
      if (op.kind == OpKind::Reshape && field != "output")
        return;
      if (operand.map.numDims != op.numLoops())
        fail(field + " map", "a map over the op's " + std::to_string(op.numLoops()) + " loops");
      if (operand.map.numResults() != t.shape.size())
        fail(field + " map", "one result per dimension of '" + t.name + "' (" +
                                 std::to_string(t.shape.size()) + ")");
      for (size_t j = 0; j < t.shape.size(); ++j) {
        auto [lo, hi] = exprRange(operand.map.results[j], op.loopExtents);
        if (lo < 0 || hi >= t.shape[j])
          fail(field + " map", "indices of '" + t.name + "' dimension " + std::to_string(j) +
                                   " within [0," + std::to_string(t.shape[j]) + "), got [" +
                                   std::to_string(lo) + "," + std::to_string(hi) + "]");
      }
    };
    for (size_t i = 0; i < op.inputs.size(); ++i)
      checkOperand(op.inputs[i], "input " + std::to_string(i));
    checkOperand(op.output, "output");
    // The output map must write every output element exactly once per reduction sweep: a
    // projected permutation over the parallel loops, covering the output shape.
    const TensorInfo &out = tensors_[op.output.tensor];
    if (op.kind == OpKind::Llm && std::holds_alternative<std::monostate>(op.llm))
      fail("attributes", "the attributes of a named LLM op");
    if (op.isOpaque()) {
      if (writer.count(op.output.tensor))
        fail("output", "a tensor no other op writes ('" + out.name + "')");
      writer[op.output.tensor] = o;
      if (out.role != TensorRole::Intermediate && out.role != TensorRole::Output)
        fail("output", "an intermediate or output tensor ('" + out.name + "' is " +
                           ir::toString(out.role) + ")");
      continue;
    }
    if (!op.output.map.isProjectedPermutation())
      fail("output map", "a projected permutation of parallel loops, got " +
                             op.output.map.toString());
    std::vector<bool> used(op.numLoops(), false);
    for (size_t j = 0; j < out.shape.size(); ++j) {
      unsigned d = *op.output.map.results[j].singleDim();
      used[d] = true;
      if (op.iterators[d] != IteratorKind::Parallel)
        fail("output map", "parallel loops only (d" + std::to_string(d) + " is a reduction)");
      if (op.loopExtents[d] != out.shape[j])
        fail("output map", "loop d" + std::to_string(d) + " extent equal to '" + out.name +
                               "' dimension " + std::to_string(j) + " (" +
                               std::to_string(out.shape[j]) + ")");
    }
    for (unsigned d = 0; d < op.numLoops(); ++d)
      if (op.iterators[d] == IteratorKind::Parallel && !used[d])
        fail("output map", "every parallel loop in the output map (d" + std::to_string(d) +
                               " is missing)");
    if (op.kind == OpKind::Reshape) {
      if (op.inputs.size() != 1 ||
          tensors_[op.inputs[0].tensor].numElements() != out.numElements())
        fail("input 0", "one input with as many elements as '" + out.name + "'");
    }
    if (writer.count(op.output.tensor))
      fail("output", "a tensor no other op writes ('" + out.name + "' is written by op '" +
                         ops_[writer[op.output.tensor]].name + "')");
    writer[op.output.tensor] = o;
    if (out.role == TensorRole::Input || out.role == TensorRole::Constant ||
        out.role == TensorRole::State)
      fail("output", "an intermediate or output tensor ('" + out.name + "' is " +
                         ir::toString(out.role) + ")");
  }
  for (TensorId t = 0; t < tensors_.size(); ++t) {
    const TensorInfo &info = tensors_[t];
    bool needsWriter = info.role == TensorRole::Intermediate || info.role == TensorRole::Output;
    if (needsWriter && !writer.count(t))
      throw Error("tensor graph", "tensor '" + info.name + "'",
                  "an op producing it (it is " + ir::toString(info.role) + ")");
  }
  topologicalOrder();
}

std::string TensorGraph::toString() const {
  std::ostringstream os;
  for (const auto &t : tensors_)
    os << ir::toString(t.role) << " %" << t.name << " : tensor<" << shapeString(t.shape) << "x"
       << ir::toString(t.dtype) << ">\n";
  for (OpId o : topologicalOrder()) {
    const Op &op = ops_[o];
    os << "%" << tensors_[op.output.tensor].name << " = " << ir::toString(op.kind) << " \""
       << op.name << "\" loops [";
    for (unsigned d = 0; d < op.numLoops(); ++d)
      os << (d ? ", " : "") << op.loopExtents[d]
         << (op.iterators[d] == IteratorKind::Reduction ? "r" : "");
    os << "] ins(";
    for (size_t i = 0; i < op.inputs.size(); ++i)
      os << (i ? ", " : "") << "%" << tensors_[op.inputs[i].tensor].name << " "
         << (op.kind == OpKind::Reshape ? "reshape" : op.inputs[i].map.toString());
    os << ") outs(%" << tensors_[op.output.tensor].name << " " << op.output.map.toString()
       << ") body " << op.body.toString();
    if (op.combiner != Combiner::None)
      os << " combine " << ir::toString(op.combiner);
    if (op.kind == OpKind::Llm)
      os << " " << llmOpName(op.llm) << " {" << llmAttributesToString(op.llm) << "}";
    os << "\n";
  }
  return os.str();
}

// ---- builders ----

OpId addMatmul(TensorGraph &g, const std::string &name, TensorId a, TensorId b, TensorId out) {
  const auto &sa = g.tensor(a).shape;
  const auto &sb = g.tensor(b).shape;
  const auto &so = g.tensor(out).shape;
  const std::string where = "matmul '" + name + "'";
  if (sa.size() != sb.size() || sa.size() != so.size() || (sa.size() != 2 && sa.size() != 3))
    throw Error("tensor graph", where, "operands of rank 2 (or 3 for a batched matmul)");
  Op op;
  op.name = name;
  op.kind = OpKind::Matmul;
  op.body = ScalarExpr::binary(ScalarExpr::Kind::Mul, ScalarExpr::input(0), ScalarExpr::input(1));
  op.combiner = Combiner::Sum;
  const bool batched = sa.size() == 3;
  const unsigned batch = batched ? 1 : 0;
  const int64_t m = sa[batch], k = sa[batch + 1], n = sb[batch + 1];
  if (sb[batch] != k || so[batch] != m || so[batch + 1] != n ||
      (batched && (sb[0] != sa[0] || so[0] != sa[0])))
    throw Error("tensor graph", where, "shapes [B,]MxK * [B,]KxN -> [B,]MxN");
  if (batched) {
    // loops (b, m, n, k)
    op.loopExtents = {sa[0], m, n, k};
    op.iterators = {IteratorKind::Parallel, IteratorKind::Parallel, IteratorKind::Parallel,
                    IteratorKind::Reduction};
    op.inputs = {{a, AffineMap::projection(4, {0, 1, 3})}, {b, AffineMap::projection(4, {0, 3, 2})}};
    op.output = {out, AffineMap::projection(4, {0, 1, 2})};
  } else {
    // loops (m, n, k)
    op.loopExtents = {m, n, k};
    op.iterators = {IteratorKind::Parallel, IteratorKind::Parallel, IteratorKind::Reduction};
    op.inputs = {{a, AffineMap::projection(3, {0, 2})}, {b, AffineMap::projection(3, {2, 1})}};
    op.output = {out, AffineMap::projection(3, {0, 1})};
  }
  return g.addOp(std::move(op));
}

OpId addElementwise(TensorGraph &g, const std::string &name, const std::vector<TensorId> &inputs,
                    TensorId out, ScalarExpr body) {
  const auto &so = g.tensor(out).shape;
  const unsigned rank = static_cast<unsigned>(so.size());
  Op op;
  op.name = name;
  op.kind = OpKind::Elementwise;
  op.loopExtents = so;
  op.iterators.assign(rank, IteratorKind::Parallel);
  for (TensorId t : inputs) {
    const auto &si = g.tensor(t).shape;
    if (si.size() > rank)
      throw Error("tensor graph", "elementwise '" + name + "' input '" + g.tensor(t).name + "'",
                  "rank at most the output's (" + std::to_string(rank) + ")");
    AffineMap map{rank, {}};
    const unsigned offset = rank - static_cast<unsigned>(si.size());
    for (unsigned j = 0; j < si.size(); ++j) {
      if (si[j] == so[offset + j])
        map.results.push_back(AffineExpr::dim(rank, offset + j));
      else if (si[j] == 1)
        map.results.push_back(AffineExpr::constantExpr(rank, 0));
      else
        throw Error("tensor graph", "elementwise '" + name + "' input '" + g.tensor(t).name + "'",
                    "dimension " + std::to_string(j) + " of extent 1 or " +
                        std::to_string(so[offset + j]) + " (broadcast), got " +
                        std::to_string(si[j]));
    }
    op.inputs.push_back({t, map});
  }
  op.output = {out, AffineMap::identity(rank)};
  op.body = std::move(body);
  return g.addOp(std::move(op));
}

OpId addReduce(TensorGraph &g, const std::string &name, TensorId in, TensorId out, unsigned dim,
               Combiner combiner) {
  const auto &si = g.tensor(in).shape;
  if (dim >= si.size())
    throw Error("tensor graph", "reduce '" + name + "' dim", "a dimension of the input");
  const unsigned rank = static_cast<unsigned>(si.size());
  Op op;
  op.name = name;
  op.kind = OpKind::Reduce;
  op.loopExtents = si;
  op.iterators.assign(rank, IteratorKind::Parallel);
  op.iterators[dim] = IteratorKind::Reduction;
  op.inputs = {{in, AffineMap::identity(rank)}};
  std::vector<unsigned> kept;
  for (unsigned d = 0; d < rank; ++d)
    if (d != dim)
      kept.push_back(d);
  op.output = {out, AffineMap::projection(rank, kept)};
  op.body = ScalarExpr::input(0);
  op.combiner = combiner;
  return g.addOp(std::move(op));
}

OpId addTranspose(TensorGraph &g, const std::string &name, TensorId in, TensorId out,
                  const std::vector<unsigned> &perm) {
  const auto &si = g.tensor(in).shape;
  const unsigned rank = static_cast<unsigned>(si.size());
  std::vector<unsigned> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned j = 0; j < sorted.size(); ++j)
    if (sorted[j] != j || perm.size() != rank)
      throw Error("tensor graph", "transpose '" + name + "' permutation",
                  "a permutation of 0.." + std::to_string(rank - 1));
  // Loops run over the output: out[d0..] = in[...] where in dim perm[j] = loop j.
  Op op;
  op.name = name;
  op.kind = OpKind::Transpose;
  for (unsigned j = 0; j < rank; ++j)
    op.loopExtents.push_back(si[perm[j]]);
  op.iterators.assign(rank, IteratorKind::Parallel);
  AffineMap inMap{rank, std::vector<AffineExpr>(rank)};
  for (unsigned j = 0; j < rank; ++j)
    inMap.results[perm[j]] = AffineExpr::dim(rank, j);
  op.inputs = {{in, inMap}};
  op.output = {out, AffineMap::identity(rank)};
  op.body = ScalarExpr::input(0);
  return g.addOp(std::move(op));
}

OpId addReshape(TensorGraph &g, const std::string &name, TensorId in, TensorId out) {
  const auto &so = g.tensor(out).shape;
  const unsigned rank = static_cast<unsigned>(so.size());
  Op op;
  op.name = name;
  op.kind = OpKind::Reshape;
  op.loopExtents = so;
  op.iterators.assign(rank, IteratorKind::Parallel);
  op.inputs = {{in, AffineMap{rank, {}}}};
  op.output = {out, AffineMap::identity(rank)};
  op.body = ScalarExpr::input(0);
  return g.addOp(std::move(op));
}

} // namespace st::ir

namespace st::ir {

OpId addLlmOp(TensorGraph &g, const std::string &name, LlmAttributes attributes,
              const std::vector<TensorId> &inputs, TensorId out) {
  Op op;
  const std::string kind = llmOpName(attributes);
  if (kind == "add" || kind == "activation" || kind == "gated") {
    const ScalarExpr body =
        kind == "add"   ? ScalarExpr::binary(ScalarExpr::Kind::Add, ScalarExpr::input(0),
                                             ScalarExpr::input(1))
        : kind == "gated" ? ScalarExpr::binary(ScalarExpr::Kind::Mul, ScalarExpr::input(0),
                                               ScalarExpr::input(1))
                          : ScalarExpr::input(0);
    OpId id = addElementwise(g, name, inputs, out, body);
    g.op(id).kind = OpKind::Llm;
    g.op(id).llm = std::move(attributes);
    return id;
  }
  if (kind == "argmax") {
    OpId id = addReduce(g, name, inputs.at(0), out, 0, Combiner::Max);
    g.op(id).kind = OpKind::Llm;
    g.op(id).llm = std::move(attributes);
    return id;
  }
  op.name = name;
  op.kind = OpKind::Llm;
  op.llm = std::move(attributes);
  if (kind == "linear") {
    const auto &w = g.tensor(inputs.at(1)).shape;
    if (w.size() != 2 || g.tensor(inputs.at(0)).shape != std::vector<int64_t>{w[1]} ||
        g.tensor(out).shape != std::vector<int64_t>{w[0]})
      throw Error("tensor graph", "linear '" + name + "' shapes", "x[K], W[N,K] -> out[N]");
    op.loopExtents = {w[0], w[1]};
    op.iterators = {IteratorKind::Parallel, IteratorKind::Reduction};
    op.inputs.push_back({inputs[0], AffineMap::projection(2, {1})});
    op.inputs.push_back({inputs[1], AffineMap::identity(2)});
    if (inputs.size() > 2)
      op.inputs.push_back({inputs[2], AffineMap::projection(2, {0})});
    op.output = {out, AffineMap::projection(2, {0})};
    op.body = ScalarExpr::binary(ScalarExpr::Kind::Mul, ScalarExpr::input(0), ScalarExpr::input(1));
    op.combiner = Combiner::Sum;
    return g.addOp(std::move(op));
  }
  for (TensorId t : inputs)
    op.inputs.push_back({t, AffineMap{0, {}}});
  op.output = {out, AffineMap{0, {}}};
  return g.addOp(std::move(op));
}

} // namespace st::ir
