// Batched golden linear (see linear_batch.h): weight rows unpacked to 16-bit codes a chunk at a
// time, each applied to every input row with 32-bit partial sums widened into linear()'s exact
// 64-bit group sums.
#include "linear_batch.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fixed_point.h"
#include "golden_ops.h"
#include "support/parallel.h"

namespace st::numerics {

namespace {

/// Weight rows per parallel chunk (a fixed grain: the chunks do not depend on the thread count).
constexpr size_t kRowGrain = 16;
/// Products summed in 32 bits before widening: |w| <= 2^7, |x| <= 2^15, 256 * 2^22 = 2^30.
constexpr size_t kSubBlock = 256;
/// Input rows one pass over a weight row serves.
constexpr size_t kInputTile = 4;

/// acc[b * tileRows + i] = sum over groups g of scales[i, g] * (sum_{k in g} w[i][k] * x[b][k])
/// for the tile's weight rows i and every input row b (no bias). Cloned for AVX2 so the 16-bit
/// products vectorize as multiply-adds; the integer result is the same on every path.
__attribute__((target_clones("avx2", "default"))) void
tileAccumulators(const int16_t *w, size_t tileRows, const int16_t *x, size_t numRows, size_t cols,
                 size_t groupSize, const uint16_t *scales, int64_t *acc) {
  const size_t groups = cols / groupSize;
  for (size_t b0 = 0; b0 < numRows; b0 += kInputTile) {
    const size_t nb = std::min(kInputTile, numRows - b0);
    // Rows past the end repeat the last one; their sums are dropped.
    const int16_t *x0 = x + (b0 + 0) * cols;
    const int16_t *x1 = x + (b0 + std::min<size_t>(1, nb - 1)) * cols;
    const int16_t *x2 = x + (b0 + std::min<size_t>(2, nb - 1)) * cols;
    const int16_t *x3 = x + (b0 + std::min<size_t>(3, nb - 1)) * cols;
    for (size_t i = 0; i < tileRows; ++i) {
      const int16_t *wr = w + i * cols;
      int64_t scaled[kInputTile] = {0, 0, 0, 0};
      for (size_t g = 0; g < groups; ++g) {
        int64_t groupSum[kInputTile] = {0, 0, 0, 0};
        const size_t groupEnd = (g + 1) * groupSize;
        for (size_t k0 = g * groupSize; k0 < groupEnd; k0 += kSubBlock) {
          const size_t k1 = std::min(k0 + kSubBlock, groupEnd);
          int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
          for (size_t k = k0; k < k1; ++k) {
            const int32_t wk = wr[k];
            s0 += wk * x0[k];
            s1 += wk * x1[k];
            s2 += wk * x2[k];
            s3 += wk * x3[k];
          }
          groupSum[0] += s0;
          groupSum[1] += s1;
          groupSum[2] += s2;
          groupSum[3] += s3;
        }
        const int64_t scale = scales[i * groups + g];
        for (size_t j = 0; j < kInputTile; ++j)
          scaled[j] += groupSum[j] * scale;
      }
      for (size_t j = 0; j < nb; ++j)
        acc[(b0 + j) * tileRows + i] = scaled[j];
    }
  }
}

/// A 4-bit two's-complement weight code.
int16_t nibbleCode(unsigned nibble) {
  return static_cast<int16_t>(nibble >= 8 ? int(nibble) - 16 : int(nibble));
}

/// Weight rows [r0, r1) of `layer` as 16-bit codes, row-major.
void unpackRows(const QuantizedLinear &layer, size_t r0, size_t r1, std::vector<int16_t> &out) {
  out.resize((r1 - r0) * layer.cols);
  const uint8_t *packed = layer.packedWeights.data();
  const size_t begin = r0 * layer.cols;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t index = begin + i;
    if (layer.weightBits == 4) {
      const uint8_t byte = packed[index / 2];
      out[i] = nibbleCode(index % 2 == 0 ? byte & 0xf : byte >> 4);
    } else {
      out[i] = static_cast<int8_t>(packed[index]);
    }
  }
}

} // namespace

std::vector<int32_t> linearRows(const std::vector<int32_t> &x, size_t numRows,
                                const QuantizedLinear &layer) {
  if (x.size() != numRows * layer.cols)
    throw std::invalid_argument("linear: operand sizes differ (" + std::to_string(x.size()) +
                                " vs " + std::to_string(numRows) + " rows of " +
                                std::to_string(layer.cols) + ")");
  // Widths the 16-bit path does not cover go row by row through linear() itself.
  if (layer.activationBits > 16 || (layer.weightBits != 4 && layer.weightBits != 8)) {
    std::vector<int32_t> y;
    y.reserve(numRows * layer.rows);
    for (size_t b = 0; b < numRows; ++b) {
      const std::vector<int32_t> row(x.begin() + b * layer.cols, x.begin() + (b + 1) * layer.cols);
      const std::vector<int32_t> out = linear(row, layer);
      y.insert(y.end(), out.begin(), out.end());
    }
    return y;
  }
  if (layer.cols > kMaxReductionLength)
    throw std::invalid_argument("linear: K exceeds kMaxReductionLength");
  std::vector<int16_t> x16(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!fitsSigned(x[i], layer.activationBits))
      throw std::invalid_argument("linear input: code " + std::to_string(x[i]) + " at index " +
                                  std::to_string(i % layer.cols) + " does not fit " +
                                  std::to_string(layer.activationBits) + " bits");
    x16[i] = static_cast<int16_t>(x[i]);
  }
  std::vector<int32_t> y(numRows * layer.rows);
  const size_t groups = layer.groupsPerRow();
  parallelForChunks(layer.rows, kRowGrain, [&](size_t r0, size_t r1) {
    std::vector<int16_t> w;
    unpackRows(layer, r0, r1, w);
    const size_t tileRows = r1 - r0;
    std::vector<int64_t> acc(numRows * tileRows);
    tileAccumulators(w.data(), tileRows, x16.data(), numRows, layer.cols, layer.groupSize,
                     layer.groupScales.data() + r0 * groups, acc.data());
    for (size_t b = 0; b < numRows; ++b)
      for (size_t i = 0; i < tileRows; ++i) {
        const size_t r = r0 + i;
        int64_t sum = acc[b * tileRows + i];
        if (!layer.bias.empty())
          sum += layer.bias[r];
        y[b * layer.rows + r] =
            static_cast<int32_t>(requantizeValue(sum, layer.outputScales[r], layer.outputBits));
      }
  });
  return y;
}

} // namespace st::numerics
