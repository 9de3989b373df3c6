// Golden ops against their fp32 references on random inputs (max/mean error printed, documented
// bounds of docs/numerics.md §6 asserted), plus the edge cases: saturation extremes, all-equal
// softmax input, zero-variance norms, argmax ties. The reference is fed the dequantized inputs,
// weights and scales, so the measured error is the datapath's own (rounding, tables), not the
// quantization of the operands; the quantization error is reported separately.
#include <gtest/gtest.h>

#include "float_reference.h"
#include "golden_ops.h"

#include <cmath>
#include <cstdio>
#include <random>

using namespace st::numerics;

namespace {

struct ErrorStats {
  double maxError = 0, sumError = 0;
  size_t count = 0;
  void add(double error) {
    maxError = std::max(maxError, std::fabs(error));
    sumError += std::fabs(error);
    ++count;
  }
  double mean() const { return count ? sumError / count : 0; }
  void print(const std::string &name) const {
    std::printf("[numerics] %-28s max %.4f LSB, mean %.4f LSB over %zu outputs\n", name.c_str(),
                maxError, mean(), count);
  }
};

/// Adds |code - reference/scale| for outputs the reference keeps inside the code range; where
/// the reference is beyond the range the code must be the saturation limit.
void compareCodes(const std::vector<int32_t> &codes, const std::vector<float> &reference,
                  double outputScale, unsigned bits, ErrorStats &stats) {
  ASSERT_EQ(codes.size(), reference.size());
  for (size_t i = 0; i < codes.size(); ++i) {
    const double ideal = reference[i] / outputScale;
    if (ideal > maxSigned(bits) + 0.5)
      EXPECT_EQ(codes[i], maxSigned(bits)) << "index " << i;
    else if (ideal < minSigned(bits) - 0.5)
      EXPECT_EQ(codes[i], minSigned(bits)) << "index " << i;
    else
      stats.add(codes[i] - ideal);
  }
}

std::vector<int32_t> randomCodes(size_t n, unsigned bits, std::mt19937_64 &rng) {
  std::uniform_int_distribution<int32_t> dist(int32_t(minSigned(bits)), int32_t(maxSigned(bits)));
  std::vector<int32_t> v(n);
  for (int32_t &c : v)
    c = dist(rng);
  return v;
}

std::vector<float> gaussian(size_t n, float sigma, std::mt19937_64 &rng, float mean = 0) {
  std::normal_distribution<float> dist(mean, sigma);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

double cosine(const std::vector<float> &a, const std::vector<float> &b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

// Documented bounds (docs/numerics.md §6), in output LSBs.
constexpr double kLinearBoundLsb = 0.501;
constexpr double kNormBoundLsb = 0.52;
constexpr double kSoftmaxBoundLsb = 0.6;
constexpr double kActivationBoundLsb = 0.52;
constexpr double kRopeBoundLsb = 0.52;
constexpr double kResidualBoundLsb = 0.51;

} // namespace

// ---- linear ---------------------------------------------------------------------------------

struct LinearCase {
  const char *name;
  unsigned weightBits, activationBits, outputBits;
  size_t groupSize;
  bool bias;
};

void PrintTo(const LinearCase &c, std::ostream *os) {
  *os << c.name;
}

class GoldenLinear : public ::testing::TestWithParam<LinearCase> {};

TEST_P(GoldenLinear, MatchesFloatOnDequantizedOperands) {
  const LinearCase c = GetParam();
  std::mt19937_64 rng(21);
  const size_t rows = 64, cols = 1024;
  const std::vector<float> weights = gaussian(rows * cols, 0.03f, rng);
  const std::vector<float> bias = c.bias ? gaussian(rows, 0.5f, rng) : std::vector<float>{};
  const double inputScale = 4.0 / maxSigned(c.activationBits);
  // Output scale so that a few outputs saturate: covers the clamp path too.
  const double outputScale = 2.2 / maxSigned(c.outputBits);
  const QuantizedLinear layer =
      quantizeLinear(weights, rows, cols, {c.weightBits, c.groupSize}, inputScale, c.activationBits,
                     outputScale, c.outputBits, bias);
  std::vector<float> dequantizedWeights(rows * cols), dequantizedBias;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < cols; ++k)
      dequantizedWeights[r * cols + k] = static_cast<float>(layer.dequantizedWeight(r, k));
    if (c.bias)
      dequantizedBias.push_back(
          static_cast<float>(layer.bias[r] * inputScale * layer.rowWeightUnit[r]));
  }
  ErrorStats stats;
  double fidelity = 1;
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<float> x = gaussian(cols, 1.0f, rng);
    const std::vector<int32_t> xCodes = quantizeVector(x, inputScale, c.activationBits);
    const std::vector<int32_t> y = linear(xCodes, layer);
    compareCodes(y,
                 linearFloat(dequantizeVector(xCodes, inputScale), dequantizedWeights, rows, cols,
                             dequantizedBias),
                 outputScale, c.outputBits, stats);
    // Quantization fidelity (weights and input only): the accumulators, before the output's
    // requantization and saturation, against fp32 on the unquantized operands.
    const std::vector<int64_t> acc = linearAccumulators(xCodes, layer);
    std::vector<float> accReal(rows);
    for (size_t r = 0; r < rows; ++r)
      accReal[r] = static_cast<float>(acc[r] * inputScale * layer.rowWeightUnit[r]);
    fidelity = std::min(fidelity, cosine(accReal, linearFloat(x, weights, rows, cols, bias)));
  }
  stats.print(std::string("linear ") + c.name);
  std::printf("[numerics] %-28s cosine vs unquantized fp32 >= %.5f\n", c.name, fidelity);
  // 0.5 LSB rounding + 2^-24 multiplier error + the fp32 reference's own accumulation error.
  EXPECT_LE(stats.maxError, kLinearBoundLsb + 1e-6 * std::ldexp(1.0, int(c.outputBits) - 1));
  EXPECT_GT(fidelity, c.weightBits == 4 ? 0.98 : 0.998);
}

