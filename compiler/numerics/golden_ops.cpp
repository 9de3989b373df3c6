// Golden kernels: the bit-exact arithmetic of the RTL kernels (see golden_ops.h).
#include "golden_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace st::numerics {

namespace {

void checkCodes(const std::vector<int32_t> &codes, unsigned bits, const char *what) {
  for (size_t i = 0; i < codes.size(); ++i)
    if (!fitsSigned(codes[i], bits))
      throw std::invalid_argument(std::string(what) + ": code " + std::to_string(codes[i]) +
                                  " at index " + std::to_string(i) + " does not fit " +
                                  std::to_string(bits) + " bits");
}

void checkSameSize(size_t a, size_t b, const char *what) {
  if (a != b)
    throw std::invalid_argument(std::string(what) + ": operand sizes differ (" + std::to_string(a) +
                                " vs " + std::to_string(b) + ")");
}

} // namespace

std::vector<int64_t> linearAccumulators(const std::vector<int32_t> &x,
                                        const QuantizedLinear &layer) {
  checkSameSize(x.size(), layer.cols, "linear");
  checkCodes(x, layer.activationBits, "linear input");
  if (layer.cols > kMaxReductionLength)
    throw std::invalid_argument("linear: K exceeds kMaxReductionLength");
  const size_t groups = layer.groupsPerRow();
  std::vector<int64_t> accumulators(layer.rows);
  for (size_t r = 0; r < layer.rows; ++r) {
    int64_t scaledSum = 0;
    for (size_t g = 0; g < groups; ++g) {
      int64_t groupSum = 0; // |groupSum| < 2^(wb + ab + log2 G - 2): exact
      for (size_t k = g * layer.groupSize; k < (g + 1) * layer.groupSize; ++k)
        groupSum += int64_t(layer.weight(r, k)) * x[k];
      scaledSum += groupSum * layer.groupScales[r * groups + g];
    }
    if (!layer.bias.empty())
      scaledSum += layer.bias[r];
    accumulators[r] = scaledSum;
  }
  return accumulators;
}

std::vector<int32_t> linear(const std::vector<int32_t> &x, const QuantizedLinear &layer) {
  const std::vector<int64_t> accumulators = linearAccumulators(x, layer);
  std::vector<int32_t> y(layer.rows);
  for (size_t r = 0; r < layer.rows; ++r)
    y[r] = static_cast<int32_t>(
        requantizeValue(accumulators[r], layer.outputScales[r], layer.outputBits));
  return y;
}

std::vector<int32_t> requantize(const std::vector<int64_t> &values, FixedScale scale,
                                unsigned outputBits) {
  std::vector<int32_t> y;
  y.reserve(values.size());
  for (int64_t v : values)
    y.push_back(static_cast<int32_t>(requantizeValue(v, scale, outputBits)));
  return y;
}

std::vector<int32_t> requantize(const std::vector<int32_t> &values, FixedScale scale,
                                unsigned outputBits) {
  return requantize(std::vector<int64_t>(values.begin(), values.end()), scale, outputBits);
}

ResidualAddScales residualAddScales(double scaleA, double scaleB, double scaleOut) {
  return {fixedScaleFromReal(scaleA / scaleOut), fixedScaleFromReal(scaleB / scaleOut)};
}

std::vector<int32_t> residualAdd(const std::vector<int32_t> &a, const std::vector<int32_t> &b,
                                 const ResidualAddScales &scales, unsigned outputBits) {
  checkSameSize(a.size(), b.size(), "residualAdd");
  const unsigned shift = std::max(scales.a.shift, scales.b.shift);
  std::vector<int32_t> y(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    // Aligned by multiplying with powers of two: a left shift of a negative value is undefined
    // in C++17 (UBSan reports it), the product is the same bits.
    const Int128 sum = Int128(a[i]) * scales.a.mantissa * (Int128(1) << (shift - scales.a.shift)) +
                       Int128(b[i]) * scales.b.mantissa * (Int128(1) << (shift - scales.b.shift));
    y[i] = static_cast<int32_t>(saturateSigned(
        static_cast<int64_t>(saturateSigned128(roundShiftRight128(sum, shift))), outputBits));
  }
  return y;
}

