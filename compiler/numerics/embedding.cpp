// The golden embedding row gather and the table's HBM image (see embedding.h).
#include "embedding.h"

#include "support/error.h"

#include <string>

namespace st::numerics {

namespace {

void checkTable(const QuantizedEmbedding &table) {
  if (table.codes.size() != table.rows * table.dim)
    throw Error("embedding", "codes",
                std::to_string(table.rows) + " x " + std::to_string(table.dim) + " = " +
                    std::to_string(table.rows * table.dim) + " codes, got " +
                    std::to_string(table.codes.size()));
  if (table.outputBits < 2 || table.outputBits > 32)
    throw Error("embedding", "outputBits", "2 .. 32, got " + std::to_string(table.outputBits));
}

} // namespace

FixedScale embeddingScale(double tableScale, double normalizer, double outputScale) {
  return fixedScaleFromReal(tableScale * normalizer / outputScale);
}

size_t embeddingRowBytes(size_t dim) {
  return (dim + kHbmWordBytes - 1) / kHbmWordBytes * kHbmWordBytes;
}

std::vector<int32_t> embeddingGather(const QuantizedEmbedding &table, uint32_t tokenId) {
  checkTable(table);
  if (tokenId >= table.rows)
    throw Error("embedding", "token id",
                "an id below the vocabulary size " + std::to_string(table.rows) + ", got " +
                    std::to_string(tokenId));
  std::vector<int32_t> y(table.dim);
  for (size_t i = 0; i < table.dim; ++i)
    y[i] = static_cast<int32_t>(requantizeValue(table.codes[size_t(tokenId) * table.dim + i],
                                                table.outputScale, table.outputBits));
  return y;
}

std::vector<uint8_t> embeddingImage(const QuantizedEmbedding &table) {
  checkTable(table);
  const size_t rowBytes = embeddingRowBytes(table.dim);
  std::vector<uint8_t> image(table.rows * rowBytes, 0);
  for (size_t r = 0; r < table.rows; ++r)
    for (size_t i = 0; i < table.dim; ++i)
      image[r * rowBytes + i] = static_cast<uint8_t>(table.codes[r * table.dim + i]);
  return image;
}

} // namespace st::numerics