INSTANTIATE_TEST_SUITE_P(Formats, GoldenLinear,
                         ::testing::Values(LinearCase{"W4A8_g32", 4, 8, 8, 32, false},
                                           LinearCase{"W4A8_g64_bias", 4, 8, 8, 64, true},
                                           LinearCase{"W4A8_g128", 4, 8, 8, 128, false},
                                           LinearCase{"W4A8_channel_bias", 4, 8, 8, 0, true},
                                           LinearCase{"W8A8_channel", 8, 8, 8, 0, false},
                                           LinearCase{"W8A8_g128_bias", 8, 8, 8, 128, true},
                                           LinearCase{"W8A16_g64_out16", 8, 16, 16, 64, true}),
                         [](const ::testing::TestParamInfo<LinearCase> &info) {
                           return std::string(info.param.name);
                         });

TEST(GoldenLinearEdges, SaturatesAtTheExtremesWithoutOverflow) {
  // K = kMaxReductionLength, every product at its extreme: the accumulator must hold it exactly.
  const size_t cols = kMaxReductionLength;
  for (unsigned activationBits : {8u, 16u}) {
    const QuantizedLinear layer = quantizeLinear(std::vector<float>(cols, -1.0f), 1, cols, {8, 32},
                                                 1.0, activationBits, 1.0, 8);
    const std::vector<int64_t> acc =
        linearAccumulators(std::vector<int32_t>(cols, int32_t(minSigned(activationBits))), layer);
    const int64_t expected =
        int64_t(-127) * minSigned(activationBits) * int64_t(cols) * layer.groupScales[0];
    EXPECT_EQ(acc[0], expected);
    EXPECT_EQ(linear(std::vector<int32_t>(cols, int32_t(minSigned(activationBits))), layer)[0],
              127);
    EXPECT_EQ(linear(std::vector<int32_t>(cols, int32_t(maxSigned(activationBits))), layer)[0],
              -128);
  }
  const QuantizedLinear int4 =
      quantizeLinear(std::vector<float>(64, 1.0f), 1, 64, {4, 0}, 1.0, 8, 1.0, 8);
  EXPECT_THROW(linear(std::vector<int32_t>(64, 128), int4), std::invalid_argument);
  EXPECT_THROW(linear(std::vector<int32_t>(63, 1), int4), std::invalid_argument);
}

// ---- norms ----------------------------------------------------------------------------------

TEST(GoldenNorm, LayerNormMatchesFloat) {
  std::mt19937_64 rng(31);
  const size_t n = 1024;
  const double inputScale = 0.01, outputScale = 4.0 / 127;
  const std::vector<float> gamma = gaussian(n, 0.2f, rng, 1.0f), beta = gaussian(n, 0.3f, rng);
  const QuantizedNorm norm =
      quantizeNorm(NormKind::LayerNorm, gamma, beta, 1e-5, inputScale, outputScale, 8);
  ErrorStats stats;
  for (int trial = 0; trial < 50; ++trial) {
    const float offset = static_cast<float>(trial - 25) * 4.0f; // large means too
    const std::vector<int32_t> x = quantizeVector(
        gaussian(n, 0.5f + 0.2f * static_cast<float>(trial % 7), rng, offset), inputScale, 16);
    compareCodes(normalize(x, norm),
                 layerNormFloat(dequantizeVector(x, inputScale), gamma, beta, 1e-5f), outputScale,
                 8, stats);
  }
  stats.print("layernorm");
  EXPECT_LE(stats.maxError, kNormBoundLsb);
}

