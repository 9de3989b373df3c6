// Weight/activation quantization and scale preparation (see quantization.h).
#include "quantization.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace st::numerics {

unsigned weightBitsOf(Precision precision) {
  return precision == Precision::W4A8 ? 4 : 8;
}
unsigned activationBitsOf(Precision precision) {
  return precision == Precision::W8A16 ? 16 : 8;
}

int64_t symmetricMaxCode(unsigned bits) {
  return maxSigned(bits);
}

int32_t quantizeValue(double value, double scale, unsigned bits) {
  if (scale <= 0)
    throw std::invalid_argument("quantizeValue: scale must be positive");
  // Called once per weight of a full-size model (~10^9 times): no libm call but llround, the
  // saturation inline.
  const double ratio = value / scale;
  const double limit = static_cast<double>(int64_t(1) << bits); // beyond any code
  const int64_t rounded = std::llround(std::max(-limit, std::min(limit, ratio)));
  const int64_t hi = (int64_t(1) << (bits - 1)) - 1;
  return static_cast<int32_t>(std::max(-hi - 1, std::min(hi, rounded)));
}

std::vector<int32_t> quantizeVector(const std::vector<float> &values, double scale, unsigned bits) {
  std::vector<int32_t> codes;
  codes.reserve(values.size());
  for (float v : values)
    codes.push_back(quantizeValue(v, scale, bits));
  return codes;
}

std::vector<float> dequantizeVector(const std::vector<int32_t> &codes, double scale) {
  std::vector<float> values;
  values.reserve(codes.size());
  for (int32_t c : codes)
    values.push_back(static_cast<float>(c * scale));
  return values;
}

double activationScaleFromClip(double clip, unsigned bits) {
  if (!(clip >= 0))
    throw std::invalid_argument("activationScaleFromClip: clip must be >= 0");
  return clip == 0 ? 1.0 : clip / static_cast<double>(symmetricMaxCode(bits));
}

double absPercentile(std::vector<float> samples, double percentile) {
  if (samples.empty() || !(percentile > 0 && percentile <= 100))
    throw std::invalid_argument("absPercentile: need samples and 0 < percentile <= 100");
  for (float &s : samples)
    s = std::fabs(s);
  size_t rank = static_cast<size_t>(std::ceil(percentile / 100.0 * samples.size() - 1e-9));
  rank = std::max<size_t>(rank, 1);
  std::nth_element(samples.begin(), samples.begin() + (rank - 1), samples.end());
  return samples[rank - 1];
}

std::vector<uint8_t> packInt4(const std::vector<int32_t> &codes) {
  std::vector<uint8_t> packed((codes.size() + 1) / 2, 0);
  for (size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] < -8 || codes[i] > 7)
      throw std::invalid_argument("packInt4: code " + std::to_string(codes[i]) + " at index " +
                                  std::to_string(i) + " is outside [-8, 7]");
    const uint8_t nibble = static_cast<uint8_t>(codes[i] & 0xf);
    packed[i / 2] |= (i % 2 == 0) ? nibble : static_cast<uint8_t>(nibble << 4);
  }
  return packed;
}

namespace {
int32_t signExtendNibble(uint8_t nibble) {
  return nibble >= 8 ? nibble - 16 : nibble;
}
} // namespace

std::vector<int32_t> unpackInt4(const std::vector<uint8_t> &packed, size_t count) {
  if (packed.size() * 2 < count)
    throw std::invalid_argument("unpackInt4: too few bytes");
  std::vector<int32_t> codes(count);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t byte = packed[i / 2];
    codes[i] = signExtendNibble(i % 2 == 0 ? byte & 0xf : byte >> 4);
  }
  return codes;
}

int32_t QuantizedLinear::weight(size_t row, size_t col) const {
  const size_t index = row * cols + col;
  if (weightBits == 4) {
    const uint8_t byte = packedWeights[index / 2];
    return signExtendNibble(index % 2 == 0 ? byte & 0xf : byte >> 4);
  }
  return static_cast<int8_t>(packedWeights[index]);
}

double QuantizedLinear::dequantizedWeight(size_t row, size_t col) const {
  return weight(row, col) *
         static_cast<double>(groupScales[row * groupsPerRow() + col / groupSize]) *
         rowWeightUnit[row];
}

