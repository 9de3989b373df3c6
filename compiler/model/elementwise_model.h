// Timing and resource models of the element-wise LLM kernels in rtl_templates/kernels/:
// st_activation (GELU erf/tanh, SiLU), st_gated_activation (GeGLU, SwiGLU), st_requantize and
// st_residual_add. Each is a fixed-depth pipeline taking one token (Lanes elements) per cycle on
// every input and emitting one per cycle, so an invocation of T tokens has D = Depth, II = 1 and
// L = Depth + T - 1. tests/rtl/elementwise asserts these numbers against Verilator and prints
// the resource estimates beside Yosys's counts.
#pragma once

#include <cstdint>

#include "ir/llm_ops.h"
#include "model/kernel_timing.h"

namespace st::model {

/// The Function parameter of st_activation and st_gated_activation.
enum class ElementwiseFunction : int64_t { GeluErf = 0, GeluTanh = 1, Silu = 2 };
/// st_activation's Function for an activation op.
ElementwiseFunction elementwiseFunctionOf(ir::ActivationKind kind);
/// st_gated_activation's Function for a gated op: the golden model's GeGLU is in the tanh form,
/// SwiGLU gates with SiLU.
ElementwiseFunction elementwiseFunctionOf(ir::GatedKind kind);

/// Parameters of st_activation, plus the vector length n of the invocation being timed.
struct ActivationParams {
  ElementwiseFunction function = ElementwiseFunction::GeluErf;
  int64_t lanes = 4;   ///< Lanes
  int64_t inBits = 16; ///< InBits: signed input code width
  int64_t outBits = 8; ///< OutBits: signed output code width
  int64_t n = 1024;    ///< elements of one invocation (ceil(n / lanes) tokens)
};

/// Parameters of st_gated_activation (gate and up share InBits).
struct GatedActivationParams {
  ElementwiseFunction function = ElementwiseFunction::Silu;
  int64_t lanes = 4;
  int64_t inBits = 16;
  int64_t outBits = 8;
  int64_t n = 1024;
};

/// Parameters of st_requantize.
struct RequantizeParams {
  int64_t lanes = 4;
  int64_t inBits = 32; ///< InBits: 2 .. 48
  int64_t outBits = 8;
  int64_t n = 1024;
};

/// Parameters of st_residual_add.
struct ResidualAddParams {
  int64_t lanes = 4;
  int64_t aBits = 16; ///< ABits
  int64_t bBits = 16; ///< BBits
  int64_t outBits = 16;
  int64_t n = 1024;
};

/// Pipeline depths (cycles from an input handshake to the output handshake of its token with
/// ideal streams), including the output register slice.
constexpr int64_t kActivationDepth = 14;
constexpr int64_t kGatedActivationDepth = 18;
constexpr int64_t kRequantizeDepth = 6; ///< 8 for inBits > 34 (requantizeTiming)
constexpr int64_t kResidualAddDepth = 10;

/// Flip-flops of a pipelined st_round_shift (Pipelined = 1) from an inWidth-bit value to outWidth
/// bits before its result register: stage 1 (q's kept bits with the round bit, the grouped round
/// and range tests, the sign) and stage 2 (q, q + 1, inc, range, q = Max, sign).
int64_t roundShiftStageFfs(int64_t inWidth, int64_t outWidth);

/// One invocation = one vector of n elements = T = ceil(n / lanes) tokens on every input port
/// (activation, requantize: port 0 data; gated: port 0 gate, port 1 up; residual add: port 0 a,
/// port 1 b). Output token k needs input token k on every port: inputTokensNeeded(k) = k + 1.
KernelTiming activationTiming(const ActivationParams &params);
KernelTiming gatedActivationTiming(const GatedActivationParams &params);
KernelTiming requantizeTiming(const RequantizeParams &params);
KernelTiming residualAddTiming(const ResidualAddParams &params);

/// LUT/FF/DSP/BRAM estimates, counted per datapath part (see elementwise_model.cpp).
ResourceEstimate activationResources(const ActivationParams &params);
ResourceEstimate gatedActivationResources(const GatedActivationParams &params);
ResourceEstimate requantizeResources(const RequantizeParams &params);
ResourceEstimate residualAddResources(const ResidualAddParams &params);

} // namespace st::model