TEST(GoldenNorm, RmsNormAndGemmaRmsNormMatchFloat) {
  std::mt19937_64 rng(32);
  for (bool gemma : {false, true}) {
    const size_t n = 2048;
    const double inputScale = 0.02, outputScale = 6.0 / 127;
    const std::vector<float> w = gaussian(n, 0.3f, rng, gemma ? 0.0f : 1.0f);
    const QuantizedNorm norm =
        quantizeNorm(NormKind::RmsNorm, w, {}, 1e-6, inputScale, outputScale, 8, gemma);
    ErrorStats stats;
    for (int trial = 0; trial < 50; ++trial) {
      const std::vector<float> x = dequantizeVector(
          quantizeVector(gaussian(n, 0.3f + 0.5f * static_cast<float>(trial % 5), rng), inputScale,
                         16),
          inputScale);
      const std::vector<float> reference =
          gemma ? gemmaRmsNormFloat(x, w, 1e-6f) : rmsNormFloat(x, w, 1e-6f);
      compareCodes(normalize(quantizeVector(x, inputScale, 16), norm), reference, outputScale, 8,
                   stats);
    }
    stats.print(gemma ? "rmsnorm (gemma 1+w)" : "rmsnorm");
    EXPECT_LE(stats.maxError, kNormBoundLsb);
  }
}

TEST(GoldenNorm, ZeroVarianceGivesBetaOrZero) {
  const size_t n = 256;
  std::mt19937_64 rng(33);
  const std::vector<float> gamma = gaussian(n, 0.2f, rng, 1.0f), beta = gaussian(n, 0.3f, rng);
  for (double epsilon : {0.0, 1e-5}) {
    const QuantizedNorm layer =
        quantizeNorm(NormKind::LayerNorm, gamma, beta, epsilon, 0.01, 4.0 / 127, 8);
    for (int32_t value : {0, 1234, -32768, 32767}) {
      const std::vector<int32_t> y = normalize(std::vector<int32_t>(n, value), layer);
      for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(y[i], roundShiftRight(layer.beta[i], kNormBetaFracBits)) << value;
    }
    const QuantizedNorm rms = quantizeNorm(NormKind::RmsNorm, gamma, {}, epsilon, 0.01, 0.05, 8);
    EXPECT_EQ(normalize(std::vector<int32_t>(n, 0), rms), std::vector<int32_t>(n, 0));
  }
}

TEST(GoldenNorm, ExtremeInputsSaturateNotOverflow) {
  const size_t n = kMaxReductionLength;
  const QuantizedNorm rms =
      quantizeNorm(NormKind::RmsNorm, std::vector<float>(n, 1.0f), {}, 1e-6, 0.01, 0.001, 8);
  std::vector<int32_t> x(n, 0);
  x[7] = -32768; // one spike: normalized value -sqrt(N) = -128 real -> saturates at -128 codes
  const std::vector<int32_t> y = normalize(x, rms);
  EXPECT_EQ(y[7], -128);
  EXPECT_EQ(y[0], 0);
  const QuantizedNorm layer = quantizeNorm(NormKind::LayerNorm, std::vector<float>(n, 1.0f),
                                           std::vector<float>(n, 0.0f), 1e-5, 0.01, 0.001, 8);
  std::vector<int32_t> alternating(n);
  for (size_t i = 0; i < n; ++i)
    alternating[i] = i % 2 ? 32767 : -32768;
  const std::vector<int32_t> z = normalize(alternating, layer);
  EXPECT_EQ(z[0], -128);
  EXPECT_EQ(z[1], 127);
}

// ---- softmax --------------------------------------------------------------------------------

