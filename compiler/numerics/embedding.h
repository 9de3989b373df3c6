// The golden embedding row gather (docs/numerics.md §6) and the HBM image of an int8 embedding
// table, as the kernel st_embedding_gather reads it: row r at byte r * RowBytes, RowBytes = Dim
// rounded up to the 64-byte HBM word, codes in order, zero padding.
#pragma once

#include "fixed_point.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::numerics {

/// Bytes of one HBM word (the 512-bit AXI data width).
constexpr size_t kHbmWordBytes = 64;

/// An int8 embedding table with one per-tensor output multiplier.
struct QuantizedEmbedding {
  size_t rows = 0;           ///< vocabulary size
  size_t dim = 0;            ///< hidden size
  std::vector<int8_t> codes; ///< rows * dim, row-major
  FixedScale outputScale;    ///< s_table (x sqrt(hidden) for Gemma) / s_out
  unsigned outputBits = 16;  ///< output code width (2 .. 32), saturated
};

/// s_table * normalizer / s_out as a FixedScale; normalizer = sqrt(hidden) for Gemma, else 1.
FixedScale embeddingScale(double tableScale, double normalizer, double outputScale);

/// Bytes of one table row in HBM: dim rounded up to a multiple of 64.
size_t embeddingRowBytes(size_t dim);

/// y_i = saturate(round(codes[id, i] * outputScale), outputBits) for i < dim. Throws st::Error
/// (naming "embedding", "token id") for id >= rows, and for a table whose codes do not number
/// rows * dim.
std::vector<int32_t> embeddingGather(const QuantizedEmbedding &table, uint32_t tokenId);

/// The table as the bytes of its HBM region: rows * embeddingRowBytes(dim) bytes.
std::vector<uint8_t> embeddingImage(const QuantizedEmbedding &table);

} // namespace st::numerics
