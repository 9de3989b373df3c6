// Timing and resource model of the normalization kernel st_norm (rtl_templates/kernels/):
// LayerNorm, RMSNorm and Gemma's RMSNorm (the same hardware as RMSNorm; (1 + w) is folded into
// gamma at compile time). Mirrors the template's parameters and pipeline; tests/rtl/norm checks
// the timing against Verilator and prints the resources beside Yosys's counts.
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

/// The parameters of st_norm.
struct NormParams {
  bool layerNorm = false; ///< LayerNorm; false: RMSNorm (and Gemma's RMSNorm)
  int64_t n = 64;         ///< vector length N, a multiple of lanes, <= 16384
  int64_t lanes = 4;      ///< elements per token
  unsigned inBits = 16;   ///< input code width
  unsigned outBits = 8;   ///< output code width
  /// Bits of one gamma (and beta) element in the parameter stream (normParamSlotBits).
  int64_t paramSlotBits = 16;
};

/// Pipeline constants of st_norm (cycles), shared by the model and the tests.
/// From the last input handshake of a vector to the first pass-2 read of it: token register,
/// squares, lane sums, accumulate, N*S2 and S1^2, D, the 5-stage rsqrt unit, bank flag.
constexpr int64_t kNormFinalizeCycles = 12;
/// From a pass-2 read (parameter handshake) to the output handshake of that token: 8 datapath
/// stages and the output register slice.
constexpr int64_t kNormPass2Cycles = 9;

/// Tokens per vector: N / Lanes.
int64_t normTokens(const NormParams &params);

/// One invocation = one vector. Inputs: port 0 data (all N/Lanes tokens are needed before
/// output 0), port 1 the gamma/beta parameter stream (token k is read with output token k).
/// D = T + 19, II = 1, L = 2T + 18 for T = N/Lanes.
KernelTiming normTiming(const NormParams &params);

/// With ideal streams and vectors offered back to back from cycle 0 on an idle kernel: the cycle
/// of the first input handshake of vector `index`. Two buffer banks let vector j+1 fill while
/// vector j is emitted; vector j+2 waits for vector j's bank (read out by its last output read).
int64_t normVectorStartCycle(const NormParams &params, int64_t index);

/// LUT/FF/DSP/BRAM estimate, counted per datapath part (see norm_model.cpp).
ResourceEstimate normResources(const NormParams &params);

/// Throws std::invalid_argument for parameters the template rejects.
void checkNormParams(const NormParams &params);

} // namespace st::model
