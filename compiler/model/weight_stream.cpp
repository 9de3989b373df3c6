// The weight stream of st_linear (see weight_stream.h and docs/weight-stream.md).
#include "model/weight_stream.h"

#include "support/error.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace st::model {

namespace {

using numerics::placeBits;

const char *const kWhere = "weight stream";

void require(bool ok, const std::string &field, const std::string &expected) {
  if (!ok)
    throw Error(kWhere, field, expected);
}

void checkLayer(const numerics::QuantizedLinear &layer, const LinearParams &p) {
  // The layout rules of docs/weight-stream.md (st_linear checks these and more with $fatal).
  require(p.weightBits == 4 || p.weightBits == 8, "WBits",
          "4 or 8, got " + std::to_string(p.weightBits));
  require(p.rows >= 1 && p.nOut % p.rows == 0, "Rows",
          "a divisor of NOut = " + std::to_string(p.nOut) + ", got " + std::to_string(p.rows));
  require(p.kLanes >= 2 && p.kLanes % 2 == 0 && p.k % p.kLanes == 0, "KLanes",
          "an even divisor of K = " + std::to_string(p.k) + ", got " + std::to_string(p.kLanes));
  require(p.groupSize == 0 || (p.groupSize % p.kLanes == 0 && p.k % p.groupSize == 0), "GroupSize",
          "0 or a multiple of KLanes dividing K, got " + std::to_string(p.groupSize));
  require(p.wordBits >= linearStreamPayloadBits(p), "WordBits",
          ">= the payload of " + std::to_string(linearStreamPayloadBits(p)) + " bits, got " +
              std::to_string(p.wordBits));
  require(layer.rows == size_t(p.nOut) && layer.cols == size_t(p.k), "layer shape",
          std::to_string(p.nOut) + " x " + std::to_string(p.k) + ", got " +
              std::to_string(layer.rows) + " x " + std::to_string(layer.cols));
  require(layer.weightBits == unsigned(p.weightBits), "weightBits",
          std::to_string(p.weightBits) + ", got " + std::to_string(layer.weightBits));
  const size_t group = p.groupSize == 0 ? size_t(p.k) : size_t(p.groupSize);
  require(layer.groupSize == group, "groupSize",
          std::to_string(group) + ", got " + std::to_string(layer.groupSize));
  require(layer.packedWeights.size() == layer.rows * layer.cols * layer.weightBits / 8,
          "packedWeights",
          std::to_string(layer.rows * layer.cols * layer.weightBits / 8) + " bytes, got " +
              std::to_string(layer.packedWeights.size()));
  if (p.groupSize != 0)
    require(layer.groupScales.size() == layer.rows * layer.groupsPerRow(), "groupScales",
            std::to_string(layer.rows * layer.groupsPerRow()) + " mantissas, got " +
                std::to_string(layer.groupScales.size()));
  require(layer.bias.empty() || layer.bias.size() == layer.rows, "bias",
          "none or " + std::to_string(layer.rows) + " values, got " +
              std::to_string(layer.bias.size()));
  require(layer.outputScales.size() == layer.rows, "outputScales",
          std::to_string(layer.rows) + " multipliers, got " +
              std::to_string(layer.outputScales.size()));
  for (size_t r = 0; r < layer.rows; ++r) {
    const int64_t b = layer.bias.empty() ? 0 : layer.bias[r];
    require(b >= -(int64_t(1) << 47) && b < (int64_t(1) << 47), "bias[" + std::to_string(r) + "]",
            "a value that fits s48, got " + std::to_string(b));
    require(layer.outputScales[r].mantissa < (uint32_t(1) << 24) &&
                layer.outputScales[r].shift < 64,
            "outputScales[" + std::to_string(r) + "]", "a u24 mantissa and a u6 shift");
  }
}

} // namespace

int64_t linearStreamPayloadBits(const LinearParams &p) {
  return p.rows * p.kLanes * p.weightBits + (p.groupSize != 0 ? p.rows * kLinearGroupScaleBits : 0);
}

int64_t linearStreamHeaderWords(const LinearParams &p) {
  return (p.rows * kLinearRowRecordBits + p.wordBits - 1) / p.wordBits;
}

