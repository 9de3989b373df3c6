// Golden decode attention: the bit-exact arithmetic of st_attention (see attention_golden.h).
#include "attention_golden.h"

#include "float_reference.h"
#include "golden_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace st::numerics {

namespace {

void checkShape(const AttentionShape &shape) {
  if (shape.numHeads == 0 || shape.numKvHeads == 0 || shape.headDim == 0)
    throw std::invalid_argument("attention: numHeads, numKvHeads and headDim must be >= 1");
  if (shape.numHeads % shape.numKvHeads != 0)
    throw std::invalid_argument("attention: numHeads (" + std::to_string(shape.numHeads) +
                                ") must be a multiple of numKvHeads (" +
                                std::to_string(shape.numKvHeads) + ")");
  if (shape.headDim > kMaxAttentionHeadDim)
    throw std::invalid_argument("attention: headDim exceeds kMaxAttentionHeadDim");
}

void checkOperand(const std::vector<int32_t> &codes, size_t expected, const char *what) {
  if (codes.size() != expected)
    throw std::invalid_argument(std::string("attention: ") + what + " has " +
                                std::to_string(codes.size()) + " codes, expected " +
                                std::to_string(expected));
  for (size_t i = 0; i < codes.size(); ++i)
    if (!fitsSigned(codes[i], 8))
      throw std::invalid_argument(std::string("attention: ") + what + " code " +
                                  std::to_string(codes[i]) + " at index " + std::to_string(i) +
                                  " does not fit 8 bits");
}

void checkInputs(const AttentionInputs &in, const AttentionShape &shape) {
  checkShape(shape);
  if (in.cacheLength + 1 > kMaxSoftmaxLength)
    throw std::invalid_argument("attention: cacheLength + 1 exceeds kMaxSoftmaxLength");
  checkOperand(in.q, shape.qSize(), "q");
  checkOperand(in.kCache, in.cacheLength * shape.kvSize(), "kCache");
  checkOperand(in.vCache, in.cacheLength * shape.kvSize(), "vCache");
  checkOperand(in.kNew, shape.kvSize(), "kNew");
  checkOperand(in.vNew, shape.kvSize(), "vNew");
}

/// Code of position p (cache first, the new token at p == cacheLength), kv head g, dim d.
int32_t kvCode(const std::vector<int32_t> &cache, const std::vector<int32_t> &fresh,
               size_t cacheLength, const AttentionShape &shape, size_t p, size_t g, size_t d) {
  const size_t within = g * shape.headDim + d;
  return p < cacheLength ? cache[p * shape.kvSize() + within] : fresh[within];
}

} // namespace

AttentionScales attentionScales(double qScale, double kScale, double attnScale, double vScale,
                                double outputScale, unsigned outputBits) {
  AttentionScales scales;
  scales.scoreToLog2 = softmaxScales(qScale * kScale * attnScale).logitToLog2;
  scales.output = fixedScaleFromReal(vScale / (outputScale * std::ldexp(1.0, 15)));
  scales.outputBits = outputBits;
  return scales;
}

std::vector<int32_t> attentionScores(const AttentionInputs &in, const AttentionShape &shape) {
  checkInputs(in, shape);
  const size_t n = in.cacheLength + 1;
  const size_t group = shape.numHeads / shape.numKvHeads;
  std::vector<int32_t> scores(shape.numHeads * n);
  for (size_t h = 0; h < shape.numHeads; ++h)
    for (size_t p = 0; p < n; ++p) {
      int64_t sum = 0; // |sum| <= headDim * 2^14 < 2^31
      for (size_t d = 0; d < shape.headDim; ++d)
        sum += int64_t(in.q[h * shape.headDim + d]) *
               kvCode(in.kCache, in.kNew, in.cacheLength, shape, p, h / group, d);
      scores[h * n + p] = static_cast<int32_t>(sum);
    }
  return scores;
}

uint32_t attentionWeightOf(int32_t maximum, int32_t score, const SoftmaxScales &scale) {
  constexpr unsigned kDrop = kExpSumFracBits - kProbabilityFracBits; // Q1.32 -> Q1.15
  const uint64_t e = softmaxExponent(maximum, score, scale);         // <= 2^32
  return static_cast<uint32_t>((e + (uint64_t(1) << (kDrop - 1))) >> kDrop);
}

