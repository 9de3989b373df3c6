// Reference executor of the tensor graph: one loop-nest walk per op in topological order.
#include "ir/graph_interpreter.h"

#include <algorithm>
#include <limits>

#include "support/error.h"

namespace st::ir {

int64_t linearIndex(const std::vector<int64_t> &shape, const std::vector<int64_t> &index) {
  int64_t lin = 0;
  for (size_t j = 0; j < shape.size(); ++j)
    lin = lin * shape[j] + index[j];
  return lin;
}

namespace {
void runOp(const TensorGraph &g, const Op &op, TensorValues &values) {
  const TensorInfo &out = g.tensor(op.output.tensor);
  std::vector<int64_t> acc(static_cast<size_t>(out.numElements()),
                           op.combiner == Combiner::Max ? std::numeric_limits<int64_t>::min() : 0);
  std::vector<const std::vector<int64_t> *> in;
  for (const auto &operand : op.inputs)
    in.push_back(&values.at(operand.tensor));

  std::vector<int64_t> point(op.numLoops(), 0);
  std::vector<int64_t> scalars(op.inputs.size());
  const int64_t total = [&] {
    int64_t n = 1;
    for (auto e : op.loopExtents)
      n *= e;
    return n;
  }();
  for (int64_t step = 0; step < total; ++step) {
    const int64_t outIndex = linearIndex(out.shape, op.output.map.evaluate(point));
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const TensorInfo &t = g.tensor(op.inputs[i].tensor);
      int64_t inIndex = op.kind == OpKind::Reshape
                            ? outIndex
                            : linearIndex(t.shape, op.inputs[i].map.evaluate(point));
      scalars[i] = (*in[i])[static_cast<size_t>(inIndex)];
    }
    const int64_t v = op.body.evaluate(scalars);
    int64_t &slot = acc[static_cast<size_t>(outIndex)];
    switch (op.combiner) {
    case Combiner::None:
      slot = v;
      break;
    case Combiner::Sum:
      slot += v;
      break;
    case Combiner::Max:
      slot = std::max(slot, v);
      break;
    }
    // Advance the odometer, innermost loop fastest.
    for (size_t d = point.size(); d-- > 0;) {
      if (++point[d] < op.loopExtents[d])
        break;
      point[d] = 0;
    }
  }
  for (auto &v : acc)
    v = saturate(v, out.dtype);
  values[op.output.tensor] = std::move(acc);
}
} // namespace

TensorValues interpretGraph(const TensorGraph &graph, const TensorValues &inputs) {
  TensorValues values;
  for (TensorId t = 0; t < graph.numTensors(); ++t) {
    const TensorInfo &info = graph.tensor(t);
    if (info.role != TensorRole::Input && info.role != TensorRole::Constant)
      continue;
    auto it = inputs.find(t);
    if (it == inputs.end())
      throw Error("graph inputs", "tensor '" + info.name + "'", "values for every input");
    if (static_cast<int64_t>(it->second.size()) != info.numElements())
      throw Error("graph inputs", "tensor '" + info.name + "'",
                  std::to_string(info.numElements()) + " values, got " +
                      std::to_string(it->second.size()));
    for (auto v : it->second)
      if (v < minValue(info.dtype) || v > maxValue(info.dtype))
        throw Error("graph inputs", "tensor '" + info.name + "'",
                    "values within " + toString(info.dtype) + ", got " + std::to_string(v));
    values[t] = it->second;
  }
  for (OpId o : graph.topologicalOrder())
    runOp(graph, graph.op(o), values);
  return values;
}

} // namespace st::ir
