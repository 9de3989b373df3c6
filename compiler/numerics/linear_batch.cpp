// Batched golden linear (see linear_batch.h): weight rows unpacked to 16-bit codes a chunk at a
// time, each applied to every input row with 32-bit partial sums widened into linear()'s exact
// 64-bit group sums.
#include "linear_batch.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "fixed_point.h"
#include "golden_ops.h"
#include "support/parallel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace st::numerics {

namespace {

/// Weight rows per parallel chunk (a fixed grain: the chunks do not depend on the thread count).
constexpr size_t kRowGrain = 16;
/// Products summed in 32 bits before widening: |w| <= 2^7, |x| <= 2^15, 256 * 2^22 = 2^30.
constexpr size_t kSubBlock = 256;
/// Input rows one pass over a weight row serves.
constexpr size_t kInputTile = 4;

/// acc[b * tileRows + i] = sum over groups g of scales[i, g] * (sum_{k in g} w[i][k] * x[b][k])
/// for the tile's weight rows i and every input row b (no bias); x row-major. The portable path.
void tileAccumulators(const int16_t *w, size_t tileRows, const int16_t *x, size_t numRows,
                      size_t cols, size_t groupSize, const uint16_t *scales, int64_t *acc) {
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

#if defined(__x86_64__)
/// Input rows one AVX2 pass serves: 4 registers of 8 rows' 32-bit sums.
constexpr size_t kAvx2Rows = 32;

/// x in tiles of kAvx2Rows rows, each as pairs of columns (one tile contiguous, pair after pair):
/// xp[((b / 32 * cols / 2) + k / 2) * 64 + b % 32 * 2 + k % 2] = x[b][k], rows padded with zeros
/// to rowsPad (a multiple of kAvx2Rows). cols even.
std::vector<int16_t> pairedColumns(const std::vector<int16_t> &x, size_t numRows, size_t cols,
                                   size_t rowsPad) {
  std::vector<int16_t> xp(rowsPad * cols, 0);
  for (size_t b = 0; b < numRows; ++b)
    for (size_t k = 0; k < cols; ++k)
      xp[((b / kAvx2Rows) * (cols / 2) + k / 2) * (2 * kAvx2Rows) + (b % kAvx2Rows) * 2 + k % 2] =
          x[b * cols + k];
  return xp;
}

/// tileAccumulators with AVX2 multiply-adds on pairedColumns' layout: per pair of columns, the
/// two weights broadcast against 32 rows' pairs (vpmaddwd: w[k] x[b][k] + w[k+1] x[b][k+1]),
/// 32-bit sums over at most kSubBlock columns widened into the 64-bit group sums. The same
/// integers as tileAccumulators (exact arithmetic in another order). groupSize even.
__attribute__((target("avx2"))) void tileAccumulatorsAvx2(const int16_t *w, size_t tileRows,
                                                          const int16_t *xp, size_t numRows,
                                                          size_t rowsPad, size_t cols,
                                                          size_t groupSize, const uint16_t *scales,
                                                          int64_t *acc) {
  const size_t groups = cols / groupSize;
  alignas(32) int32_t partial[kAvx2Rows];
  for (size_t b0 = 0; b0 < rowsPad; b0 += kAvx2Rows) {
    const size_t nb = std::min(kAvx2Rows, numRows - std::min(numRows, b0));
    if (nb == 0)
      break;
    const int16_t *tile = xp + (b0 / kAvx2Rows) * (cols / 2) * (2 * kAvx2Rows);
    for (size_t i = 0; i < tileRows; ++i) {
      const int16_t *wr = w + i * cols;
      int64_t scaled[kAvx2Rows] = {};
      for (size_t g = 0; g < groups; ++g) {
        int64_t groupSum[kAvx2Rows] = {};
        const size_t groupEnd = (g + 1) * groupSize;
        for (size_t k0 = g * groupSize; k0 < groupEnd; k0 += kSubBlock) {
          const size_t k1 = std::min(k0 + kSubBlock, groupEnd);
          __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
          for (size_t k = k0; k < k1; k += 2) {
            int32_t pair;
            std::memcpy(&pair, wr + k, sizeof(pair));
            const __m256i wv = _mm256_set1_epi32(pair);
            const __m256i *xv = reinterpret_cast<const __m256i *>(tile + (k / 2) * (2 * kAvx2Rows));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(wv, _mm256_loadu_si256(xv + 0)));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(wv, _mm256_loadu_si256(xv + 1)));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(wv, _mm256_loadu_si256(xv + 2)));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(wv, _mm256_loadu_si256(xv + 3)));
          }
          _mm256_store_si256(reinterpret_cast<__m256i *>(partial + 0), a0);
          _mm256_store_si256(reinterpret_cast<__m256i *>(partial + 8), a1);
          _mm256_store_si256(reinterpret_cast<__m256i *>(partial + 16), a2);
          _mm256_store_si256(reinterpret_cast<__m256i *>(partial + 24), a3);
          for (size_t j = 0; j < kAvx2Rows; ++j)
            groupSum[j] += partial[j];
        }
        const int64_t scale = scales[i * groups + g];
        for (size_t j = 0; j < kAvx2Rows; ++j)
          scaled[j] += groupSum[j] * scale;
      }
      for (size_t j = 0; j < nb; ++j)
        acc[(b0 + j) * tileRows + i] = scaled[j];
    }
  }
}
#endif

/// A 4-bit two's-complement weight code.
int16_t nibbleCode(unsigned nibble) {
  return static_cast<int16_t>(nibble >= 8 ? int(nibble) - 16 : int(nibble));
}

/// Weight rows [r0, r1) of `layer` as 16-bit codes, row-major.
void unpackRows(const QuantizedLinear &layer, size_t r0, size_t r1, std::vector<int16_t> &out) {
  out.resize((r1 - r0) * layer.cols);
  const uint8_t *packed = layer.packedWeights.data();
  const size_t begin = r0 * layer.cols;
  if (layer.weightBits == 4 && begin % 2 == 0 && out.size() % 2 == 0) {
    // Whole bytes: the low nibble first, each sign-extended by an arithmetic shift.
    const uint8_t *bytes = packed + begin / 2;
    for (size_t j = 0; j < out.size() / 2; ++j) {
      out[2 * j] = static_cast<int16_t>(static_cast<int8_t>(bytes[j] << 4) >> 4);
      out[2 * j + 1] = static_cast<int16_t>(static_cast<int8_t>(bytes[j]) >> 4);
    }
    return;
  }
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
#if defined(__x86_64__)
  const bool avx2 = layer.groupSize % 2 == 0 && __builtin_cpu_supports("avx2");
  const size_t rowsPad = (numRows + kAvx2Rows - 1) / kAvx2Rows * kAvx2Rows;
  const std::vector<int16_t> xp =
      avx2 ? pairedColumns(x16, numRows, layer.cols, rowsPad) : std::vector<int16_t>();
#endif
  parallelForChunks(layer.rows, kRowGrain, [&](size_t r0, size_t r1) {
    std::vector<int16_t> w;
    unpackRows(layer, r0, r1, w);
    const size_t tileRows = r1 - r0;
    std::vector<int64_t> acc(numRows * tileRows);
    const uint16_t *scales = layer.groupScales.data() + r0 * groups;
#if defined(__x86_64__)
    if (avx2)
      tileAccumulatorsAvx2(w.data(), tileRows, xp.data(), numRows, rowsPad, layer.cols,
                           layer.groupSize, scales, acc.data());
    else
#endif
      tileAccumulators(w.data(), tileRows, x16.data(), numRows, layer.cols, layer.groupSize, scales,
                       acc.data());
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
