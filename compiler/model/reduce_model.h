// Timing and resource model of st_reduce (rtl_templates/kernels/st_reduce.sv), the sum/max
// reduction of synthetic tensor graphs. One output token takes Tokens input tokens, one per
// cycle; input token j of an output is taken in cycle j and the output leaves 2 cycles after its
// last input (partial register, accumulator/result register) plus 1 (output register slice):
//   D = Tokens + 2,  II = Tokens,  L = D + (T - 1) * Tokens   for T output tokens,
//   inputTokensNeeded(k) = (k + 1) * Tokens.
// tests/rtl/reduce asserts these numbers against Verilator and prints the resource estimate
// beside Yosys's counts.
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

/// The Combiner parameter of st_reduce.
enum class ReduceCombiner : int64_t { Sum = 0, Max = 1 };

/// Parameters of st_reduce, plus the output tokens of the invocation being timed.
struct ReduceParams {
  int64_t outerLanes = 1;  ///< OuterLanes
  int64_t reduceLanes = 4; ///< ReduceLanes: reduced elements per row within a token
  int64_t innerLanes = 1;  ///< InnerLanes
  int64_t tokens = 4;      ///< Tokens: input tokens per output token
  int64_t inBits = 8;      ///< InBits: input code width
  int64_t outBits = 32;    ///< OutBits: output code width
  ReduceCombiner combiner = ReduceCombiner::Sum;
  bool inSigned = true;     ///< InSigned: input codes signed (else unsigned)
  bool outSigned = true;    ///< OutSigned: results saturate to the signed range (else unsigned)
  int64_t outputTokens = 1; ///< output tokens of one invocation (T)
};

/// One input port carrying outputTokens * Tokens tokens.
KernelTiming reduceTiming(const ReduceParams &params);

/// LUT/FF estimate (see reduce_model.cpp).
ResourceEstimate reduceResources(const ReduceParams &params);

/// Width of the running combination (exact sum, or the input width for max; an unsigned input
/// counts one bit more).
int64_t reduceAccBits(const ReduceParams &params);

} // namespace st::model
