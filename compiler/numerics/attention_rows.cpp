// Golden decode attention over caches in place (see attention_rows.h): attention()'s and
// attentionTiled()'s loops reordered over pointers; integer sums in another order, the same
// integers.
#include "attention_rows.h"

#include "golden_ops.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace st::numerics {

namespace {

/// Positions whose weighted values are summed in 32 bits: |E v| <= 2^15 * 2^7, 256 * 2^22 = 2^30.
constexpr size_t kValueBlock = 256;

void checkCodes(const int32_t *codes, size_t n, const char *what) {
  for (size_t i = 0; i < n; ++i)
    if (codes[i] < -128 || codes[i] > 127)
      throw std::invalid_argument(std::string("attention: ") + what + " code " +
                                  std::to_string(codes[i]) + " at index " + std::to_string(i) +
                                  " does not fit 8 bits");
}

void checkView(const AttentionView &in, const AttentionShape &shape) {
  if (shape.numHeads == 0 || shape.numKvHeads == 0 || shape.headDim == 0 ||
      shape.numHeads % shape.numKvHeads != 0 || shape.headDim > kMaxAttentionHeadDim)
    throw std::invalid_argument("attention: numHeads, numKvHeads and headDim must be >= 1, "
                                "numHeads a multiple of numKvHeads, headDim at most " +
                                std::to_string(kMaxAttentionHeadDim));
  if (in.cacheLength + 1 > kMaxSoftmaxLength)
    throw std::invalid_argument("attention: cacheLength + 1 exceeds kMaxSoftmaxLength");
  checkCodes(in.q, shape.qSize(), "q");
  checkCodes(in.kNew, shape.kvSize(), "kNew");
  checkCodes(in.vNew, shape.kvSize(), "vNew");
}

/// Position p's row of k or v (the cache's, or the new token's at p == cacheLength).
const int32_t *rowAt(const int32_t *cache, const int32_t *fresh, const AttentionView &in,
                     const AttentionShape &shape, size_t p) {
  return p < in.cacheLength ? cache + p * shape.kvSize() : fresh;
}

/// attentionScores, head-major [h * n + p]: each key read once for its kv head's query heads.
/// |q.k| <= headDim * 2^14 < 2^31: exact in 32 bits.
std::vector<int32_t> scoresOf(const AttentionView &in, const AttentionShape &shape) {
  const size_t n = in.cacheLength + 1, dim = shape.headDim;
  const size_t group = shape.numHeads / shape.numKvHeads;
  std::vector<int32_t> scores(shape.numHeads * n);
  for (size_t p = 0; p < n; ++p) {
    const int32_t *k = rowAt(in.kCache, in.kNew, in, shape, p);
    for (size_t h = 0; h < shape.numHeads; ++h) {
      const int32_t *kh = k + (h / group) * dim;
      const int32_t *qh = in.q + h * dim;
      int32_t sum = 0;
      for (size_t d = 0; d < dim; ++d)
        sum += qh[d] * kh[d];
      scores[h * n + p] = sum;
    }
  }
  return scores;
}

/// For every head h: sum_{p in [p0, p1)} weights[h * stride + p - p0] * v[p][h's kv head][d]
/// added to acc[h * headDim + d]. Each value row is read once for all heads.
void addWeightedValues(const AttentionView &in, const AttentionShape &shape,
                       const uint32_t *weights, size_t stride, size_t p0, size_t p1, int64_t *acc) {
  const size_t dim = shape.headDim, group = shape.numHeads / shape.numKvHeads;
  std::vector<int32_t> block(shape.qSize());
  for (size_t b0 = p0; b0 < p1; b0 += kValueBlock) {
    std::fill(block.begin(), block.end(), 0);
    for (size_t p = b0; p < std::min(p1, b0 + kValueBlock); ++p) {
      const int32_t *v = rowAt(in.vCache, in.vNew, in, shape, p);
      for (size_t h = 0; h < shape.numHeads; ++h) {
        const int32_t w = static_cast<int32_t>(weights[h * stride + p - p0]);
        const int32_t *vh = v + (h / group) * dim;
        int32_t *bh = block.data() + h * dim;
        for (size_t d = 0; d < dim; ++d)
          bh[d] += w * vh[d];
      }
    }
    for (size_t i = 0; i < block.size(); ++i)
      acc[i] += block[i];
  }
}

/// attention(): every head's weights against its maximum, the sum, the weighted values.
std::vector<int32_t> twoPass(const AttentionView &in, const AttentionShape &shape,
                             const AttentionScales &scales, const std::vector<int32_t> &scores) {
  const size_t n = in.cacheLength + 1;
  const SoftmaxScales softmaxScale{scales.scoreToLog2};
  std::vector<int64_t> accumulators(shape.qSize(), 0);
  std::vector<uint64_t> sums(shape.numHeads, 0);
  std::vector<uint32_t> weights(shape.numHeads * n);
  for (size_t h = 0; h < shape.numHeads; ++h) {
    const int32_t *s = scores.data() + h * n;
    const int32_t maximum = *std::max_element(s, s + n);
    uint64_t sum = 0;
    for (size_t p = 0; p < n; ++p) {
      weights[h * n + p] = attentionWeightOf(maximum, s[p], softmaxScale);
      sum += weights[h * n + p];
    }
    sums[h] = sum;
  }
  addWeightedValues(in, shape, weights.data(), n, 0, n, accumulators.data());
  return attentionOutputs(accumulators, sums, shape, scales);
}

/// attentionTiled(): per tile, every head's weights against its running maximum, then the
/// running accumulators and sum rescaled by the maximum's growth.
std::vector<int32_t> tiled(const AttentionView &in, const AttentionShape &shape,
                           const AttentionScales &scales, const std::vector<int32_t> &scores,
                           size_t tilePositions) {
  const size_t n = in.cacheLength + 1, dim = shape.headDim, heads = shape.numHeads;
  const SoftmaxScales softmaxScale{scales.scoreToLog2};
  const size_t tile = std::min(n, tilePositions);
  std::vector<int64_t> accumulators(shape.qSize(), 0), partial(shape.qSize());
  std::vector<uint64_t> sums(heads, 0), partialSums(heads);
  std::vector<uint32_t> weights(heads * tile);
  std::vector<int32_t> maxima(heads), previous(heads);
  for (size_t h = 0; h < heads; ++h)
    maxima[h] = scores[h * n];
  for (size_t first = 0; first < n; first += tilePositions) {
    const size_t last = std::min(n, first + tilePositions);
    for (size_t h = 0; h < heads; ++h) {
      const int32_t *s = scores.data() + h * n;
      previous[h] = maxima[h];
      maxima[h] = std::max(maxima[h], *std::max_element(s + first, s + last));
      partialSums[h] = 0;
      for (size_t p = first; p < last; ++p) {
        weights[h * tile + p - first] = attentionWeightOf(maxima[h], s[p], softmaxScale);
        partialSums[h] += weights[h * tile + p - first];
      }
    }
    std::fill(partial.begin(), partial.end(), 0);
    addWeightedValues(in, shape, weights.data(), tile, first, last, partial.data());
    for (size_t h = 0; h < heads; ++h) {
      // The first tile's reference is its own maximum: nothing to rescale yet.
      const uint64_t factor = softmaxExponent(maxima[h], previous[h], softmaxScale);
      int64_t *running = accumulators.data() + h * dim;
      for (size_t d = 0; d < dim; ++d)
        running[d] =
            (first == 0 ? 0 : attentionRescaled(running[d], factor)) + partial[h * dim + d];
      sums[h] =
          (first == 0 ? 0 : uint64_t(attentionRescaled(int64_t(sums[h]), factor))) + partialSums[h];
    }
  }
  return attentionOutputs(accumulators, sums, shape, scales);
}

} // namespace

std::vector<int32_t> attentionInPlace(const AttentionView &in, const AttentionShape &shape,
                                      const AttentionScales &scales, size_t tilePositions) {
  checkView(in, shape);
  const std::vector<int32_t> scores = scoresOf(in, shape);
  return tilePositions == 0 ? twoPass(in, shape, scales, scores)
                            : tiled(in, shape, scales, scores, tilePositions);
}

} // namespace st::numerics
