// Timing and resource model of rtl_templates/kernels/st_softmax.sv (three passes over a
// buffered vector: max, exp-sum, normalize; see the template's header for the schedule). Its
// Verilator test (tests/rtl/softmax) asserts these cycle counts exactly for many lengths.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

/// The template's parameters, plus the runtime vector length of the invocation being timed.
struct SoftmaxParams {
  int64_t lanes = 4;      ///< Lanes: logits per token
  int64_t inBits = 32;    ///< InBits: signed logit width
  int64_t maxLen = 4096;  ///< MaxLen: longest vector (the max context)
  int64_t length = 0;     ///< runtime length n of the invocation (1 .. maxLen; 0 means maxLen)
  bool normalized = true; ///< Normalized: probabilities (3 passes), or weights and 1/sum (2)
};

/// Width of n on the config stream, and of the whole config token {shift, mantissa, n}.
int64_t softmaxLengthBits(const SoftmaxParams &params);
int64_t softmaxConfigBits(const SoftmaxParams &params);

/// Pipeline constants of the template (cycles).
struct SoftmaxPipeline {
  static constexpr int64_t kMaxMerge = 1;   ///< lane-tree register before the running max
  static constexpr int64_t kReadToE = 7;    ///< buffer read + 6 exponent stages
  static constexpr int64_t kSumStages = 2;  ///< lane sum, accumulator
  static constexpr int64_t kReciprocal = 6; ///< st_softmax_reciprocal
  static constexpr int64_t kNormalize = 2;  ///< e*R, round/shift
  static constexpr int64_t kOutSlice = 1;   ///< st_skid_buffer
};

/// Inputs: port 0 = config (1 token), port 1 = logits (T = ceil(n/Lanes) tokens), both needed
/// in full before output 0. With the config handshake at cycle 0: logits in cycles 1..T; pass-2
/// reads from T+2 (after the last token's maximum merges); S final at 2T+10; R at 2T+16;
/// pass-3 reads from 2T+17; output k at D + k with D = 2T + 27, ii = 1, L = 3T + 26.
/// normalized = false: the weight reads from T+2, D = T + 12, L = 2T + 11.
KernelTiming softmaxTiming(const SoftmaxParams &params);
/// normalized = false: the cycle norm_valid_o pulses (2T + 16), config handshake at 0.
int64_t softmaxNormValidCycle(const SoftmaxParams &params);

/// LUT/FF/DSP/BRAM estimate: per lane the exponent pipeline (subtract, 24-bit scale multiply,
/// 6-bit barrel shift, two table reads, interpolation, output shift) and the e*R multiply and
/// rounding shift; the lane max tree and lane sum; the logit buffer (Lanes*InBits x
/// ceil(MaxLen/Lanes), block RAM); the reciprocal unit; control and the output slice.
ResourceEstimate softmaxResources(const SoftmaxParams &params);
/// One st_softmax_exp_lane of InBits-wide logits (the exponent pipeline and the weight's
/// rounding), and one st_softmax_reciprocal of a SumBits-wide sum: the parts st_attention's one
/// pass builds from.
ResourceEstimate softmaxExpLaneResources(int64_t inBits);
ResourceEstimate softmaxReciprocalResources(int64_t sumBits);

} // namespace st::model