namespace {

uint32_t weightOf(int32_t maximum, int32_t score, const SoftmaxScales &scale) {
  return attentionWeightOf(maximum, score, scale);
}

/// E[h][p] of attentionWeights on checked inputs.
std::vector<uint32_t> weightsOf(const AttentionInputs &in, const AttentionShape &shape,
                                const AttentionScales &scales) {
  const std::vector<int32_t> scores = attentionScores(in, shape);
  const size_t n = in.cacheLength + 1;
  const SoftmaxScales softmaxScale{scales.scoreToLog2};
  std::vector<uint32_t> weights(scores.size());
  for (size_t h = 0; h < shape.numHeads; ++h) {
    const auto first = scores.begin() + h * n;
    const int32_t maximum = *std::max_element(first, first + n);
    for (size_t p = 0; p < n; ++p)
      weights[h * n + p] = weightOf(maximum, first[p], softmaxScale);
  }
  return weights;
}

std::vector<AttentionNormalizer> normalizersOf(const std::vector<uint32_t> &weights,
                                               const AttentionShape &shape, size_t n) {
  constexpr unsigned kToSumScale = kExpSumFracBits - kProbabilityFracBits;
  std::vector<AttentionNormalizer> normalizers(shape.numHeads);
  for (size_t h = 0; h < shape.numHeads; ++h) {
    uint64_t sum = 0; // <= n * 2^15
    for (size_t p = 0; p < n; ++p)
      sum += weights[h * n + p];
    normalizers[h].sum = sum;
    // S * 2^17 >= 2^32 (the maximum weighs 2^15): the softmax reciprocal's domain, L >= 32.
    normalizers[h].inverse = reciprocalRefined(sum << kToSumScale);
  }
  return normalizers;
}

std::vector<int64_t> accumulatorsOf(const AttentionInputs &in, const AttentionShape &shape,
                                    const std::vector<uint32_t> &weights) {
  const size_t n = in.cacheLength + 1;
  const size_t group = shape.numHeads / shape.numKvHeads;
  std::vector<int64_t> accumulators(shape.qSize(), 0);
  for (size_t h = 0; h < shape.numHeads; ++h)
    for (size_t d = 0; d < shape.headDim; ++d) {
      int64_t sum = 0; // |sum| <= n * 2^15 * 2^7
      for (size_t p = 0; p < n; ++p)
        sum += int64_t(weights[h * n + p]) *
               kvCode(in.vCache, in.vNew, in.cacheLength, shape, p, h / group, d);
      accumulators[h * shape.headDim + d] = sum;
    }
  return accumulators;
}

} // namespace

std::vector<uint32_t> attentionWeights(const AttentionInputs &in, const AttentionShape &shape,
                                       const AttentionScales &scales) {
  return weightsOf(in, shape, scales);
}

std::vector<AttentionNormalizer> attentionNormalizers(const AttentionInputs &in,
                                                      const AttentionShape &shape,
                                                      const AttentionScales &scales) {
  return normalizersOf(weightsOf(in, shape, scales), shape, in.cacheLength + 1);
}

std::vector<int64_t> attentionAccumulators(const AttentionInputs &in, const AttentionShape &shape,
                                           const AttentionScales &scales) {
  return accumulatorsOf(in, shape, weightsOf(in, shape, scales));
}

std::vector<int32_t> attentionOutputs(const std::vector<int64_t> &accumulators,
                                      const std::vector<uint64_t> &sums,
                                      const AttentionShape &shape, const AttentionScales &scales) {
  constexpr unsigned kToSumScale = kExpSumFracBits - kProbabilityFracBits;
  // S * 2^17 >= 2^32 (the maximum weighs 2^15): the softmax reciprocal's domain, L >= 32.
  std::vector<NormalizedMantissa> inverses;
  for (uint64_t sum : sums)
    inverses.push_back(reciprocalRefined(sum << kToSumScale));
  std::vector<int32_t> out(accumulators.size());
  for (size_t i = 0; i < accumulators.size(); ++i) {
    const NormalizedMantissa &inverse = inverses[i / shape.headDim];
    // a / S in Q.15: a * R * 2^-(30 + L) * 2^17 * 2^15 = a * R / 2^(L - 2).
    const unsigned shift =
        kRefinedMantissaFracBits + inverse.exponent - kToSumScale - kProbabilityFracBits;
    const Int128 scaled =
        roundShiftRight128(Int128(accumulators[i]) * Int128(inverse.mantissa), shift);
    const int64_t mean = saturateSigned(static_cast<int64_t>(saturateSigned128(scaled)), 32);
    out[i] = static_cast<int32_t>(requantizeValue(mean, scales.output, scales.outputBits));
  }
  return out;
}

int64_t attentionRescaled(int64_t value, uint64_t factor) {
  return static_cast<int64_t>(roundShiftRight128(Int128(value) * Int128(factor), kExpSumFracBits));
}

namespace {

std::vector<int32_t> outputsOf(const std::vector<int64_t> &accumulators,
                               const std::vector<uint64_t> &sums, const AttentionShape &shape,
                               const AttentionScales &scales) {
  return attentionOutputs(accumulators, sums, shape, scales);
}

int64_t rescaled(int64_t value, uint64_t factor) {
  return attentionRescaled(value, factor);
}

} // namespace