std::vector<numerics::StreamWord> linearWeightStreamWords(const numerics::QuantizedLinear &layer,
                                                          const LinearParams &p) {
  checkLayer(layer, p);
  const int64_t limbs = (p.wordBits + 31) / 32;
  const int64_t headerWords = linearStreamHeaderWords(p);
  const size_t groups = layer.groupsPerRow();
  std::vector<numerics::StreamWord> words;
  words.reserve(size_t(p.nOut / p.rows * (headerWords + p.k / p.kLanes)));
  for (int64_t b = 0; b < p.nOut / p.rows; ++b) {
    // The header words form one headerWords*WordBits-bit value; row r owns bits [r*80, +80).
    std::vector<uint32_t> header(size_t((headerWords * p.wordBits + 31) / 32 + 1), 0);
    for (int64_t r = 0; r < p.rows; ++r) {
      const size_t row = size_t(b * p.rows + r);
      const int64_t at = r * kLinearRowRecordBits;
      placeBits(header, at, 48, uint64_t(layer.bias.empty() ? 0 : layer.bias[row]));
      placeBits(header, at + 48, 24, layer.outputScales[row].mantissa);
      placeBits(header, at + 72, 6, layer.outputScales[row].shift);
    }
    for (int64_t h = 0; h < headerWords; ++h) {
      numerics::StreamWord word(size_t(limbs), 0);
      for (int64_t bit = 0; bit < p.wordBits; ++bit) {
        const int64_t from = h * p.wordBits + bit;
        if ((header[size_t(from / 32)] >> (from % 32)) & 1)
          word[size_t(bit / 32)] |= uint32_t(1) << (bit % 32);
      }
      words.push_back(std::move(word));
    }
    for (int64_t j = 0; j < p.k / p.kLanes; ++j) {
      numerics::StreamWord word(size_t(limbs), 0);
      for (int64_t r = 0; r < p.rows; ++r) {
        const size_t row = size_t(b * p.rows + r);
        for (int64_t l = 0; l < p.kLanes; ++l)
          placeBits(word, (r * p.kLanes + l) * p.weightBits, p.weightBits,
                    uint64_t(int64_t(layer.weight(row, size_t(j * p.kLanes + l)))));
        if (p.groupSize != 0) {
          const size_t g = size_t(j * p.kLanes / p.groupSize);
          placeBits(word, p.rows * p.kLanes * p.weightBits + r * kLinearGroupScaleBits,
                    kLinearGroupScaleBits, layer.groupScales[row * groups + g]);
        }
      }
      words.push_back(std::move(word));
    }
  }
  return words;
}

namespace {

/// memcpy of a row's run of codes in a weight word (KLanes * WBits / 8 bytes: usually 4 to 32),
/// with the common sizes as fixed-size copies the compiler inlines (the image of a full-size
/// model is ~10^8 of them).
inline void copyRun(uint8_t *to, const uint8_t *from, int64_t n) {
  switch (n) {
  case 4:
    std::memcpy(to, from, 4);
    return;
  case 8:
    std::memcpy(to, from, 8);
    return;
  case 16:
    std::memcpy(to, from, 16);
    return;
  case 32:
    std::memcpy(to, from, 32);
    return;
  default:
    std::memcpy(to, from, size_t(n));
  }
}

} // namespace

std::vector<uint8_t> linearWeightStreamBytes(const numerics::QuantizedLinear &layer,
                                             const LinearParams &p) {
  require(p.wordBits % 8 == 0, "WordBits",
          "a multiple of 8 for the HBM image, got " + std::to_string(p.wordBits));
  checkLayer(layer, p);
  // The words of linearWeightStreamWords as bytes, built a byte run at a time: every field of
  // the layout starts on a byte (a row record is 80 bits; a row's KLanes codes, KLanes even, are
  // KLanes * WBits / 8 whole bytes of the row-major packed codes, in the same nibble order; the
  // mantissas follow the Rows * KLanes codes), and the words of a block are back to back, so the
  // header words are the row records' bytes followed by zeros.
  const int64_t wordBytes = p.wordBits / 8;
  const int64_t headerWords = linearStreamHeaderWords(p);
  const int64_t perRow = p.k / p.kLanes, blocks = p.nOut / p.rows;
  const int64_t blockBytes = (headerWords + perRow) * wordBytes;
  const int64_t run = p.kLanes * p.weightBits / 8;      // one row's codes in a weight word
  const int64_t rowBytes = p.k * p.weightBits / 8;      // one row's packed codes
  const int64_t mantissaAt = p.rows * run;              // first group mantissa of a word
  const int64_t recordBytes = kLinearRowRecordBits / 8; // bias s48, mantissa u24, shift u6
  const size_t groups = layer.groupsPerRow();
  std::vector<uint8_t> bytes(size_t(blocks * blockBytes), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    uint8_t *block = bytes.data() + b * blockBytes;
    for (int64_t r = 0; r < p.rows; ++r) {
      const size_t row = size_t(b * p.rows + r);
      uint8_t *record = block + r * recordBytes;
      const uint64_t bias = uint64_t(layer.bias.empty() ? 0 : layer.bias[row]);
      for (int i = 0; i < 6; ++i)
        record[i] = uint8_t(bias >> (8 * i));
      const uint32_t mantissa = layer.outputScales[row].mantissa;
      for (int i = 0; i < 3; ++i)
        record[6 + i] = uint8_t(mantissa >> (8 * i));
      record[9] = uint8_t(layer.outputScales[row].shift & 0x3f);
    }
    for (int64_t j = 0; j < perRow; ++j) {
      uint8_t *word = block + (headerWords + j) * wordBytes;
      for (int64_t r = 0; r < p.rows; ++r) {
        const size_t row = size_t(b * p.rows + r);
        copyRun(word + r * run, layer.packedWeights.data() + int64_t(row) * rowBytes + j * run,
                run);
        if (p.groupSize != 0) {
          const uint16_t m = layer.groupScales[row * groups + size_t(j * p.kLanes / p.groupSize)];
          word[mantissaAt + 2 * r] = uint8_t(m & 0xff);
          word[mantissaAt + 2 * r + 1] = uint8_t(m >> 8);
        }
      }
    }
  }
  return bytes;
}

} // namespace st::model
