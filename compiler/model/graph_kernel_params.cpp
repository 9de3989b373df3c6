// Template parameters of the synthetic-graph kernels (see graph_kernel_params.h).
#include "model/graph_kernel_params.h"

#include "model/kernel_templates.h"

namespace st::model {

MatmulParams matmulParamsOf(const ir::DataflowNode &node) {
  MatmulParams p = matmulTemplate().decode(node);
  p.outputTiles = node.outputs.at(0).type.numTokens();
  return p;
}

ReduceParams reduceParamsOf(const ir::DataflowNode &node) {
  ReduceParams p = reduceTemplate().decode(node);
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