std::vector<int32_t> attention(const AttentionInputs &in, const AttentionShape &shape,
                               const AttentionScales &scales) {
  const std::vector<uint32_t> weights = weightsOf(in, shape, scales);
  const std::vector<AttentionNormalizer> normalizers =
      normalizersOf(weights, shape, in.cacheLength + 1);
  std::vector<uint64_t> sums;
  for (const AttentionNormalizer &normalizer : normalizers)
    sums.push_back(normalizer.sum);
  return outputsOf(accumulatorsOf(in, shape, weights), sums, shape, scales);
}

std::vector<int32_t> attentionTiled(const AttentionInputs &in, const AttentionShape &shape,
                                    const AttentionScales &scales, size_t tilePositions) {
  if (tilePositions == 0)
    throw std::invalid_argument("attentionTiled: tilePositions must be >= 1");
  const std::vector<int32_t> scores = attentionScores(in, shape);
  const size_t n = in.cacheLength + 1;
  const size_t group = shape.numHeads / shape.numKvHeads;
  const SoftmaxScales softmaxScale{scales.scoreToLog2};
  std::vector<int64_t> accumulators(shape.qSize(), 0);
  std::vector<uint64_t> sums(shape.numHeads, 0);
  std::vector<int64_t> partial(shape.headDim);
  for (size_t h = 0; h < shape.numHeads; ++h) {
    const int32_t *headScores = scores.data() + h * n;
    int64_t *running = accumulators.data() + h * shape.headDim;
    int32_t maximum = headScores[0];
    for (size_t first = 0; first < n; first += tilePositions) {
      const size_t last = std::min(n, first + tilePositions);
      const int32_t previous = maximum;
      maximum = std::max(maximum, *std::max_element(headScores + first, headScores + last));
      std::fill(partial.begin(), partial.end(), 0);
      uint64_t partialSum = 0;
      for (size_t p = first; p < last; ++p) {
        const int64_t weight = weightOf(maximum, headScores[p], softmaxScale);
        partialSum += uint64_t(weight);
        for (size_t d = 0; d < shape.headDim; ++d)
          partial[d] += weight * kvCode(in.vCache, in.vNew, in.cacheLength, shape, p, h / group, d);
      }
      // The first tile's reference is its own maximum: nothing to rescale yet.
      const uint64_t factor = softmaxExponent(maximum, previous, softmaxScale);
      for (size_t d = 0; d < shape.headDim; ++d)
        running[d] = (first == 0 ? 0 : rescaled(running[d], factor)) + partial[d];
      sums[h] = (first == 0 ? 0 : uint64_t(rescaled(int64_t(sums[h]), factor))) + partialSum;
    }
  }
  return outputsOf(accumulators, sums, shape, scales);
}

std::vector<float> attentionFloat(const std::vector<float> &q, const std::vector<float> &kCache,
                                  const std::vector<float> &vCache, const std::vector<float> &kNew,
                                  const std::vector<float> &vNew, size_t cacheLength,
                                  const AttentionShape &shape, float attnScale) {
  checkShape(shape);
  const size_t n = cacheLength + 1, kv = shape.kvSize(), dim = shape.headDim;
  const size_t group = shape.numHeads / shape.numKvHeads;
  if (q.size() != shape.qSize() || kCache.size() != cacheLength * kv ||
      vCache.size() != cacheLength * kv || kNew.size() != kv || vNew.size() != kv)
    throw std::invalid_argument("attentionFloat: operand sizes do not match the shape");
  auto at = [&](const std::vector<float> &cache, const std::vector<float> &fresh, size_t p,
                size_t g, size_t d) {
    return p < cacheLength ? cache[p * kv + g * dim + d] : fresh[g * dim + d];
  };
  std::vector<float> out(shape.qSize(), 0.0f);
  for (size_t h = 0; h < shape.numHeads; ++h) {
    const size_t g = h / group;
    std::vector<float> logits(n);
    for (size_t p = 0; p < n; ++p) {
      float dot = 0.0f;
      for (size_t d = 0; d < dim; ++d)
        dot += q[h * dim + d] * at(kCache, kNew, p, g, d);
      logits[p] = dot * attnScale;
    }
    const std::vector<float> weights = softmaxFloat(logits);
    for (size_t d = 0; d < dim; ++d) {
      float sum = 0.0f;
      for (size_t p = 0; p < n; ++p)
        sum += weights[p] * at(vCache, vNew, p, g, d);
      out[h * dim + d] = sum;
    }
  }
  return out;
}

} // namespace st::numerics
