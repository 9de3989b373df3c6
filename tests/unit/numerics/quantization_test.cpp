// Unit tests of quantization: int4 packing order, symmetric quantization with saturation,
// group scales in hardware form and their reconstruction error, norm parameter folding; the
// weight loops (codes written in place, rows read in blocks, any thread count) against the
// one-value quantizer.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "counting_row_reader.h"
#include "quantization.h"
#include "support/parallel.h"

using namespace st::numerics;
using st::setParallelThreads;

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

TEST(QuantizeValue, EqualsLlroundOfTheClampedRatio) {
  // quantizeValue rounds without libm; it must give std::llround's result everywhere: exact
  // halves, values just beside them, huge and tiny ratios, NaN and infinities.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> ratio(-300.0, 300.0);
  auto reference = [](double value, double scale, unsigned bits) {
    const double limit = static_cast<double>(int64_t(1) << bits);
    const int64_t rounded = std::llround(std::max(-limit, std::min(limit, value / scale)));
    const int64_t hi = (int64_t(1) << (bits - 1)) - 1;
    return static_cast<int32_t>(std::max(-hi - 1, std::min(hi, rounded)));
  };
  std::vector<double> values = {
      0.0,       -0.0,  0.5, -0.5, 1.5,   -1.5,   0.49999999999999994, -0.49999999999999994,
      7.5,       -7.5,  8.5, -8.5, 1e300, -1e300, std::nan(""),        INFINITY,
      -INFINITY, 5e-324};
  for (int i = 0; i < 200000; ++i) {
    const double v = ratio(rng);
    values.push_back(v);
    values.push_back(std::round(v) + 0.5);                      // an exact half
    values.push_back(std::nextafter(std::round(v) + 0.5, 0.0)); // just inside it
  }
  for (unsigned bits : {4u, 8u, 16u, 24u})
    for (double scale : {1.0, 0.37, 3e-3})
      for (double v : values)
        ASSERT_EQ(quantizeValue(v * scale, scale, bits), reference(v * scale, scale, bits))
            << v << " * " << scale << " at " << bits << " bits";
}

TEST(QuantizeValues, EqualsQuantizeValue) {
  std::mt19937 rng(6);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> v(4099);
  for (float &x : v)
    x = normal(rng);
  v[5] = std::nanf("");
  v[6] = INFINITY;
  v[7] = 1.5f; // an exact half at scale 1
  for (unsigned bits : {4u, 8u, 16u})
    for (double scale : {1.0, 0.013, 0.25}) {
      std::vector<int32_t> codes(v.size());
      quantizeValues(v.data(), v.size(), scale, bits, codes.data());
      for (size_t i = 0; i < v.size(); ++i)
        ASSERT_EQ(codes[i], quantizeValue(v[i], scale, bits)) << v[i] << " / " << scale;
    }
}

TEST(QuantizeValues, EqualsQuantizeValueBesideEveryHalf) {
  // The vector loop multiplies by 1/scale and redoes a value with the division when its quotient
  // is near a half-integer: values on and one float beside every half-integer quotient, at
  // scales that are and are not powers of two, and quotients far beyond the codes.
  for (double scale : {1.0, 0.25, 0.013, 1.0 / 3.0, 3e-3, 7.1e-5})
    for (unsigned bits : {4u, 8u, 16u}) {
      std::vector<float> v;
      for (int k = -300; k <= 300; ++k) {
        const float onHalf = static_cast<float>((k + 0.5) * scale);
        v.insert(v.end(), {onHalf, std::nextafter(onHalf, 0.0f), std::nextafter(onHalf, 1e30f),
                           static_cast<float>(k * scale), static_cast<float>(k * 1e6 * scale)});
      }
      std::vector<int32_t> codes(v.size());
      quantizeValues(v.data(), v.size(), scale, bits, codes.data());
      for (size_t i = 0; i < v.size(); ++i)
        ASSERT_EQ(codes[i], quantizeValue(v[i], scale, bits))
            << v[i] << " / " << scale << " at " << bits << " bits";
    }
}

TEST(QuantizeLinear, RowsReadInBlocksAndAnyThreadCountGiveTheSameLayer) {
  // 1101 rows of 1023: several row chunks (about 2^18 weights each). The reader hands out
  // copies and counts the rows asked for: each row once, and the same layer on 1 or 4 threads.
  std::mt19937 rng(10);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const size_t rows = 1101, cols = 1024;
  std::vector<float> w(rows * cols);
  for (float &v : w)
    v = normal(rng);
  WeightFormat format;
  format.bits = 4;
  format.groupSize = 128;
  const QuantizedLinear reference = quantizeLinear(w, rows, cols, format, 0.01, 8, 0.02, 8);
  for (unsigned threads : {1u, 4u}) {
    setParallelThreads(threads);
    st::testutil::CountingRowReader counted(w, rows, cols);
    const QuantizedLinear l =
        quantizeLinear(counted.reader(), rows, cols, format, 0.01, 8, 0.02, 8);
    EXPECT_EQ(l.packedWeights, reference.packedWeights) << threads << " threads";
    EXPECT_EQ(l.groupScales, reference.groupScales) << threads << " threads";
    EXPECT_EQ(l.rowWeightUnit, reference.rowWeightUnit) << threads << " threads";
    for (size_t r = 0; r < rows; ++r)
      ASSERT_EQ(counted.timesAsked(r), 1) << "row " << r << ", " << threads << " threads";
  }
  setParallelThreads(0);
}

TEST(QuantizeLinear, CodesInPlaceAcrossParallelChunksAndOddRows) {
  // Large enough for several parallel row chunks; odd K puts rows' int4 codes across byte
  // boundaries. Every code must be the quantized weight under the layer's own scales.
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  for (unsigned bits : {4u, 8u})
    for (size_t cols : {size_t(1023), size_t(1024)}) {
      const size_t rows = 1101; // odd: 1101 x 1023 int4 codes end in half a byte
      std::vector<float> w(rows * cols);
      for (float &v : w)
        v = normal(rng);
      WeightFormat format;
      format.bits = bits;
      format.groupSize = cols % 128 == 0 && bits == 4 ? 128 : 0;
      std::vector<float> bias(rows, 0.25f);
      const QuantizedLinear l = quantizeLinear(w, rows, cols, format, 0.01, 8, 0.02, 8, bias);
      ASSERT_EQ(l.packedWeights.size(), bits == 4 ? (rows * cols + 1) / 2 : rows * cols);
      ASSERT_EQ(l.bias.size(), rows);
      for (size_t r = 0; r < rows; ++r)
        for (size_t k = 0; k < cols; ++k) {
          const double scale =
              l.groupScales[r * l.groupsPerRow() + k / l.groupSize] * l.rowWeightUnit[r];
          ASSERT_EQ(l.weight(r, k), quantizeValue(w[r * cols + k], scale, bits))
              << bits << " bits, K " << cols << ", row " << r << " col " << k;
        }
      if (bits == 4 && cols % 2 == 1)
        EXPECT_EQ(l.packedWeights.back() >> 4, 0); // an odd count leaves the last nibble zero
    }
}
