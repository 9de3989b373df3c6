// The golden decode attention (compiler/numerics/attention_golden.h) against its fp32
// reference on random heads (MHA, GQA, MQA; context lengths 1 .. 512), with the bound of
// docs/numerics.md §7 asserted per output, plus the edge cases: no cache (the new token alone),
// all-equal scores (a plain average), saturating outputs and the input checks.
#include <gtest/gtest.h>

#include "attention_golden.h"
#include "golden_ops.h"

#include <cmath>
#include <cstdio>
#include <random>

using namespace st::numerics;

namespace {

/// Softmax bound (docs/numerics.md §6): |p - 2^15 softmax| <= 0.6 LSB of Q1.15 per element.
constexpr double kSoftmaxBoundLsb = 0.6;

struct Quantized {
  std::vector<int32_t> codes;
  std::vector<float> real; // the dequantized codes
};

Quantized quantizeGaussian(size_t n, double sigma, double scale, std::mt19937_64 &rng) {
  std::normal_distribution<double> dist(0.0, sigma);
  Quantized v;
  for (size_t i = 0; i < n; ++i) {
    const int32_t code = int32_t(saturateSigned(roundHalfAwayFromZero(dist(rng) / scale), 8));
    v.codes.push_back(code);
    v.real.push_back(float(code * scale));
  }
  return v;
}

struct RandomCase {
  AttentionShape shape;
  AttentionInputs inputs;
  std::vector<float> qReal, kCacheReal, vCacheReal, kNewReal, vNewReal;
};

RandomCase randomCase(const AttentionShape &shape, size_t cacheLength, double qkScale,
                      double vScale, std::mt19937_64 &rng) {
  RandomCase c;
  c.shape = shape;
  c.inputs.cacheLength = cacheLength;
  Quantized q = quantizeGaussian(shape.qSize(), 1.0, qkScale, rng);
  Quantized kc = quantizeGaussian(cacheLength * shape.kvSize(), 1.0, qkScale, rng);
  Quantized vc = quantizeGaussian(cacheLength * shape.kvSize(), 1.0, vScale, rng);
  Quantized kn = quantizeGaussian(shape.kvSize(), 1.0, qkScale, rng);
  Quantized vn = quantizeGaussian(shape.kvSize(), 1.0, vScale, rng);
  c.inputs.q = q.codes, c.qReal = q.real;
  c.inputs.kCache = kc.codes, c.kCacheReal = kc.real;
  c.inputs.vCache = vc.codes, c.vCacheReal = vc.real;
  c.inputs.kNew = kn.codes, c.kNewReal = kn.real;
  c.inputs.vNew = vn.codes, c.vNewReal = vn.real;
  return c;
}

/// Either form of the golden attention: two passes (tilePositions 0) or one pass in tiles.
std::vector<int32_t> goldenAttention(const AttentionInputs &inputs, const AttentionShape &shape,
                                     const AttentionScales &scales, size_t tilePositions) {
  return tilePositions == 0 ? attention(inputs, shape, scales)
                            : attentionTiled(inputs, shape, scales, tilePositions);
}

/// Random heads (MHA, GQA, MQA; cache lengths 0 .. 511) against the fp32 reference with the
/// per-output bound of docs/numerics.md §7; `risingScores` makes every key grow along q's
/// direction with the position, so that each head's maximum moves on in every tile.
void expectMatchesFloat(size_t tilePositions, bool risingScores, const char *label) {
  std::mt19937_64 rng(7);
  const AttentionShape shapes[] = {{4, 4, 64}, {8, 2, 128}, {8, 1, 32}, {2, 1, 256}};
  double maxError = 0, sumError = 0, maxSlack = 0;
  size_t count = 0, saturated = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const AttentionShape &shape = shapes[trial % 4];
    const size_t cacheLength = trial < 8 ? size_t(trial) : size_t(rng() % 512);
    const double qkScale = 4.0 / 127, vScale = 4.0 / 127;
    // Output scales from generous to saturating (|o| <= 4 in real units).
    const double outputScale = (trial % 5 == 4) ? 1.0 / 127 : 4.0 / 127 / (1 + trial % 3);
    const double attnScale = 1.0 / std::sqrt(double(shape.headDim));
    RandomCase c = randomCase(shape, cacheLength, qkScale, vScale, rng);
    if (risingScores) {
      // k[p] = the sign of q's first kv head times a ramp: q.k grows with p (the new token last).
      const size_t n = cacheLength + 1;
      for (size_t p = 0; p < n; ++p)
        for (size_t i = 0; i < shape.kvSize(); ++i) {
          const int32_t sign = c.inputs.q[i % shape.qSize()] < 0 ? -1 : 1;
          const int32_t code = int32_t(sign * int64_t(127 * (p + 1) / n));
          (p < cacheLength ? c.inputs.kCache[p * shape.kvSize() + i] : c.inputs.kNew[i]) = code;
          (p < cacheLength ? c.kCacheReal[p * shape.kvSize() + i] : c.kNewReal[i]) =
              float(code * qkScale);
        }
    }
    const AttentionScales scales =
        attentionScales(qkScale, qkScale, attnScale, vScale, outputScale);
    const std::vector<int32_t> o = goldenAttention(c.inputs, shape, scales, tilePositions);
    const std::vector<float> reference =
        attentionFloat(c.qReal, c.kCacheReal, c.vCacheReal, c.kNewReal, c.vNewReal, cacheLength,
                       shape, float(attnScale));
    const size_t group = shape.numHeads / shape.numKvHeads, n = cacheLength + 1;
    for (size_t h = 0; h < shape.numHeads; ++h)
      for (size_t d = 0; d < shape.headDim; ++d) {
        const size_t i = h * shape.headDim + d;
        const double ideal = reference[i] / outputScale;
        if (ideal > 127.5) {
          EXPECT_EQ(o[i], 127);
          ++saturated;
          continue;
        }
        if (ideal < -128.5) {
          EXPECT_EQ(o[i], -128);
          ++saturated;
          continue;
        }
        // Per-output bound: the final rounding, plus each probability's softmax error times
        // its |v|, in output LSBs, plus fp32 reference noise.
        double sumAbsV = 0;
        for (size_t p = 0; p < n; ++p) {
          const size_t at = (h / group) * shape.headDim + d;
          sumAbsV += std::fabs(p < cacheLength ? c.inputs.vCache[p * shape.kvSize() + at]
                                               : c.inputs.vNew[at]);
        }
        const double bound = 0.5 + kSoftmaxBoundLsb * sumAbsV * scales.output.value() + 1e-3;
        const double error = std::fabs(o[i] - ideal);
        EXPECT_LE(error, bound) << label << " trial " << trial << " head " << h << " dim " << d;
        maxError = std::max(maxError, error);
        maxSlack = std::max(maxSlack, error - 0.5);
        sumError += error;
        ++count;
      }
  }
  std::printf("[numerics] attention (%s): max %.4f LSB, mean %.4f LSB over %zu outputs (%zu "
              "saturated)\n",
              label, maxError, sumError / count, count, saturated);
  EXPECT_GT(saturated, 0u);
}

} // namespace

