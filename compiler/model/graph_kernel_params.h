// The template parameters of the synthetic-graph kernels (st_matmul, st_reduce, generated
// element-wise modules) read back from a dataflow kernel node: one reader for the FIFO sizing's
// timing and the design's resource estimate, so the two cannot read a node differently.
#pragma once

#include <optional>

#include "ir/dataflow_graph.h"
#include "model/elementwise_generated_model.h"
#include "model/matmul_model.h"
#include "model/reduce_model.h"

namespace st::model {

/// st_matmul's parameters of `node`; throws st::Error naming the node and a missing parameter.
MatmulParams matmulParamsOf(const ir::DataflowNode &node);
/// st_reduce's parameters of `node`; throws st::Error naming the node and a missing parameter.
ReduceParams reduceParamsOf(const ir::DataflowNode &node);
/// The generated element-wise module's parameters, or nullopt when `node` implements no
/// element-wise op of `df.source`.
std::optional<ElementwiseGeneratedParams>
elementwiseGeneratedParamsOf(const ir::DataflowGraph &df, const ir::DataflowNode &node);

} // namespace st::model