std::vector<int32_t> normalize(const std::vector<int32_t> &x, const QuantizedNorm &norm) {
  checkSameSize(x.size(), norm.size, "normalize");
  checkCodes(x, 16, "normalize input");
  if (x.size() > kMaxReductionLength)
    throw std::invalid_argument("normalize: size exceeds kMaxReductionLength");
  const int64_t n = static_cast<int64_t>(x.size());
  int64_t sum = 0, sumSquares = 0; // |S1| < 2^29, S2 < 2^44
  for (int32_t v : x) {
    sum += v;
    sumSquares += int64_t(v) * v;
  }
  const bool layerNorm = norm.kind == NormKind::LayerNorm;
  // LayerNorm: N*S2 - S1^2 = N^2 * variance >= 0 exactly, < 2^58.
  const int64_t spread = layerNorm ? n * sumSquares - sum * sum : sumSquares;
  const int64_t d = std::max<int64_t>(spread + norm.epsilonTerm, 1);
  const NormalizedMantissa inverseRoot = rsqrt(static_cast<uint64_t>(d));
  std::vector<int32_t> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t centered = layerNorm ? n * x[i] - sum : x[i]; // |u| < 2^30
    const int64_t z = roundShiftRight(centered * int64_t(inverseRoot.mantissa),
                                      inverseRoot.exponent + 1); // Q.16, |z| < 2^24
    const unsigned shift = norm.outputMultiplier.shift + 16;
    const Int128 product = Int128(z * norm.gamma[i]) * norm.outputMultiplier.mantissa;
    const Int128 offset = layerNorm
                              ? Int128(norm.beta[i]) * (Int128(1) << (shift - kNormBetaFracBits))
                              : 0; // beta < 0: a product, not a left shift (see above)
    y[i] = static_cast<int32_t>(saturateSigned(
        static_cast<int64_t>(saturateSigned128(roundShiftRight128(product + offset, shift))),
        norm.outputBits));
  }
  return y;
}

SoftmaxScales softmaxScales(double logitScale) {
  return {fixedScaleFromReal(logitScale * M_LOG2E * std::ldexp(1.0, kExpInputFracBits))};
}

uint64_t softmaxExponent(int32_t maximum, int32_t logit, const SoftmaxScales &scales) {
  const int64_t difference = int64_t(maximum) - logit; // >= 0, < 2^32
  if (difference < 0)
    throw std::invalid_argument("softmaxExponent: the logit exceeds the maximum");
  return exp2Negative(-applyScale(difference, scales.logitToLog2), kExpSumFracBits);
}

