// Unit tests of model/weight_stream: the st_linear weight stream of docs/weight-stream.md,
// checked field by field against hand-computed words, against the document's byte-run rule
// (the weight field is the rows' packed byte runs back to back), and for its errors.
#include "model/weight_stream.h"

#include "support/error.h"

#include <gtest/gtest.h>

#include <random>

namespace st::model {
namespace {

/// Bit `bit` of a stream word.
unsigned bitOf(const numerics::StreamWord &word, int64_t bit) {
  return (word[size_t(bit / 32)] >> (bit % 32)) & 1;
}

uint64_t field(const numerics::StreamWord &word, int64_t lo, int64_t width) {
  uint64_t v = 0;
  for (int64_t i = 0; i < width; ++i)
    v |= uint64_t(bitOf(word, lo + i)) << i;
  return v;
}

/// A layer with random codes, mantissas, bias and multipliers matching `p`.
numerics::QuantizedLinear randomLayer(const LinearParams &p, std::mt19937_64 &rng, bool withBias) {
  numerics::QuantizedLinear layer;
  layer.rows = size_t(p.nOut);
  layer.cols = size_t(p.k);
  layer.weightBits = unsigned(p.weightBits);
  layer.groupSize = size_t(p.groupSize == 0 ? p.k : p.groupSize);
  std::vector<int32_t> codes(layer.rows * layer.cols);
  const int32_t lo = p.weightBits == 4 ? -8 : -128, hi = p.weightBits == 4 ? 7 : 127;
  for (auto &c : codes)
    c = std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  if (p.weightBits == 4)
    layer.packedWeights = numerics::packInt4(codes);
  else
    for (int32_t c : codes)
      layer.packedWeights.push_back(uint8_t(c & 0xff));
  for (size_t i = 0; i < layer.rows * layer.groupsPerRow(); ++i)
    layer.groupScales.push_back(uint16_t(rng()));
  for (size_t r = 0; r < layer.rows; ++r) {
    if (withBias)
      layer.bias.push_back(
          std::uniform_int_distribution<int64_t>(-(int64_t(1) << 47), (int64_t(1) << 47) - 1)(rng));
    layer.outputScales.push_back(
        numerics::FixedScale{uint32_t(rng() & 0xffffff), uint8_t(rng() % 64)});
  }
  return layer;
}

TEST(WeightStream, HandComputedW4Group) {
  // 2 x 4 layer, Rows 2, KLanes 2, group 2, WordBits 96: payload 2*2*4 + 2*16 = 48 bits,
  // header ceil(160/96) = 2 words, then 2 weight words.
  LinearParams p;
  p.k = 4, p.nOut = 2, p.rows = 2, p.kLanes = 2, p.lanes = 2, p.weightBits = 4, p.groupSize = 2,
  p.wordBits = 96;
  numerics::QuantizedLinear layer;
  layer.rows = 2, layer.cols = 4, layer.weightBits = 4, layer.groupSize = 2;
  layer.packedWeights =
      numerics::packInt4({1, -2, 3, -8, 7, 0, -1, 5});  // row 0: 1 -2 3 -8; row 1: 7 0 -1 5
  layer.groupScales = {0x1111, 0x2222, 0x3333, 0x4444}; // [row][group]
  layer.bias = {-1, 5};
  layer.outputScales = {numerics::FixedScale{0xabcdef, 17}, numerics::FixedScale{0x123456, 63}};
  const std::vector<numerics::StreamWord> words = linearWeightStreamWords(layer, p);
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(linearStreamHeaderWords(p), 2);
  // Header: row 0 at bits 0..79, row 1 at 80..159 of the two words' concatenation.
  auto headerField = [&](int64_t lo, int64_t width) {
    uint64_t v = 0;
    for (int64_t i = 0; i < width; ++i)
      v |= uint64_t(bitOf(words[size_t((lo + i) / 96)], (lo + i) % 96)) << i;
    return v;
  };
  EXPECT_EQ(headerField(0, 48), (uint64_t(1) << 48) - 1); // -1 in s48
  EXPECT_EQ(headerField(48, 24), 0xabcdefu);
  EXPECT_EQ(headerField(72, 6), 17u);
  EXPECT_EQ(headerField(78, 2), 0u);
  EXPECT_EQ(headerField(80, 48), 5u);
  EXPECT_EQ(headerField(128, 24), 0x123456u);
  EXPECT_EQ(headerField(152, 6), 63u);
  EXPECT_EQ(headerField(158, 192 - 158), 0u);
  // Weight word 0: columns 0,1 of row 0 then of row 1, then mantissas of group 0.
  EXPECT_EQ(field(words[2], 0, 16), 0x07e1u); // nibbles 1, -2(e), 7, 0 -> 0x07e1
  EXPECT_EQ(field(words[2], 16, 16), 0x1111u);
  EXPECT_EQ(field(words[2], 32, 16), 0x3333u);
  EXPECT_EQ(field(words[2], 48, 48), 0u);
  EXPECT_EQ(field(words[3], 0, 16), 0x5f83u); // 3, -8(8), -1(f), 5
  EXPECT_EQ(field(words[3], 16, 16), 0x2222u);
  EXPECT_EQ(field(words[3], 32, 16), 0x4444u);
  // Bytes: 12 per word, little endian.
  const std::vector<uint8_t> bytes = linearWeightStreamBytes(layer, p);
  ASSERT_EQ(bytes.size(), 48u);
  EXPECT_EQ(bytes[24], 0xe1);
  EXPECT_EQ(bytes[25], 0x07);
  EXPECT_EQ(bytes[26], 0x11);
  EXPECT_EQ(bytes[28], 0x33);
}

TEST(WeightStream, WeightFieldIsTheRowsPackedByteRuns) {
  std::mt19937_64 rng(7);
  for (int weightBits : {4, 8})
    for (int groupSize : {0, 32}) {
      LinearParams p;
      p.k = 128, p.nOut = 12, p.rows = 3, p.kLanes = 16, p.lanes = 8, p.weightBits = weightBits,
      p.groupSize = groupSize, p.wordBits = 512;
      const numerics::QuantizedLinear layer = randomLayer(p, rng, groupSize != 0);
      const std::vector<uint8_t> bytes = linearWeightStreamBytes(layer, p);
      const int64_t header = linearStreamHeaderWords(p), perRow = p.k / p.kLanes;
      ASSERT_EQ(int64_t(bytes.size()), (p.nOut / p.rows) * (header + perRow) * 64);
      const int64_t run = p.kLanes * p.weightBits / 8;
      for (int64_t b = 0; b < p.nOut / p.rows; ++b)
        for (int64_t j = 0; j < perRow; ++j) {
          const size_t wordAt = size_t((b * (header + perRow) + header + j) * 64);
          for (int64_t r = 0; r < p.rows; ++r)
            for (int64_t i = 0; i < run; ++i)
              ASSERT_EQ(bytes[wordAt + size_t(r * run + i)],
                        layer.packedWeights[size_t((b * p.rows + r) * p.k * p.weightBits / 8 +
                                                   j * run + i)])
                  << "W" << weightBits << " g" << groupSize << " block " << b << " word " << j;
          const size_t mantissaAt = wordAt + size_t(p.rows * run);
          for (int64_t r = 0; r < p.rows && groupSize != 0; ++r) {
            const size_t row = size_t(b * p.rows + r), g = size_t(j * p.kLanes / groupSize);
            const uint16_t m = layer.groupScales[row * layer.groupsPerRow() + g];
            EXPECT_EQ(bytes[mantissaAt + size_t(2 * r)], m & 0xff);
            EXPECT_EQ(bytes[mantissaAt + size_t(2 * r) + 1], m >> 8);
          }
        }
    }
}

TEST(WeightStream, BytesAreTheWordsLittleEndian) {
  // linearWeightStreamBytes builds bytes directly; they must be the words of
  // linearWeightStreamWords, each as WordBits/8 little-endian bytes, for every layout: headers
  // over one or several words, payloads narrower than the word, W4/W8, groups or per channel.
  std::mt19937_64 rng(21);
  int checked = 0;
  for (int weightBits : {4, 8})
    for (int groupSize : {0, 16, 64})
      for (int64_t rows : {1, 3, 8})
        for (int64_t wordBits : {int64_t(0), int64_t(96), int64_t(520), int64_t(1024)}) {
          LinearParams p;
          p.k = 128, p.nOut = 24, p.rows = rows, p.kLanes = 16, p.lanes = 8,
          p.weightBits = weightBits, p.groupSize = groupSize;
          p.wordBits = wordBits ? wordBits : (linearStreamPayloadBits(p) + 7) / 8 * 8;
          if (p.wordBits < linearStreamPayloadBits(p))
            continue;
          const numerics::QuantizedLinear layer = randomLayer(p, rng, rows != 3);
          const std::vector<numerics::StreamWord> words = linearWeightStreamWords(layer, p);
          std::vector<uint8_t> expected;
          for (const numerics::StreamWord &word : words)
            for (int64_t i = 0; i < p.wordBits / 8; ++i)
              expected.push_back(uint8_t(word[size_t(i / 4)] >> (8 * (i % 4))));
          ASSERT_EQ(linearWeightStreamBytes(layer, p), expected)
              << "W" << weightBits << " g" << groupSize << " Rows " << rows << " WordBits "
              << p.wordBits;
          ++checked;
        }
  EXPECT_EQ(checked, 50); // the 72 combinations less those whose payload exceeds the word
}

TEST(WeightStream, RejectsMismatchedLayers) {
  std::mt19937_64 rng(3);
  LinearParams p;
  p.k = 64, p.nOut = 8, p.rows = 4, p.kLanes = 16, p.lanes = 8, p.weightBits = 4, p.groupSize = 32,
  p.wordBits = 320;
  const numerics::QuantizedLinear good = randomLayer(p, rng, true);
  EXPECT_NO_THROW(linearWeightStreamWords(good, p));
  numerics::QuantizedLinear bad = good;
  bad.outputScales.pop_back();
  EXPECT_THROW(linearWeightStreamWords(bad, p), Error);
  bad = good;
  bad.bias[2] = int64_t(1) << 47;
  EXPECT_THROW(linearWeightStreamWords(bad, p), Error);
  bad = good;
  bad.groupSize = 64;
  EXPECT_THROW(linearWeightStreamWords(bad, p), Error);
  LinearParams narrow = p;
  narrow.wordBits = 300; // payload is 4*16*4 + 4*16 = 320
  try {
    linearWeightStreamWords(good, narrow);
    FAIL() << "no error for a word narrower than its payload";
  } catch (const Error &e) {
    EXPECT_EQ(e.field(), "WordBits");
  }
  LinearParams odd = p;
  odd.wordBits = 321;
  EXPECT_THROW(linearWeightStreamBytes(good, odd), Error);
}

} // namespace
} // namespace st::model