TEST(GoldenSoftmax, MatchesFloatOnRandomLogits) {
  std::mt19937_64 rng(41);
  ErrorStats stats;
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 2048;
    const double logitScale = std::ldexp(1.0, -int(8 + rng() % 8)); // s_q*s_k/sqrt(d)
    const double spread = 1.0 + static_cast<double>(rng() % 16);    // real std of logits
    std::normal_distribution<double> dist(0.0, spread / logitScale);
    std::vector<int32_t> logits(n);
    std::vector<float> real(n);
    for (size_t i = 0; i < n; ++i) {
      logits[i] = static_cast<int32_t>(std::max(-2e9, std::min(2e9, std::round(dist(rng)))));
      real[i] = static_cast<float>(logits[i] * logitScale);
    }
    const std::vector<uint32_t> p = softmax(logits, softmaxScales(logitScale));
    const std::vector<float> reference = softmaxFloat(real);
    for (size_t i = 0; i < n; ++i)
      stats.add(p[i] - reference[i] * 32768.0);
  }
  stats.print("softmax (Q1.15)");
  EXPECT_LE(stats.maxError, kSoftmaxBoundLsb);
}

TEST(GoldenSoftmax, AllEqualInputIsUniformAtEveryLength) {
  for (size_t n :
       {size_t(1), size_t(2), size_t(3), size_t(1000), size_t(32768), kMaxSoftmaxLength}) {
    for (int32_t value : {0, INT32_MIN, INT32_MAX}) {
      const std::vector<uint32_t> p =
          softmax(std::vector<int32_t>(n, value), softmaxScales(1.0 / 64));
      for (uint32_t v : p)
        ASSERT_EQ(v, p[0]);
      EXPECT_NEAR(p[0], 32768.0 / n, 0.5 + 32768.0 / n * 2.3e-5) << "n = " << n;
    }
  }
}

TEST(GoldenSoftmax, ExtremeLogitsGiveOneHot) {
  std::vector<int32_t> logits(4096, INT32_MIN);
  logits[100] = INT32_MAX;
  const std::vector<uint32_t> p = softmax(logits, softmaxScales(1.0 / 16));
  EXPECT_EQ(p[100], 32768u);
  EXPECT_EQ(p[0], 0u);
  EXPECT_THROW(softmax({}, softmaxScales(1.0)), std::invalid_argument);
}

// ---- activations ----------------------------------------------------------------------------

TEST(GoldenActivation, GeluAndSiluMatchFloatOnEveryInt8Code) {
  std::vector<int32_t> all;
  for (int v = -128; v <= 127; ++v)
    all.push_back(v);
  struct Case {
    double inputScale, outputScale;
  };
  for (const Case &c : {Case{8.0 / 127, 8.0 / 127}, Case{1.0 / 127, 0.5 / 127},
                        Case{32.0 / 127, 24.0 / 127}, Case{0.02, 0.003}}) {
    const ActivationScales scales = activationScales(c.inputScale, c.outputScale, 8);
    const std::vector<float> x = dequantizeVector(all, c.inputScale);
    ErrorStats erf, tanh, silus;
    compareCodes(gelu(all, scales, GeluForm::Erf), geluFloat(x, GeluForm::Erf), c.outputScale, 8,
                 erf);
    compareCodes(gelu(all, scales, GeluForm::Tanh), geluFloat(x, GeluForm::Tanh), c.outputScale, 8,
                 tanh);
    compareCodes(silu(all, scales), siluFloat(x), c.outputScale, 8, silus);
    erf.print("gelu erf int8->int8");
    tanh.print("gelu tanh int8->int8");
    silus.print("silu int8->int8");
    // 0.5 LSB of rounding plus the fixed-point path's 6e-4 (real units) in output LSBs.
    const double bound = kActivationBoundLsb + 6e-4 / c.outputScale;
    EXPECT_LE(erf.maxError, bound);
    EXPECT_LE(tanh.maxError, bound);
    EXPECT_LE(silus.maxError, bound);
  }
}

TEST(GoldenActivation, GatedFormsMatchFloat) {
  std::mt19937_64 rng(51);
  const double gateScale = 6.0 / 127, upScale = 3.0 / 127, outputScale = 5.0 / 127;
  const GatedScales scales = gatedScales(gateScale, upScale, outputScale, 8);
  ErrorStats swi, geg;
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<int32_t> gate = randomCodes(4096, 8, rng), up = randomCodes(4096, 8, rng);
    const std::vector<float> g = dequantizeVector(gate, gateScale),
                             u = dequantizeVector(up, upScale);
    compareCodes(swiglu(gate, up, scales), swigluFloat(g, u), outputScale, 8, swi);
    compareCodes(geglu(gate, up, scales, GeluForm::Tanh), gegluFloat(g, u, GeluForm::Tanh),
                 outputScale, 8, geg);
  }
  swi.print("swiglu");
  geg.print("geglu (tanh)");
  // |up| <= 3 amplifies the activation path's 6e-4: 0.5 + 3 * 6e-4 / s_out + up rounding.
  const double bound = kActivationBoundLsb + (3.0 * 6e-4 + 6.0 * 2.5e-4) / outputScale;
  EXPECT_LE(swi.maxError, bound);
  EXPECT_LE(geg.maxError, bound);
}