TEST(GoldenAttention, MatchesFloatOnRandomHeads) {
  expectMatchesFloat(0, false, "two passes");
}

// One pass in tiles keeps the two-pass form's error: 4-position tiles rescale up to 128 times a
// head, 64-position ones as the hardware does.
TEST(GoldenAttention, OnePassInTilesMatchesFloatOnRandomHeads) {
  expectMatchesFloat(4, false, "one pass, 4-position tiles");
  expectMatchesFloat(64, false, "one pass, 64-position tiles");
}

// Scores rising with the position: each tile moves every head's maximum, so every partial is
// added to rescaled running accumulators (a missing or wrong rescale is far outside the bound).
TEST(GoldenAttention, OnePassRescalesWhenTheMaximumGrows) {
  expectMatchesFloat(0, true, "two passes, rising scores");
  expectMatchesFloat(4, true, "one pass, 4-position tiles, rising scores");
  expectMatchesFloat(64, true, "one pass, 64-position tiles, rising scores");
}

// A single tile is the two-pass form bit for bit; more tiles differ from it in a few codes only.
TEST(GoldenAttention, OnePassWithOneTileIsTheTwoPassForm) {
  std::mt19937_64 rng(11);
  const AttentionShape shape{8, 2, 64};
  size_t differing = 0, total = 0;
  for (size_t cacheLength : {0, 1, 5, 63, 200}) {
    const RandomCase c = randomCase(shape, cacheLength, 8.0 / 127, 4.0 / 127, rng);
    const AttentionScales scales =
        attentionScales(8.0 / 127, 8.0 / 127, 0.125, 4.0 / 127, 2.0 / 127);
    const std::vector<int32_t> twoPass = attention(c.inputs, shape, scales);
    EXPECT_EQ(attentionTiled(c.inputs, shape, scales, cacheLength + 1), twoPass);
    EXPECT_EQ(attentionTiled(c.inputs, shape, scales, 4096), twoPass);
    const std::vector<int32_t> tiled = attentionTiled(c.inputs, shape, scales, 4);
    for (size_t i = 0; i < tiled.size(); ++i) {
      EXPECT_LE(std::abs(tiled[i] - twoPass[i]), 1) << "cache " << cacheLength << " output " << i;
      differing += tiled[i] != twoPass[i];
      ++total;
    }
  }
  EXPECT_LT(differing * 20, total); // under 5 % of the codes move, by one
  EXPECT_THROW(attentionTiled(AttentionInputs{}, shape, AttentionScales{}, 0),
               std::invalid_argument);
}

