// The golden decode-attention kernel (docs/numerics.md §7): one new token at position
// cacheLength attends to cacheLength cached keys/values plus its own. Pure integer arithmetic
// computing exactly the bits rtl_templates/kernels/st_attention.sv produces, built from the
// golden softmax's exponent (softmaxExponent), reciprocalRefined, applyScale and
// requantizeValue; plus the fp32 reference it is measured against. The values are weighed by
// the unnormalized exponents and the sum divides at the end, so the kernel reads the scores
// twice (score pass, value pass) and never a third time to normalize them.
#pragma once

#include "fixed_point.h"
#include "nonlinear_functions.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::numerics {

struct SoftmaxScales; // golden_ops.h

/// Head layout. Query head h reads kv head h / (numHeads / numKvHeads): multi-head attention
/// when numKvHeads == numHeads, grouped-query in between, multi-query when numKvHeads == 1.
struct AttentionShape {
  size_t numHeads = 1;
  size_t numKvHeads = 1;
  size_t headDim = 1;
  /// numHeads * headDim: codes of q and of the output.
  size_t qSize() const { return numHeads * headDim; }
  /// numKvHeads * headDim: codes of one position of k or v.
  size_t kvSize() const { return numKvHeads * headDim; }
};

/// Longest head the s32 score is sized for: |q.k| <= headDim * 2^14 < 2^31.
constexpr size_t kMaxAttentionHeadDim = 32768;

/// The two runtime multipliers of the kernel (sideband inputs of st_attention):
///   scoreToLog2 = s_q * s_k * attnScale * log2(e) * 2^16 (the softmax multiplier, as
///                 softmaxScales(s_q * s_k * attnScale).logitToLog2);
///   output      = s_v / (s_o * 2^15): the normalized accumulators (the softmax-weighted
///                 mean of v codes in Q.15) -> output codes.
struct AttentionScales {
  FixedScale scoreToLog2;
  FixedScale output;
  unsigned outputBits = 8;
};
/// Compile-time construction from the real scales (attnScale is 1/sqrt(headDim), or the
/// model's query_pre_attn_scalar form for Gemma).
AttentionScales attentionScales(double qScale, double kScale, double attnScale, double vScale,
                                double outputScale, unsigned outputBits = 8);

/// Operands of one invocation, all s8 codes.
///   q:      numHeads * headDim, head-major (after RoPE).
///   kCache: cacheLength * numKvHeads * headDim, position-major, then kv head, then dim.
///   vCache: likewise.
///   kNew, vNew: numKvHeads * headDim, the new token's key and value (position cacheLength).
struct AttentionInputs {
  std::vector<int32_t> q;
  std::vector<int32_t> kCache;
  std::vector<int32_t> vCache;
  std::vector<int32_t> kNew;
  std::vector<int32_t> vNew;
  size_t cacheLength = 0;
};

/// Scores s[h][p] = sum_d q[h][d] * k[p][h / group][d] (exact s32) for p = 0 .. cacheLength,
/// the cached positions first and the new token last. Returned head-major:
/// [h * (cacheLength + 1) + p]. Throws std::invalid_argument on sizes or codes that do not fit.
std::vector<int32_t> attentionScores(const AttentionInputs &inputs, const AttentionShape &shape);

/// Value weights E[h][p] (u16 Q1.15), not normalized: each head's softmax exponent against its
/// maximum score, e = softmaxExponent(max_p s[h][p], s[h][p], scoreToLog2) (Q1.32), rounded
/// half up to Q1.15: E = floor((e + 2^16) / 2^17), 32768 at the maximum. Head-major.
std::vector<uint32_t> attentionWeights(const AttentionInputs &inputs, const AttentionShape &shape,
                                       const AttentionScales &scales);