// ---- RoPE -----------------------------------------------------------------------------------

TEST(GoldenRope, MatchesFloatAtPositionsUpToLongContext) {
  std::mt19937_64 rng(61);
  for (size_t headDim : {size_t(64), size_t(128), size_t(256)}) {
    const double base = headDim == 64 ? 10000.0 : 1000000.0;
    const RopeTable table = makeRopeTable(base, headDim);
    std::vector<double> frequencies;
    for (size_t j = 0; j < headDim / 2; ++j)
      frequencies.push_back(std::pow(base, -2.0 * double(j) / double(headDim)));
    const double inputScale = 0.05, outputScale = 0.05 * 1.2;
    const FixedScale multiplier = fixedScaleFromReal(inputScale / outputScale);
    ErrorStats stats;
    for (int trial = 0; trial < 400; ++trial) {
      const uint64_t position = trial < 200 ? uint64_t(trial) : rng() % (uint64_t(1) << 17);
      const std::vector<int32_t> x = randomCodes(headDim, 8, rng);
      compareCodes(rope(x, position, table, multiplier, 8),
                   ropeFloat(dequantizeVector(x, inputScale), position, frequencies), outputScale,
                   8, stats);
    }
    stats.print("rope d=" + std::to_string(headDim));
    EXPECT_LE(stats.maxError, kRopeBoundLsb);
  }
}

// ---- requantize, residual, argmax -----------------------------------------------------------

TEST(GoldenRequantize, RoundsAndSaturatesEveryValue) {
  const FixedScale scale = fixedScaleFromReal(0.0123);
  std::vector<int64_t> values;
  for (int64_t v = -20000; v <= 20000; v += 7)
    values.push_back(v);
  const std::vector<int32_t> y = requantize(values, scale, 8);
  for (size_t i = 0; i < values.size(); ++i) {
    const double ideal = values[i] * scale.value();
    EXPECT_EQ(y[i], std::max(-128.0, std::min(127.0, std::round(ideal)))) << values[i];
  }
}

TEST(GoldenResidualAdd, MatchesFloatAndSaturates) {
  std::mt19937_64 rng(71);
  const double scaleA = 0.013, scaleB = 0.041, scaleOut = 0.02;
  const ResidualAddScales scales = residualAddScales(scaleA, scaleB, scaleOut);
  ErrorStats stats;
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<int32_t> a = randomCodes(4096, 16, rng), b = randomCodes(4096, 8, rng);
    compareCodes(residualAdd(a, b, scales, 16),
                 residualAddFloat(dequantizeVector(a, scaleA), dequantizeVector(b, scaleB)),
                 scaleOut, 16, stats);
  }
  stats.print("residual add");
  EXPECT_LE(stats.maxError, kResidualBoundLsb);
  const ResidualAddScales growing = residualAddScales(0.02, 0.02, 0.02);
  EXPECT_EQ(residualAdd({32767, 32767}, {127, -127}, growing, 16),
            (std::vector<int32_t>{32767, 32640}));
  EXPECT_EQ(residualAdd({-32768}, {-128}, growing, 16)[0], -32768);
}

TEST(GoldenArgmax, TiesGoToTheLowestIndex) {
  EXPECT_EQ(argmax({5, 9, 9, 3}), 1u);
  EXPECT_EQ(argmax(std::vector<int32_t>(50000, -7)), 0u);
  EXPECT_EQ(argmax({INT32_MIN, INT32_MAX, INT32_MAX}), 1u);
  EXPECT_EQ(argmax({INT32_MIN}), 0u);
  std::vector<int32_t> v(151936, 0); // Qwen2 vocabulary size
  v[151935] = 1;
  EXPECT_EQ(argmax(v), 151935u);
  EXPECT_THROW(argmax({}), std::invalid_argument);
  std::mt19937_64 rng(81);
  for (int trial = 0; trial < 100; ++trial) {
    const std::vector<int32_t> codes = randomCodes(1000, 4, rng); // many ties
    std::vector<float> asFloat(codes.begin(), codes.end());
    EXPECT_EQ(argmax(codes), argmaxFloat(asFloat));
  }
}