QuantizedLinear quantizeLinear(const std::vector<float> &weights, size_t rows, size_t cols,
                               const WeightFormat &format, double inputScale,
                               unsigned activationBits, double outputScale, unsigned outputBits,
                               const std::vector<float> &bias) {
  if (weights.size() != rows * cols)
    throw std::invalid_argument("quantizeLinear: weights has " + std::to_string(weights.size()) +
                                " values, expected rows*cols = " + std::to_string(rows * cols));
  if (format.bits != 4 && format.bits != 8)
    throw std::invalid_argument("quantizeLinear: weight bits must be 4 or 8");
  const size_t groupSize = format.groupSize == 0 ? cols : format.groupSize;
  if (cols == 0 || cols % groupSize != 0)
    throw std::invalid_argument("quantizeLinear: group size " + std::to_string(groupSize) +
                                " does not divide K = " + std::to_string(cols));
  if (!bias.empty() && bias.size() != rows)
    throw std::invalid_argument("quantizeLinear: bias has " + std::to_string(bias.size()) +
                                " values, expected " + std::to_string(rows));

  QuantizedLinear layer;
  layer.rows = rows;
  layer.cols = cols;
  layer.weightBits = format.bits;
  layer.groupSize = groupSize;
  layer.activationBits = activationBits;
  layer.outputBits = outputBits;
  layer.inputScale = inputScale;
  layer.outputScale = outputScale;
  const size_t groups = cols / groupSize;
  const double qmax = static_cast<double>(symmetricMaxCode(format.bits));
  std::vector<int32_t> codes(rows * cols);
  layer.groupScales.resize(rows * groups);
  layer.rowWeightUnit.resize(rows);
  layer.outputScales.resize(rows);

  for (size_t r = 0; r < rows; ++r) {
    std::vector<double> groupScale(groups);
    double largest = 0;
    for (size_t g = 0; g < groups; ++g) {
      double maxAbs = 0;
      for (size_t k = g * groupSize; k < (g + 1) * groupSize; ++k)
        maxAbs = std::max(maxAbs, std::fabs(static_cast<double>(weights[r * cols + k])));
      groupScale[g] = maxAbs / qmax;
      largest = std::max(largest, groupScale[g]);
    }
    if (groups == 1) { // per channel: the whole scale lives in the row's output multiplier
      layer.groupScales[r] = 1;
      layer.rowWeightUnit[r] = largest > 0 ? largest : 1.0;
    } else {
      int exponent = 0;
      int rowShift = 0;
      if (largest > 0) {
        std::frexp(largest, &exponent);
        rowShift = static_cast<int>(kGroupScaleBits) - exponent;
        if (roundHalfAwayFromZero(std::ldexp(largest, rowShift)) >= 65536)
          --rowShift;
      }
      layer.rowWeightUnit[r] = std::ldexp(1.0, -rowShift);
      for (size_t g = 0; g < groups; ++g)
        layer.groupScales[r * groups + g] = static_cast<uint16_t>(std::max<int64_t>(
            groupScale[g] > 0 ? 1 : 0, roundHalfAwayFromZero(std::ldexp(groupScale[g], rowShift))));
    }
    for (size_t g = 0; g < groups; ++g) {
      const double scale = layer.groupScales[r * groups + g] * layer.rowWeightUnit[r];
      for (size_t k = g * groupSize; k < (g + 1) * groupSize; ++k)
        codes[r * cols + k] =
            scale > 0 ? quantizeValue(weights[r * cols + k], scale, format.bits) : 0;
    }
    const double accumulatorUnit = inputScale * layer.rowWeightUnit[r];
    layer.outputScales[r] = fixedScaleFromReal(accumulatorUnit / outputScale);
    if (!bias.empty()) {
      const int64_t limit = int64_t(1) << 47;
      layer.bias.push_back(
          std::max(-limit, std::min(limit - 1, roundHalfAwayFromZero(bias[r] / accumulatorUnit))));
    }
  }
  if (format.bits == 4) {
    layer.packedWeights = packInt4(codes);
  } else {
    layer.packedWeights.reserve(codes.size());
    for (int32_t c : codes)
      layer.packedWeights.push_back(static_cast<uint8_t>(c & 0xff));
  }
  return layer;
}

QuantizedNorm quantizeNorm(NormKind kind, const std::vector<float> &gamma,
                           const std::vector<float> &beta, double epsilon, double inputScale,
                           double outputScale, unsigned outputBits, bool addOneToGamma) {
  if (gamma.empty())
    throw std::invalid_argument("quantizeNorm: gamma is empty");
  if (kind == NormKind::LayerNorm && !beta.empty() && beta.size() != gamma.size())
    throw std::invalid_argument("quantizeNorm: beta size differs from gamma size");
  if (kind == NormKind::RmsNorm && !beta.empty())
    throw std::invalid_argument("quantizeNorm: RMSNorm takes no beta");
  const size_t n = gamma.size();
  QuantizedNorm norm;
  norm.kind = kind;
  norm.size = n;
  norm.outputBits = outputBits;

  std::vector<double> effective(n);
  double maxAbs = 0;
  for (size_t i = 0; i < n; ++i) {
    effective[i] = gamma[i] + (addOneToGamma ? 1.0 : 0.0);
    maxAbs = std::max(maxAbs, std::fabs(effective[i]));
  }
  const double gammaScale = maxAbs > 0 ? maxAbs / symmetricMaxCode(kNormGammaBits) : 1.0;
  for (double g : effective)
    norm.gamma.push_back(quantizeValue(g, gammaScale, kNormGammaBits));
  if (kind == NormKind::LayerNorm)
    for (size_t i = 0; i < n; ++i)
      norm.beta.push_back(quantizeValue(beta.empty() ? 0.0 : beta[i],
                                        std::ldexp(outputScale, -int(kNormBetaFracBits)),
                                        outputBits + kNormBetaFracBits));

  // D = N*S2 - S1^2 + eps*N^2/s_x^2 (LayerNorm) or S2 + eps*N/s_x^2 (RMSNorm).
  const double dn = static_cast<double>(n);
  const double epsilonInCodes = epsilon / (inputScale * inputScale);
  norm.epsilonTerm = roundHalfAwayFromZero(kind == NormKind::LayerNorm ? epsilonInCodes * dn * dn
                                                                       : epsilonInCodes * dn);
  const double multiplier =
      gammaScale / outputScale * (kind == NormKind::RmsNorm ? std::sqrt(dn) : 1.0);
  norm.outputMultiplier = fixedScaleFromReal(multiplier);
  return norm;
}

} // namespace st::numerics