/// Each head's normalizer: the sum S = sum_p E[h][p] (>= 2^15, the maximum's own weight) and
/// 1/(S * 2^17) = R * 2^-(30 + L) from reciprocalRefined (L >= 32).
struct AttentionNormalizer {
  uint64_t sum = 0;
  NormalizedMantissa inverse;
};
std::vector<AttentionNormalizer> attentionNormalizers(const AttentionInputs &inputs,
                                                      const AttentionShape &shape,
                                                      const AttentionScales &scales);

/// Accumulators a[h][d] = sum_p E[h][p] * v[p][h / group][d] (exact; |a| <= n * 2^22 for
/// n = cacheLength + 1 positions), head-major.
std::vector<int64_t> attentionAccumulators(const AttentionInputs &inputs,
                                           const AttentionShape &shape,
                                           const AttentionScales &scales);

/// The kernel's output, head-major: each accumulator normalized by its head's sum,
/// u[h][d] = sat(round(a[h][d] * R / 2^(L - 2)), 32) = a / S in Q.15 (|u| <= about 2^22), then
/// o[h][d] = saturate(round(u[h][d] * output), outputBits). Two roundings: u keeps 15 fraction
/// bits of the weighted mean of v codes.
std::vector<int32_t> attention(const AttentionInputs &inputs, const AttentionShape &shape,
                               const AttentionScales &scales);

/// One-pass attention in tiles: the kernel reads K and V of a position together instead of in
/// two passes (st_attention's OnePass, docs/numerics.md §6). The positions 0 .. n-1 (the cache,
/// then the new token) form tiles of `tilePositions` (tile t: positions t*T .. t*T + T - 1, the
/// last one shorter). Each head's reference is the running maximum m_t of its scores over tiles
/// 0 .. t. A tile's weights are taken against it, E_p = attentionWeights' rounding of
/// softmaxExponent(m_t, s_p); the tile's partial accumulators P_t[d] = sum_p E_p v_p[d] and sum
/// Z_t = sum_p E_p are added to the running ones rescaled by f_t = softmaxExponent(m_t,
/// m_{t-1}) (Q1.32, exactly 2^32 when the maximum did not grow):
///   A_t = roundShiftRight(A_{t-1} * f_t, 32) + P_t,  S_t = roundShiftRight(S_{t-1} * f_t, 32) +
///   Z_t
/// (A_0 = P_0, S_0 = Z_0). S keeps the final maximum's own weight 2^15, so the output normalizes
/// A by S as attention() does. With tilePositions >= n there is one tile and no rescaling: the
/// result is attention()'s bit for bit. tilePositions >= 1.
std::vector<int32_t> attentionTiled(const AttentionInputs &inputs, const AttentionShape &shape,
                                    const AttentionScales &scales, size_t tilePositions);

/// The steps both forms share, for other loops over the same arithmetic (attention_rows.h):
/// one value weight, the softmax exponent of `score` against `maximum` (Q1.32) rounded half up
/// to u16 Q1.15;
uint32_t attentionWeightOf(int32_t maximum, int32_t score, const SoftmaxScales &scale);
/// a running accumulator or sum rescaled by a Q1.32 factor, rounded half up;
int64_t attentionRescaled(int64_t value, uint64_t factor);
/// the output stage: each accumulator (head-major) divided by its head's weight sum S (a / S in
/// Q.15, through 1/(S * 2^17) = R * 2^-(30 + L)), then requantized.
std::vector<int32_t> attentionOutputs(const std::vector<int64_t> &accumulators,
                                      const std::vector<uint64_t> &sums,
                                      const AttentionShape &shape, const AttentionScales &scales);

/// fp32 reference on real operands (same layouts): softmax(q.k * attnScale) . v per head.
std::vector<float> attentionFloat(const std::vector<float> &q, const std::vector<float> &kCache,
                                  const std::vector<float> &vCache, const std::vector<float> &kNew,
                                  const std::vector<float> &vNew, size_t cacheLength,
                                  const AttentionShape &shape, float attnScale);

} // namespace st::numerics
