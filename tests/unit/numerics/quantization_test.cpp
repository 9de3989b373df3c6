// Unit tests of quantization: int4 packing order, symmetric quantization with saturation,
// group scales in hardware form and their reconstruction error, norm parameter folding.
#include <gtest/gtest.h>

#include "quantization.h"

#include <cmath>
#include <random>

using namespace st::numerics;

TEST(Int4Packing, LowNibbleFirstAndRoundTrip) {
  const std::vector<uint8_t> packed = packInt4({1, -2, 7, -8, 3});
  ASSERT_EQ(packed.size(), 3u);
  EXPECT_EQ(packed[0], 0xe1); // element 0 = 1 in the low nibble, element 1 = -2 (0xe) high
  EXPECT_EQ(packed[1], 0x87);
  EXPECT_EQ(packed[2], 0x03);
  std::vector<int32_t> all;
  for (int v = -8; v <= 7; ++v)
    for (int w = -8; w <= 7; ++w) {
      all.push_back(v);
      all.push_back(w);
    }
  EXPECT_EQ(unpackInt4(packInt4(all), all.size()), all);
  EXPECT_THROW(packInt4({8}), std::invalid_argument);
}

TEST(QuantizeValue, RoundsHalfAwayAndSaturates) {
  EXPECT_EQ(quantizeValue(2.5, 1.0, 8), 3);
  EXPECT_EQ(quantizeValue(-2.5, 1.0, 8), -3);
  EXPECT_EQ(quantizeValue(1e9, 1.0, 8), 127);
  EXPECT_EQ(quantizeValue(-1e9, 1.0, 8), -128);
  EXPECT_EQ(quantizeValue(-1e9, 1.0, 4), -8);
  EXPECT_DOUBLE_EQ(activationScaleFromClip(12.7, 8), 0.1);
  EXPECT_DOUBLE_EQ(activationScaleFromClip(0, 8), 1.0);
}

TEST(Calibration, AbsPercentileNearestRank) {
  std::vector<float> v;
  for (int i = 1; i <= 1000; ++i)
    v.push_back(i % 2 ? float(i) : -float(i));
  EXPECT_EQ(absPercentile(v, 100), 1000.0);
  EXPECT_EQ(absPercentile(v, 99.9), 999.0);
  EXPECT_EQ(absPercentile(v, 50), 500.0);
}

namespace {

std::vector<float> randomWeights(size_t count, std::mt19937_64 &rng) {
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> w(count);
  for (float &v : w)
    v = normal(rng);
  return w;
}

} // namespace

TEST(QuantizeLinear, GroupScalesAreNormalizedMantissasAndCodesFit) {
  std::mt19937_64 rng(11);
  const size_t rows = 16, cols = 256;
  const std::vector<float> w = randomWeights(rows * cols, rng);
  for (size_t group : {size_t(32), size_t(64), size_t(128), size_t(0)})
    for (unsigned bits : {4u, 8u}) {
      const QuantizedLinear q = quantizeLinear(w, rows, cols, {bits, group}, 0.05, 8, 0.1, 8);
      const size_t groups = group == 0 ? 1 : cols / group;
      ASSERT_EQ(q.groupsPerRow(), groups);
      ASSERT_EQ(q.packedWeights.size(), bits == 4 ? rows * cols / 2 : rows * cols);
      const double qmax = bits == 4 ? 7 : 127;
      double worstRelative = 0;
      for (size_t r = 0; r < rows; ++r) {
        uint16_t largest = 0;
        for (size_t g = 0; g < groups; ++g)
          largest = std::max(largest, q.groupScales[r * groups + g]);
        if (groups > 1)
          EXPECT_GE(largest, 1u << 15) << "row " << r << " not normalized";
        else
          EXPECT_EQ(largest, 1u);
        for (size_t k = 0; k < cols; ++k) {
          EXPECT_LE(std::abs(q.weight(r, k)), qmax);
          const double step = q.groupScales[r * groups + k / q.groupSize] * q.rowWeightUnit[r];
          // Reconstruction error at most half a step of the weight's own group.
          worstRelative = std::max(worstRelative,
                                   std::fabs(q.dequantizedWeight(r, k) - w[r * cols + k]) / step);
        }
      }
      EXPECT_LE(worstRelative, 0.5 + 1e-6) << "group " << group << " bits " << bits;
    }
  EXPECT_THROW(quantizeLinear(w, rows, cols, {4, 96}, 1, 8, 1, 8), std::invalid_argument);
}

TEST(QuantizeNorm, GemmaFoldsOnePlusWeight) {
  const std::vector<float> w = {-0.5f, 0.0f, 1.0f, 2.0f};
  const QuantizedNorm plain = quantizeNorm(NormKind::RmsNorm, w, {}, 1e-6, 0.01, 0.05, 8);
  const QuantizedNorm gemma = quantizeNorm(NormKind::RmsNorm, w, {}, 1e-6, 0.01, 0.05, 8, true);
  EXPECT_EQ(plain.gamma[3], 32767); // the largest |gamma| takes the full int16 range
  EXPECT_EQ(gemma.gamma[3], 32767); // 1 + 2 = 3 is the largest
  EXPECT_EQ(gemma.gamma[1], 10922); // 1 / 3 of the range
  EXPECT_EQ(gemma.gamma[0], 5461);  // 0.5 / 3
  EXPECT_TRUE(plain.beta.empty());
}
