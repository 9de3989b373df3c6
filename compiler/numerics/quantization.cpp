// Weight/activation quantization and scale preparation (see quantization.h).
#include "quantization.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ST_QUANTIZATION_X86 1
#endif

#include "support/parallel.h"
#include "support/scratch_buffer.h"

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

namespace {

/// round(value / scale) half away from zero, saturated to [-hi - 1, hi], for scale > 0 and
/// limit = 2^bits (beyond any code): quantizeValue without its check, inlined into the weight
/// loops (~10^9 calls for a full-size model). The ratio is clamped to +-limit first (a NaN ratio
/// becomes +limit), so truncation to an integer is exact and so is the fraction it leaves; the
/// result is std::llround's, without the libm call.
inline int32_t quantizeCode(double value, double scale, double limit, int64_t hi) {
  const double ratio = value / scale;
  const double clamped = std::max(-limit, std::min(limit, ratio));
  int64_t rounded = static_cast<int64_t>(clamped);
  const double fraction = clamped - static_cast<double>(rounded);
  rounded += int64_t(fraction >= 0.5) - int64_t(fraction <= -0.5);
  return static_cast<int32_t>(std::max(-hi - 1, std::min(hi, rounded)));
}

/// The largest |v| of `count` floats (0 for none; NaNs are skipped, as std::max skips them).
float largestMagnitudePortable(const float *v, size_t count) {
  float largest = 0;
  for (size_t k = 0; k < count; ++k) {
    const float a = std::fabs(v[k]);
    largest = largest < a ? a : largest;
  }
  return largest;
}

/// quantizeCode of `count` values into codes[k], for codes of at most 24 bits (limit = 2^bits,
/// so a clamped ratio fits an int32), one division each.
void quantizeCodesPortable(const float *values, size_t count, double scale, double limit,
                           int32_t hi, int32_t *codes) {
  for (size_t k = 0; k < count; ++k)
    codes[k] = static_cast<int32_t>(quantizeCode(values[k], scale, limit, hi));
}

#ifdef ST_QUANTIZATION_X86
__attribute__((target("avx2"))) float largestMagnitudeAvx2(const float *v, size_t count) {
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 largest = _mm256_setzero_ps();
  size_t k = 0;
  for (; k + 8 <= count; k += 8) // max_ps(a, m) is a > m ? a : m: a NaN keeps m
    largest = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(v + k), magnitude), largest);
  float lanes[8];
  _mm256_storeu_ps(lanes, largest);
  float result = largestMagnitudePortable(lanes, 8);
  const float rest = largestMagnitudePortable(v + k, count - k);
  return result < rest ? rest : result;
}

/// quantizeCodesPortable four values at a time, multiplying by 1/scale instead of dividing:
/// that product is within 4e-16 |q| of the quotient the division rounds to, so it rounds to
/// the same code unless the quotient lies within 1e-12 max(|q|, 1) of a half-integer (where
/// rounding flips); the four values of such a rare vector are redone with the division.
__attribute__((target("avx2"))) void quantizeCodesAvx2(const float *values, size_t count,
                                                       double scale, double limit, int32_t hi,
                                                       int32_t *codes) {
  const __m256d inverse = _mm256_set1_pd(1.0 / scale);
  const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
  const __m256d half = _mm256_set1_pd(0.5), one = _mm256_set1_pd(1.0);
  const __m256d nearness = _mm256_set1_pd(1e-12);
  const __m256d upper = _mm256_set1_pd(limit), lower = _mm256_set1_pd(-limit);
  const __m256d top = _mm256_set1_pd(static_cast<double>(hi));
  const __m256d bottom = _mm256_set1_pd(static_cast<double>(-hi - 1));
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    const __m256d q = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(values + k)), inverse);
    const __m256d a = _mm256_and_pd(q, magnitude);
    const __m256d fromHalf =
        _mm256_and_pd(_mm256_sub_pd(_mm256_sub_pd(a, _mm256_floor_pd(a)), half), magnitude);
    const __m256d risky =
        _mm256_cmp_pd(fromHalf, _mm256_mul_pd(_mm256_max_pd(a, one), nearness), _CMP_LE_OQ);
    if (_mm256_movemask_pd(risky) != 0) {
      quantizeCodesPortable(values + k, 4, scale, limit, hi, codes + k);
      continue;
    }
    // min_pd(q, limit) is q < limit ? q : limit (a NaN becomes limit, as std::min(limit, q)).
    const __m256d clamped = _mm256_max_pd(_mm256_min_pd(q, upper), lower);
    const __m256d whole = _mm256_round_pd(clamped, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d fraction = _mm256_sub_pd(clamped, whole);
    const __m256d up = _mm256_and_pd(_mm256_cmp_pd(fraction, half, _CMP_GE_OQ), one);
    const __m256d down = _mm256_and_pd(
        _mm256_cmp_pd(fraction, _mm256_sub_pd(_mm256_setzero_pd(), half), _CMP_LE_OQ), one);
    const __m256d rounded = _mm256_sub_pd(_mm256_add_pd(whole, up), down);
    const __m256d code = _mm256_min_pd(_mm256_max_pd(rounded, bottom), top);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(codes + k), _mm256_cvtpd_epi32(code));
  }
  quantizeCodesPortable(values + k, count - k, scale, limit, hi, codes + k);
}

bool haveAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#endif

/// largestMagnitudePortable, with AVX2 when the CPU has it (the same value).
float largestMagnitude(const float *v, size_t count) {
#ifdef ST_QUANTIZATION_X86
  static const bool avx2 = haveAvx2();
  if (avx2)
    return largestMagnitudeAvx2(v, count);
#endif
  return largestMagnitudePortable(v, count);
}

