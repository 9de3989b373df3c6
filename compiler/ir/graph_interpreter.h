// The reference executor of a TensorGraph: runs every op's loop nest on concrete integer data
// with the IR's exact semantics (64-bit accumulation, results saturated to the output type).
// The generated testbench of a synthetic graph compares the RTL's outputs with these values.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ir/tensor_graph.h"

namespace st::ir {

/// Row-major element values per tensor.
using TensorValues = std::map<TensorId, std::vector<int64_t>>;

/// Row-major linear index of `index` in `shape`.
int64_t linearIndex(const std::vector<int64_t> &shape, const std::vector<int64_t> &index);

/// Executes the graph. `inputs` holds every Input and Constant tensor (checked for presence,
/// size and range of its type); returns the values of every tensor.
TensorValues interpretGraph(const TensorGraph &graph, const TensorValues &inputs);

} // namespace st::ir
