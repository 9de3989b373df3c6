// Template parameters of the synthetic-graph kernels (see graph_kernel_params.h).
#include "model/graph_kernel_params.h"

#include "support/error.h"

namespace st::model {

namespace {

int64_t requireParam(const ir::DataflowNode &node, const std::string &name) {
  auto v = node.param(name);
  if (!v)
    throw Error("kernel parameters", "node '" + node.name + "'", "a parameter " + name);
  return *v;
}

} // namespace

MatmulParams matmulParamsOf(const ir::DataflowNode &node) {
  MatmulParams p;
  p.tm = requireParam(node, "TM");
  p.tn = requireParam(node, "TN");
  p.tk = requireParam(node, "TK");
  p.kTiles = requireParam(node, "KTiles");
  p.aBits = requireParam(node, "ABits");
  p.bBits = requireParam(node, "BBits");
  p.outBits = requireParam(node, "OutBits");
  p.outputTiles = node.outputs.at(0).type.numTokens();
  return p;
}

ReduceParams reduceParamsOf(const ir::DataflowNode &node) {
  ReduceParams p;
  p.outerLanes = requireParam(node, "OuterLanes");
  p.reduceLanes = requireParam(node, "ReduceLanes");
  p.innerLanes = requireParam(node, "InnerLanes");
  p.tokens = requireParam(node, "Tokens");
  p.inBits = requireParam(node, "InBits");
  p.outBits = requireParam(node, "OutBits");
  p.combiner = requireParam(node, "Combiner") ? ReduceCombiner::Max : ReduceCombiner::Sum;
  p.outputTokens = node.outputs.at(0).type.numTokens();
  return p;
}

std::optional<ElementwiseGeneratedParams>
elementwiseGeneratedParamsOf(const ir::DataflowGraph &df, const ir::DataflowNode &node) {
  if (!node.op || !df.source || df.source->op(*node.op).kind != ir::OpKind::Elementwise)
    return std::nullopt;
  const ir::Op &op = df.source->op(*node.op);
  ElementwiseGeneratedParams p;
  p.body = op.body;
  p.outputTileShape = node.outputs.at(0).type.elementShape;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    p.inputTileShapes.push_back(node.inputs.at(i).type.elementShape);
    p.inputTypes.push_back(df.source->tensor(op.inputs[i].tensor).dtype);
  }
  p.outputType = df.source->tensor(op.output.tensor).dtype;
  p.tokens = node.outputs.at(0).type.numTokens();
  return p;
}

} // namespace st::model