std::vector<uint32_t> softmax(const std::vector<int32_t> &logits, const SoftmaxScales &scales) {
  if (logits.empty() || logits.size() > kMaxSoftmaxLength)
    throw std::invalid_argument("softmax: length must be 1 .. kMaxSoftmaxLength, got " +
                                std::to_string(logits.size()));
  const int32_t maximum = *std::max_element(logits.begin(), logits.end());
  std::vector<uint64_t> exps(logits.size());
  uint64_t sum = 0; // Q1.32 terms <= 2^32, at most 2^20 of them: < 2^53
  for (size_t i = 0; i < logits.size(); ++i) {
    exps[i] = softmaxExponent(maximum, logits[i], scales);
    sum += exps[i];
  }
  // sum >= 2^32 (the maximum's own term); 1/sum = R * 2^-(30 + L).
  const NormalizedMantissa inverse = reciprocalRefined(sum);
  // p = e * 2^15 / sum = e * R / 2^(30 + L - 15)
  const unsigned shift = kRefinedMantissaFracBits + inverse.exponent - kProbabilityFracBits;
  std::vector<uint32_t> p(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    p[i] = static_cast<uint32_t>(
        roundShiftRight128(Int128(exps[i]) * Int128(inverse.mantissa), shift));
  return p;
}

ActivationScales activationScales(double inputScale, double outputScale, unsigned outputBits) {
  ActivationScales scales;
  scales.inputToFixed = fixedScaleFromReal(inputScale * std::ldexp(1.0, kActivationFracBits));
  scales.fixedToOutput =
      fixedScaleFromReal(std::ldexp(1.0, -static_cast<int>(kActivationFracBits)) / outputScale);
  scales.outputBits = outputBits;
  return scales;
}

namespace {

/// Codes -> Q.11, saturated to 32 bits (|x| < 2^20 in real units).
int64_t toActivationFixed(int32_t code, FixedScale inputToFixed) {
  return saturateSigned(applyScale(code, inputToFixed), 32);
}

} // namespace

std::vector<int32_t> gelu(const std::vector<int32_t> &x, const ActivationScales &scales,
                          GeluForm form) {
  std::vector<int32_t> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = static_cast<int32_t>(
        requantizeValue(geluFixed(toActivationFixed(x[i], scales.inputToFixed), form),
                        scales.fixedToOutput, scales.outputBits));
  return y;
}

std::vector<int32_t> silu(const std::vector<int32_t> &x, const ActivationScales &scales) {
  std::vector<int32_t> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = static_cast<int32_t>(
        requantizeValue(siluFixed(toActivationFixed(x[i], scales.inputToFixed)),
                        scales.fixedToOutput, scales.outputBits));
  return y;
}

GatedScales gatedScales(double gateScale, double upScale, double outputScale, unsigned outputBits) {
  GatedScales scales;
  scales.gateToFixed = fixedScaleFromReal(gateScale * std::ldexp(1.0, kActivationFracBits));
  scales.upToFixed = fixedScaleFromReal(upScale * std::ldexp(1.0, kActivationFracBits));
  scales.productToOutput =
      fixedScaleFromReal(std::ldexp(1.0, -2 * static_cast<int>(kActivationFracBits)) / outputScale);
  scales.outputBits = outputBits;
  return scales;
}

namespace {

template <typename Activation>
std::vector<int32_t> gated(const std::vector<int32_t> &gate, const std::vector<int32_t> &up,
                           const GatedScales &scales, Activation activation) {
  checkSameSize(gate.size(), up.size(), "gated activation");
  std::vector<int32_t> y(gate.size());
  for (size_t i = 0; i < gate.size(); ++i) {
    const int64_t activated = activation(toActivationFixed(gate[i], scales.gateToFixed));
    const int64_t upFixed = toActivationFixed(up[i], scales.upToFixed);
    // Both factors are saturated to 32 bits, so the Q.22 product fits 64 bits.
    y[i] = static_cast<int32_t>(
        requantizeValue(activated * upFixed, scales.productToOutput, scales.outputBits));
  }
  return y;
}

} // namespace

std::vector<int32_t> swiglu(const std::vector<int32_t> &gate, const std::vector<int32_t> &up,
                            const GatedScales &scales) {
  return gated(gate, up, scales, [](int64_t g) { return siluFixed(g); });
}

std::vector<int32_t> geglu(const std::vector<int32_t> &gate, const std::vector<int32_t> &up,
                           const GatedScales &scales, GeluForm form) {
  return gated(gate, up, scales, [form](int64_t g) { return geluFixed(g, form); });
}

std::vector<int32_t> rope(const std::vector<int32_t> &x, uint64_t position, const RopeTable &table,
                          FixedScale outputMultiplier, unsigned outputBits) {
  checkSameSize(x.size(), table.headDim, "rope");
  const size_t half = x.size() / 2;
  const uint64_t phaseMask = (uint64_t(1) << kRopePhaseBits) - 1;
  std::vector<int32_t> y(x.size());
  for (size_t j = 0; j < half; ++j) {
    const uint64_t phase = (position * table.phaseIncrement[j]) & phaseMask; // mod 2^48
    const SinCos sc = sinCosFixed(phase);
    const int64_t a = x[j], b = x[j + half];
    y[j] = static_cast<int32_t>(saturateSigned(
        applyScale(a * sc.cos - b * sc.sin, outputMultiplier, kTrigFracBits), outputBits));
    y[j + half] = static_cast<int32_t>(saturateSigned(
        applyScale(b * sc.cos + a * sc.sin, outputMultiplier, kTrigFracBits), outputBits));
  }
  return y;
}

size_t argmax(const std::vector<int32_t> &values) {
  if (values.empty())
    throw std::invalid_argument("argmax: empty vector");
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i)
    if (values[i] > values[best])
      best = i;
  return best;
}

} // namespace st::numerics
