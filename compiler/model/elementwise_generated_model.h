// Timing and resource model of the element-wise kernels emitted by gen/elementwise_module.h
// for synthetic tensor graphs. Every such module takes one token (a tile) from every input in
// the same cycle, computes in one combinational step, registers the result and passes it through
// an output register slice (st_skid_buffer), so an invocation of T tokens has
//   D = 2,  II = 1,  L = T + 1,  inputTokensNeeded(k) = k + 1 on every input.
// tests/rtl/generated_elementwise asserts these numbers against Verilator and prints the
// resource estimate beside Yosys's counts.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor_graph.h"
#include "model/kernel_timing.h"

namespace st::model {

/// Cycles from an input handshake to the output handshake of its token with ideal streams.
constexpr int64_t kGeneratedElementwiseDepth = 2;

/// What emitElementwiseModule was given, plus the tokens of the invocation being timed.
struct ElementwiseGeneratedParams {
  ir::ScalarExpr body;
  std::vector<int64_t> outputTileShape;
  std::vector<std::vector<int64_t>> inputTileShapes;
  std::vector<ir::DType> inputTypes;
  ir::DType outputType = ir::DType::I32;
  int64_t tokens = 1; ///< tiles of one invocation on every port (T)
};

/// One port per input tile shape, each carrying `tokens` tokens.
KernelTiming elementwiseGeneratedTiming(const ElementwiseGeneratedParams &params);

/// LUT/FF/DSP estimate from the body's analysed node widths (see the .cpp).
ResourceEstimate elementwiseGeneratedResources(const ElementwiseGeneratedParams &params);

} // namespace st::model
