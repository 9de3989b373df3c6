// Quantization of weights and activations (docs/numerics.md §1-§4): symmetric integer codes,
// per-channel or per-group weight scales in hardware form (16-bit group mantissas under a per-row
// exponent), int4 packing (two per byte, low nibble first), and the compile-time preparation of
// every scale descriptor the golden ops take. Runs at compile time (real arithmetic allowed);
// its outputs are integer-only.
#pragma once

#include "fixed_point.h"
#include "weight_rows.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::numerics {

/// The precisions the compiler supports (docs/numerics.md §1).
enum class Precision { W4A8, W8A8, W8A16 };
unsigned weightBitsOf(Precision precision);
unsigned activationBitsOf(Precision precision);

/// Largest code magnitude the symmetric quantizer produces: 2^(bits-1) - 1.
int64_t symmetricMaxCode(unsigned bits);
/// round(value / scale) half away from zero, saturated to the full `bits` range.
int32_t quantizeValue(double value, double scale, unsigned bits);
std::vector<int32_t> quantizeVector(const std::vector<float> &values, double scale, unsigned bits);
/// quantizeValue of `count` values into `codes` (bits <= 24), the loop vectorized: the same
/// codes, for the tables of ~10^8 values (embeddings).
void quantizeValues(const float *values, size_t count, double scale, unsigned bits, int32_t *codes);
std::vector<float> dequantizeVector(const std::vector<int32_t> &codes, double scale);

/// Activation scale from a calibrated clip value (max-abs or percentile of |x|, issue 5):
/// clip / (2^(bits-1) - 1). A zero clip gives scale 1 (the tensor is all zero).
double activationScaleFromClip(double clip, unsigned bits);
/// The p-th percentile (0 < p <= 100) of |x| over samples, nearest-rank: the calibration
/// statistic of docs/numerics.md §4 (max-abs is p = 100).
double absPercentile(std::vector<float> samples, double percentile);

/// int4 codes in [-8, 7] packed two per byte, element 2i in the low nibble of byte i. An odd
/// count leaves the last high nibble zero.
std::vector<uint8_t> packInt4(const std::vector<int32_t> &codes);
std::vector<int32_t> unpackInt4(const std::vector<uint8_t> &packed, size_t count);

/// How a linear layer's weights are quantized. groupSize 0 means per output channel.
struct WeightFormat {
  unsigned bits = 4;
  size_t groupSize = 128;
};

/// A linear layer y = W x + b in hardware form. W is rows x cols (out x in), row-major.
/// Group scale of row r, group g: groupScales[r*groups+g] * rowWeightUnit[r] (16-bit mantissas,
/// the row's largest in [2^15, 2^16)). The golden
/// datapath reads only the integer fields; rowWeightUnit/inputScale/outputScale describe them.
struct QuantizedLinear {
  size_t rows = 0, cols = 0;
  unsigned weightBits = 4;
  size_t groupSize = 0;                 ///< == cols in per-channel mode
  unsigned activationBits = 8;          ///< input code width
  unsigned outputBits = 8;              ///< output code width (saturated)
  std::vector<uint8_t> packedWeights;   ///< int4: packInt4 of the row-major codes; int8: bytes
  std::vector<uint16_t> groupScales;    ///< rows * groupsPerRow() mantissas (1 per channel mode)
  std::vector<int64_t> bias;            ///< empty, or rows values in accumulator units
  std::vector<FixedScale> outputScales; ///< rows: accumulator units -> output codes
  std::vector<double> rowWeightUnit;    ///< compile-time: real weight scale per mantissa LSB
  double inputScale = 1, outputScale = 1;

  size_t groupsPerRow() const { return cols / groupSize; }
  bool perChannel() const { return groupSize == cols; }
  /// The signed weight code at (row, col).
  int32_t weight(size_t row, size_t col) const;
  /// The real weight the codes and scales represent (for the float reference).
  double dequantizedWeight(size_t row, size_t col) const;
};

/// Quantize W (rows x cols row-major, float) and optional bias (rows) for an input of
/// `inputScale` with `activationBits` bits and an output of `outputScale`, `outputBits` bits.
/// Per-group: group scale s = maxabs/qmax; per row e = shift that puts the largest group scale's
/// mantissa in [2^15, 2^16); mantissa = round(s * 2^e); codes = round(w / (mantissa * 2^-e)).
/// Per-channel: codes = round(w / s_row), mantissas 1, the row scale moves into outputScales.
/// Throws std::invalid_argument for a group size that does not divide cols.
QuantizedLinear quantizeLinear(const std::vector<float> &weights, size_t rows, size_t cols,
                               const WeightFormat &format, double inputScale,
                               unsigned activationBits, double outputScale, unsigned outputBits,
                               const std::vector<float> &bias = {});
/// The same, reading W a block of rows at a time through `weights` (each row once; blocks of
/// rows in parallel), for weights that are not held in memory whole.
QuantizedLinear quantizeLinear(const WeightRowReader &weights, size_t rows, size_t cols,
                               const WeightFormat &format, double inputScale,
                               unsigned activationBits, double outputScale, unsigned outputBits,
                               const std::vector<float> &bias = {});

/// Width of the group-scale mantissas streamed with the weights.
constexpr unsigned kGroupScaleBits = 16;

/// Which normalization a QuantizedNorm computes.
enum class NormKind { LayerNorm, RmsNorm };

/// A LayerNorm / RMSNorm in hardware form (docs/numerics.md §6). gamma are int16 codes of the
/// effective weight (Gemma's 1 + w is folded in at compile time), beta are output codes.
struct QuantizedNorm {
  NormKind kind = NormKind::RmsNorm;
  size_t size = 0;
  int64_t epsilonTerm = 0;     ///< eps in the integer units of D (see normalize())
  std::vector<int32_t> gamma;  ///< int16 codes
  std::vector<int32_t> beta;   ///< output LSBs with kNormBetaFracBits fraction bits; empty for RMS
  FixedScale outputMultiplier; ///< s_gamma (* sqrt(N) for RMSNorm) / s_out
  unsigned outputBits = 8;
};
constexpr unsigned kNormGammaBits = 16;
constexpr unsigned kNormBetaFracBits = 8;

/// gamma/beta as float (beta empty for RMSNorm). addOneToGamma: Gemma's x * (1 + w).
QuantizedNorm quantizeNorm(NormKind kind, const std::vector<float> &gamma,
                           const std::vector<float> &beta, double epsilon, double inputScale,
                           double outputScale, unsigned outputBits, bool addOneToGamma = false);

} // namespace st::numerics