/// quantizeCodesPortable, with AVX2 when the CPU has it (the same codes).
void quantizeWeightCodes(const float *values, size_t count, double scale, double limit, int32_t hi,
                         int32_t *codes) {
#ifdef ST_QUANTIZATION_X86
  static const bool avx2 = haveAvx2();
  if (avx2) {
    quantizeCodesAvx2(values, count, scale, limit, hi, codes);
    return;
  }
#endif
  quantizeCodesPortable(values, count, scale, limit, hi, codes);
}

} // namespace

int32_t quantizeValue(double value, double scale, unsigned bits) {
  if (scale <= 0)
    throw std::invalid_argument("quantizeValue: scale must be positive");
  return quantizeCode(value, scale, static_cast<double>(int64_t(1) << bits),
                      (int64_t(1) << (bits - 1)) - 1);
}

std::vector<int32_t> quantizeVector(const std::vector<float> &values, double scale, unsigned bits) {
  std::vector<int32_t> codes;
  codes.reserve(values.size());
  for (float v : values)
    codes.push_back(quantizeValue(v, scale, bits));
  return codes;
}

void quantizeValues(const float *values, size_t count, double scale, unsigned bits,
                    int32_t *codes) {
  if (scale <= 0)
    throw std::invalid_argument("quantizeValues: scale must be positive");
  if (bits < 2 || bits > 24)
    throw std::invalid_argument("quantizeValues: bits must be 2 .. 24");
  quantizeWeightCodes(values, count, scale, static_cast<double>(int64_t(1) << bits),
                      (int32_t(1) << (bits - 1)) - 1, codes);
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
  return quantizeLinear(inMemoryRows(weights.data(), cols), rows, cols, format, inputScale,
                        activationBits, outputScale, outputBits, bias);
}

QuantizedLinear quantizeLinear(const WeightRowReader &weights, size_t rows, size_t cols,
                               const WeightFormat &format, double inputScale,
                               unsigned activationBits, double outputScale, unsigned outputBits,
                               const std::vector<float> &bias) {
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
  const double limit = static_cast<double>(int64_t(1) << format.bits);
  const int32_t hi = (int32_t(1) << (format.bits - 1)) - 1;
  // Codes go straight into their packed bytes (int4: element i in nibble i % 2 of byte i / 2).
  layer.packedWeights.assign(format.bits == 4 ? (rows * cols + 1) / 2 : rows * cols, 0);
  layer.groupScales.resize(rows * groups);
  layer.rowWeightUnit.resize(rows);
  layer.outputScales.resize(rows);
  if (!bias.empty())
    layer.bias.resize(rows);

  // Rows are independent: chunks of rows (about 2^18 weights) in parallel, an even number of
  // rows each so that no int4 byte is shared by two chunks (a row of odd length ends in the
  // middle of a byte). Each chunk reads its rows once.
  const size_t grain = std::max<size_t>(2, ((size_t(1) << 18) / cols + 1) & ~size_t(1));
  parallelForChunks(rows, grain, [&](size_t r0, size_t r1) {
    ScratchBuffer scratch; // pooled: no fresh pages per chunk
    const float *chunk = weights(r0, r1, scratch.get());
    std::vector<double> groupScale(groups);
    std::vector<int32_t> codes(cols);
    for (size_t r = r0; r < r1; ++r) {
      const float *w = chunk + (r - r0) * cols;
      double largest = 0;
      for (size_t g = 0; g < groups; ++g) {
        // |w| is exact in double: the largest in float is the largest in double.
        groupScale[g] = static_cast<double>(largestMagnitude(w + g * groupSize, groupSize)) / qmax;
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
          layer.groupScales[r * groups + g] = static_cast<uint16_t>(
              std::max<int64_t>(groupScale[g] > 0 ? 1 : 0,
                                roundHalfAwayFromZero(std::ldexp(groupScale[g], rowShift))));
      }
      for (size_t g = 0; g < groups; ++g) {
        const double scale = layer.groupScales[r * groups + g] * layer.rowWeightUnit[r];
        if (scale > 0)
          quantizeWeightCodes(w + g * groupSize, groupSize, scale, limit, hi,
                              codes.data() + g * groupSize);
        else
          std::fill(codes.begin() + g * groupSize, codes.begin() + (g + 1) * groupSize, 0);
      }
      const size_t first = r * cols; // the row's first element
      if (format.bits == 8) {
        for (size_t k = 0; k < cols; ++k)
          layer.packedWeights[first + k] = static_cast<uint8_t>(codes[k] & 0xff);
      } else if (first % 2 == 0 && cols % 2 == 0) { // whole bytes
        uint8_t *bytes = layer.packedWeights.data() + first / 2;
        for (size_t k = 0; k < cols; k += 2)
          bytes[k / 2] = static_cast<uint8_t>((codes[k] & 0xf) | (codes[k + 1] & 0xf) << 4);
      } else {
        for (size_t k = 0; k < cols; ++k) {
          const size_t i = first + k;
          layer.packedWeights[i / 2] |= static_cast<uint8_t>((codes[k] & 0xf) << (4 * (i % 2)));
        }
      }
      const double accumulatorUnit = inputScale * layer.rowWeightUnit[r];
      layer.outputScales[r] = fixedScaleFromReal(accumulatorUnit / outputScale);
      if (!bias.empty()) {
        const int64_t biasLimit = int64_t(1) << 47;
        layer.bias[r] = std::max(
            -biasLimit, std::min(biasLimit - 1, roundHalfAwayFromZero(bias[r] / accumulatorUnit)));
      }
    }
  });
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