TEST(GoldenAttention, EmptyCacheReturnsTheNewValue) {
  // One position: E = 32768 = S exactly, so o = round(v * s_v / s_o).
  std::mt19937_64 rng(3);
  const AttentionShape shape{4, 2, 16};
  const RandomCase c = randomCase(shape, 0, 4.0 / 127, 4.0 / 127, rng);
  const AttentionScales scales = attentionScales(4.0 / 127, 4.0 / 127, 0.25, 4.0 / 127, 2.0 / 127);
  const std::vector<uint32_t> e = attentionWeights(c.inputs, shape, scales);
  for (uint32_t v : e)
    EXPECT_EQ(v, 32768u);
  const std::vector<int32_t> o = attention(c.inputs, shape, scales);
  for (size_t h = 0; h < shape.numHeads; ++h)
    for (size_t d = 0; d < shape.headDim; ++d)
      EXPECT_EQ(o[h * 16 + d], saturateSigned(2 * c.inputs.vNew[(h / 2) * 16 + d], 8));
}

TEST(GoldenAttention, AllEqualScoresAverageTheValues) {
  // q = 0 gives every score 0: each head averages v over the positions.
  std::mt19937_64 rng(5);
  const AttentionShape shape{2, 1, 16};
  for (size_t cacheLength : {size_t(1), size_t(3), size_t(63)}) {
    RandomCase c = randomCase(shape, cacheLength, 1.0 / 32, 1.0 / 32, rng);
    std::fill(c.inputs.q.begin(), c.inputs.q.end(), 0);
    const AttentionScales scales = attentionScales(1.0 / 32, 1.0 / 32, 0.25, 1.0 / 32, 1.0 / 32);
    const std::vector<int32_t> scores = attentionScores(c.inputs, shape);
    for (int32_t s : scores)
      EXPECT_EQ(s, 0);
    const std::vector<int32_t> o = attention(c.inputs, shape, scales);
    const size_t n = cacheLength + 1;
    for (size_t d = 0; d < 16; ++d) {
      double mean = c.inputs.vNew[d];
      for (size_t p = 0; p < cacheLength; ++p)
        mean += c.inputs.vCache[p * 16 + d];
      mean /= double(n);
      EXPECT_NEAR(o[d], mean, 0.5 + 0.6 * 128 * n / 32768.0) << "n " << n << " dim " << d;
      EXPECT_EQ(o[16 + d], o[d]); // both heads share the kv head and q
    }
  }
}

TEST(GoldenAttention, ExtremeCodesSaturateAndStayExact) {
  // Largest scores (q = k = -128 everywhere: every score 2^14 * d) and |v| = 128 with a tiny
  // output scale: every output saturates, with the right sign.
  const AttentionShape shape{2, 2, 32};
  AttentionInputs in;
  in.cacheLength = 5;
  in.q.assign(shape.qSize(), -128);
  in.kCache.assign(5 * shape.kvSize(), -128);
  in.kNew.assign(shape.kvSize(), -128);
  in.vCache.assign(5 * shape.kvSize(), -128);
  in.vNew.assign(shape.kvSize(), 127);
  const std::vector<int32_t> scores = attentionScores(in, shape);
  for (int32_t s : scores)
    EXPECT_EQ(s, 32 * 16384);
  const AttentionScales scales = attentionScales(1.0, 1.0, 1.0, 1.0, 1.0 / 64);
  const std::vector<int64_t> a = attentionAccumulators(in, shape, scales);
  // Every score is the maximum, so every weight is 32768 (not normalized): a = 32768 * (5 *
  // -128 + 127), and the sum 6 * 32768 divides it at the output.
  for (int64_t v : a)
    EXPECT_EQ(v, 32768 * (5 * -128 + 127));
  for (const AttentionNormalizer &norm : attentionNormalizers(in, shape, scales))
    EXPECT_EQ(norm.sum, 6u * 32768u);
  for (int32_t v : attention(in, shape, scales))
    EXPECT_EQ(v, -128);
}

TEST(GoldenAttention, RejectsBadShapesAndOperands) {
  const AttentionShape shape{4, 2, 8};
  AttentionInputs in;
  in.cacheLength = 1;
  in.q.assign(32, 0);
  in.kCache.assign(16, 0);
  in.vCache.assign(16, 0);
  in.kNew.assign(16, 0);
  in.vNew.assign(16, 0);
  const AttentionScales scales = attentionScales(1, 1, 1, 1, 1);
  EXPECT_NO_THROW(attention(in, shape, scales));
  EXPECT_THROW(attention(in, AttentionShape{4, 3, 8}, scales), std::invalid_argument);
  in.kCache.push_back(0);
  EXPECT_THROW(attention(in, shape, scales), std::invalid_argument);
  in.kCache.pop_back();
  in.q[3] = 128;
  EXPECT_THROW(attention(in, shape, scales), std::invalid_argument);
}
