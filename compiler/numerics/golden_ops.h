// The golden kernels (docs/numerics.md §6): pure functions over integer vectors and scale
// descriptors computing exactly the bits the RTL kernels produce. No floating point is used on
// any value path; the *Scales() helpers below run at compile time to build the descriptors.
#pragma once

#include "fixed_point.h"
#include "nonlinear_functions.h"
#include "nonlinear_tables.h"
#include "quantization.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::numerics {

/// Longest K of a linear layer and longest norm vector the accumulator widths are sized for.
constexpr size_t kMaxReductionLength = 16384;
/// Longest softmax vector (max context) the exp-sum width is sized for.
constexpr size_t kMaxSoftmaxLength = size_t(1) << 20;

// ---- linear ------------------------------------------------------------------------------
/// Per row r: sum over groups g of groupScales[r,g] * (sum_{k in g} W[r,k] * x[k]), plus bias.
/// Exact integer arithmetic (order-independent, nothing saturates). x codes must fit
/// layer.activationBits; throws std::invalid_argument otherwise.
std::vector<int64_t> linearAccumulators(const std::vector<int32_t> &x,
                                        const QuantizedLinear &layer);
/// linearAccumulators, then per row requantizeValue(acc, outputScales[r], outputBits).
std::vector<int32_t> linear(const std::vector<int32_t> &x, const QuantizedLinear &layer);

// ---- requantize / residual ---------------------------------------------------------------
/// Each value: saturate(round(value * scale), outputBits).
std::vector<int32_t> requantize(const std::vector<int64_t> &values, FixedScale scale,
                                unsigned outputBits);
std::vector<int32_t> requantize(const std::vector<int32_t> &values, FixedScale scale,
                                unsigned outputBits);

/// Residual add of two tensors with different scales into a third: a*Ma + b*Mb with the two
/// products aligned to the larger shift s and rounded once:
///   saturate(round((a*ma*2^(s-sa) + b*mb*2^(s-sb)) / 2^s)).
struct ResidualAddScales {
  FixedScale a; ///< s_a / s_out
  FixedScale b; ///< s_b / s_out
};
ResidualAddScales residualAddScales(double scaleA, double scaleB, double scaleOut);
std::vector<int32_t> residualAdd(const std::vector<int32_t> &a, const std::vector<int32_t> &b,
                                 const ResidualAddScales &scales, unsigned outputBits);

// ---- normalization -----------------------------------------------------------------------
/// LayerNorm / RMSNorm (Gemma's 1 + w folded into gamma by quantizeNorm). With N = size,
/// S1 = sum x, S2 = sum x^2:
///   LayerNorm: u_i = N*x_i - S1, D = N*S2 - S1^2 + epsilonTerm
///   RMSNorm:   u_i = x_i,        D = S2 + epsilonTerm      (sqrt(N) is in outputMultiplier)
///   (R, k) = rsqrt(max(D, 1)); z_i = round(u_i * R / 2^(k+1))      (Q.16)
///   y_i = saturate(round((z_i * gamma_i * mantissa + beta_i * 2^(shift+8)) / 2^(shift+16)))
/// with (mantissa, shift) = outputMultiplier and beta_i in output LSBs with 8 fraction bits.
/// Zero variance gives u_i = 0, hence y_i = beta_i (0 for RMSNorm).
std::vector<int32_t> normalize(const std::vector<int32_t> &x, const QuantizedNorm &norm);

// ---- softmax -----------------------------------------------------------------------------
/// logitToLog2 = s_logit * log2(e) * 2^16: maps a logit difference to the exp2 input.
struct SoftmaxScales {
  FixedScale logitToLog2;
};
SoftmaxScales softmaxScales(double logitScale);
/// The exponent of pass 2 (below): exp2Negative(-round((m - z)·logitToLog2), 32), Q1.32, for a
/// logit z <= the maximum m (2^32 at z = m). Decode attention weighs the values with it too.
uint64_t softmaxExponent(int32_t maximum, int32_t logit, const SoftmaxScales &scales);
/// Three passes over the streamed vector: m = max z; e_i = exp2Negative(-round((m - z_i) *
/// logitToLog2), 32) (Q1.32); S = sum e_i; (R, L) = reciprocalRefined(S) (Q1.30);
/// p_i = round(e_i * R / 2^(L + 15)).
/// Output: probabilities in unsigned Q1.15 (1.0 = 32768). Length 1 .. kMaxSoftmaxLength.
std::vector<uint32_t> softmax(const std::vector<int32_t> &logits, const SoftmaxScales &scales);

// ---- activations -------------------------------------------------------------------------
/// inputToFixed = s_in * 2^11 (codes -> Q.11), fixedToOutput = 2^-11 / s_out (Q.11 -> codes).
struct ActivationScales {
  FixedScale inputToFixed;
  FixedScale fixedToOutput;
  unsigned outputBits = 8;
};
ActivationScales activationScales(double inputScale, double outputScale, unsigned outputBits);
std::vector<int32_t> gelu(const std::vector<int32_t> &x, const ActivationScales &scales,
                          GeluForm form);
std::vector<int32_t> silu(const std::vector<int32_t> &x, const ActivationScales &scales);

/// Gated MLP: act(gate) * up. gateToFixed/upToFixed map codes to Q.11; productToOutput =
/// 2^-22 / s_out maps the Q.22 product to output codes.
struct GatedScales {
  FixedScale gateToFixed;
  FixedScale upToFixed;
  FixedScale productToOutput;
  unsigned outputBits = 8;
};
GatedScales gatedScales(double gateScale, double upScale, double outputScale, unsigned outputBits);
std::vector<int32_t> swiglu(const std::vector<int32_t> &gate, const std::vector<int32_t> &up,
                            const GatedScales &scales);
std::vector<int32_t> geglu(const std::vector<int32_t> &gate, const std::vector<int32_t> &up,
                           const GatedScales &scales, GeluForm form);

// ---- RoPE --------------------------------------------------------------------------------
/// Rotate-half RoPE of one head vector at `position`: for j < d/2, phase_j = position *
/// phaseIncrement[j] mod 2^48, (s, c) = sinCosFixed(phase_j), a = x[j], b = x[j + d/2]:
///   y[j] = saturate(round((a*c - b*s) * outputMultiplier / 2^15))
///   y[j + d/2] = saturate(round((b*c + a*s) * outputMultiplier / 2^15))
/// outputMultiplier = s_in / s_out.
std::vector<int32_t> rope(const std::vector<int32_t> &x, uint64_t position, const RopeTable &table,
                          FixedScale outputMultiplier, unsigned outputBits);

// ---- argmax ------------------------------------------------------------------------------
/// Index of the largest value; ties go to the lowest index. Throws for an empty vector.
size_t argmax(const std::vector<int32_t> &values);

} // namespace st::numerics
