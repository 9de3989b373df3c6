// Unit tests of numerics/gemv_stream: the channel streams of st_gemv_engine
// (docs/gemv-engine.md). A decoder written from the document's wording (S word q before the
// first W word whose first mantissa floor(w*KLanes/g) is 32q) reads the streams back into the
// layer; word counts equal gemvWordsPerChannel and gemvWordsThroughBlock; hand-checked field
// positions; padding rows; the bytes form equals the words; errors name their field.
#include "numerics/gemv_stream.h"

#include "support/error.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>
#include <string>

namespace st::numerics {
namespace {

uint64_t field(const StreamWord &word, int64_t lo, int64_t width) {
  uint64_t v = 0;
  for (int64_t i = 0; i < width; ++i)
    v |= uint64_t((word[size_t((lo + i) / 32)] >> ((lo + i) % 32)) & 1) << i;
  return v;
}

int64_t signedField(const StreamWord &word, int64_t lo, int64_t width) {
  const uint64_t v = field(word, lo, width);
  return (v >> (width - 1)) & 1 ? int64_t(v) - (int64_t(1) << width) : int64_t(v);
}

GemvEngineShape smallShape() {
  GemvEngineShape s;
  s.channels = 4;
  s.kLanes = 16;
  s.segLanes = 8;
  s.lanes = 2;
  s.maxK = 128;
  s.outputBits = 16;
  s.numX = 2;
  s.numY = 3;
  return s;
}

GemvEngineShape wideShape() { // full-size lanes: 128 codes, 4 segments of 32
  GemvEngineShape s;
  s.channels = 3; // not a power of two: the layout does not need one
  s.kLanes = 128;
  s.segLanes = 32;
  s.lanes = 1;
  s.maxK = 1024;
  return s;
}

QuantizedLinear randomLayer(const GemvEngineShape &s, int64_t n, int64_t k, int64_t g,
                            std::mt19937_64 &rng) {
  QuantizedLinear layer;
  layer.rows = size_t(n);
  layer.cols = size_t(k);
  layer.weightBits = unsigned(s.weightBits);
  layer.activationBits = unsigned(s.activationBits);
  layer.outputBits = 8;
  layer.groupSize = size_t(g == 0 ? k : g);
  std::vector<int32_t> codes(size_t(n * k));
  const int32_t lo = s.weightBits == 4 ? -8 : -128, hi = s.weightBits == 4 ? 7 : 127;
  for (auto &c : codes)
    c = std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  if (s.weightBits == 4)
    layer.packedWeights = packInt4(codes);
  else
    for (int32_t c : codes)
      layer.packedWeights.push_back(uint8_t(c & 0xff));
  for (size_t i = 0; i < layer.rows * layer.groupsPerRow(); ++i)
    layer.groupScales.push_back(g == 0 ? 1 : uint16_t(rng() | 1));
  for (int64_t r = 0; r < n; ++r) {
    layer.bias.push_back(
        std::uniform_int_distribution<int64_t>(-(int64_t(1) << 47), (int64_t(1) << 47) - 1)(rng));
    layer.outputScales.push_back(FixedScale{uint32_t(rng() & 0xffffff), uint8_t(rng() % 64)});
  }
  return layer;
}

/// What a channel's stream says, read by the rules of docs/gemv-engine.md.
struct Decoded {
  GemvDescriptor d;
  std::vector<int64_t> kinds;                         // per word: 'D', 'P', 'S', 'W'
  std::map<int64_t, std::vector<int32_t>> codes;      // row -> K codes
  std::map<int64_t, std::vector<uint16_t>> mantissas; // row -> K/g mantissas
  std::map<int64_t, std::array<uint64_t, 3>> records; // row -> bias, mantissa, shift
  std::vector<uint64_t> pastRecords;                  // fields of records past the last block
};

Decoded decode(const std::vector<StreamWord> &words, const GemvEngineShape &s, int64_t c) {
  Decoded out;
  size_t at = 0;
  const StreamWord &dw = words.at(at++);
  out.kinds.push_back('D');
  out.d.k = int64_t(field(dw, 0, 32));
  out.d.blocks = int64_t(field(dw, 32, 32));
  out.d.rows = int64_t(field(dw, 64, 32));
  out.d.outputBits = int64_t(field(dw, 96, 6));
  out.d.groupSize = int64_t(field(dw, 104, 32));
  out.d.xPort = int64_t(field(dw, 136, 8));
  out.d.reuseX = field(dw, 144, 1) != 0;
  out.d.yPort = int64_t(field(dw, 152, 8));
  const int64_t g = out.d.groupSize, kl = s.kLanes, perRow = out.d.k / kl;
  std::vector<uint16_t> chunk;
  int64_t chunkBase = -1, previousLast = -1;
  std::vector<uint16_t> sequence; // the channel's mantissas as used, in order
  for (int64_t b = 0; b < out.d.blocks; ++b) {
    const int64_t row = b * s.channels + c;
    if (b % 6 == 0) {
      const StreamWord &p = words.at(at++);
      out.kinds.push_back('P');
      for (int64_t i = 0; i < 6; ++i) {
        const int64_t at80 = 80 * i;
        if (b + i < out.d.blocks)
          out.records[row + i * s.channels] = {field(p, at80, 48), field(p, at80 + 48, 24),
                                               field(p, at80 + 72, 6)};
        else
          out.pastRecords.push_back(field(p, at80, 64) | field(p, at80 + 64, 16)); // 0: all zero
        EXPECT_EQ(field(p, at80 + 78, 2), 0u);
      }
      EXPECT_EQ(field(p, 480, 32), 0u);
    }
    for (int64_t j = 0; j < perRow; ++j) {
      const int64_t w = b * perRow + j;
      if (g != 0) {
        const int64_t first = w * kl / g, last = (w * kl + kl - 1) / g;
        if (first % 32 == 0 && first != previousLast) {
          const StreamWord &sw = words.at(at++);
          out.kinds.push_back('S');
          chunk.clear();
          for (int64_t i = 0; i < 32; ++i)
            chunk.push_back(uint16_t(field(sw, 16 * i, 16)));
          chunkBase = first;
        }
        // Segment by segment: each SegLanes codes use mantissa floor(col/g) of the row.
        for (int64_t m = first; m <= last; ++m) {
          EXPECT_GE(m, chunkBase);
          EXPECT_LT(m - chunkBase, 32);
          const int64_t index = m - chunkBase;
          if (index >= 0 && index < 32 && m == int64_t(sequence.size()))
            sequence.push_back(chunk[size_t(index)]);
        }
        previousLast = last;
      }
      const StreamWord &ww = words.at(at++);
      out.kinds.push_back('W');
      std::vector<int32_t> &codes = out.codes[row];
      for (int64_t l = 0; l < kl; ++l)
        codes.push_back(int32_t(signedField(ww, l * s.weightBits, s.weightBits)));
      if (kl * s.weightBits < 512) {
        EXPECT_EQ(field(ww, kl * s.weightBits, std::min<int64_t>(64, 512 - kl * s.weightBits)), 0u);
      }
    }
  }
  EXPECT_EQ(at, words.size());
  if (g != 0) {
    const int64_t groups = out.d.k / g;
    EXPECT_EQ(int64_t(sequence.size()), out.d.blocks * groups);
    for (int64_t b = 0; b < out.d.blocks; ++b)
      out.mantissas[b * s.channels + c] =
          std::vector<uint16_t>(sequence.begin() + b * groups, sequence.begin() + (b + 1) * groups);
  }
  return out;
}

/// Streams the layer and reads every channel back: the layer's fields, padding rows as asked.
void roundTrip(const QuantizedLinear &layer, const GemvEngineShape &s, const GemvInvocation &inv) {
  const auto channels = gemvChannelWords(layer, s, inv);
  const int64_t g = gemvStreamGroupSize(layer);
  ASSERT_EQ(int64_t(channels.size()), s.channels);
  const int64_t n = int64_t(layer.rows), k = int64_t(layer.cols);
  for (int64_t c = 0; c < s.channels; ++c) {
    ASSERT_EQ(int64_t(channels[size_t(c)].size()), gemvWordsPerChannel(k, n, g, s));
    const Decoded d = decode(channels[size_t(c)], s, c);
    EXPECT_EQ(d.d.k, k);
    EXPECT_EQ(d.d.blocks, (n + s.channels - 1) / s.channels);
    EXPECT_EQ(d.d.groupSize, g);
    EXPECT_EQ(d.d.xPort, inv.xPort);
    EXPECT_EQ(d.d.yPort, inv.yPort);
    EXPECT_EQ(d.d.reuseX, inv.reuseX);
    EXPECT_EQ(d.d.outputBits, int64_t(layer.outputBits));
    EXPECT_EQ(d.d.rows, inv.deliverPaddedRows ? (n + s.lanes - 1) / s.lanes * s.lanes : n);
    // Q(b): the position of each block's last W word.
    int64_t w = 0;
    for (size_t i = 1; i < d.kinds.size(); ++i)
      if (d.kinds[i] == 'W' && ++w % (k / s.kLanes) == 0)
        EXPECT_EQ(gemvWordsThroughBlock(w / (k / s.kLanes) - 1, k, g, s), int64_t(i));
    for (const auto &[row, codes] : d.codes) {
      const auto &rec = d.records.at(row);
      if (row < n) {
        for (int64_t col = 0; col < k; ++col)
          ASSERT_EQ(codes[size_t(col)], layer.weight(size_t(row), size_t(col)))
              << row << "," << col;
        EXPECT_EQ(int64_t(rec[0] << 16) >> 16, layer.bias[size_t(row)]);
        EXPECT_EQ(rec[1], layer.outputScales[size_t(row)].mantissa);
        EXPECT_EQ(rec[2], layer.outputScales[size_t(row)].shift);
        if (g != 0)
          for (int64_t m = 0; m < k / g; ++m)
            EXPECT_EQ(d.mantissas.at(row)[size_t(m)], layer.groupScales[size_t(row * (k / g) + m)]);
      } else {
        for (int32_t code : codes)
          ASSERT_EQ(code, 0);
        const bool sat = inv.padding == GemvPaddingRecord::Saturate;
        EXPECT_EQ(rec[0], sat ? uint64_t(1) << 47 : 0u);
        EXPECT_EQ(rec[1], sat ? 1u : 0u);
        EXPECT_EQ(rec[2], 0u);
        if (g != 0)
          for (uint16_t m : d.mantissas.at(row))
            EXPECT_EQ(m, 0u);
      }
    }
    for (uint64_t past : d.pastRecords)
      EXPECT_EQ(past, 0u);
  }
}

TEST(GemvStream, DescriptorFields) {
  GemvDescriptor d;
  d.k = 0x1234;
  d.blocks = 0x56;
  d.rows = 0x78;
  d.outputBits = 0x2d;
  d.groupSize = 0x9a;
  d.xPort = 0xbc;
  d.reuseX = true;
  d.yPort = 0xde;
  const StreamWord w = gemvDescriptorWord(d);
  ASSERT_EQ(w.size(), 16u);
  EXPECT_EQ(field(w, 0, 32), 0x1234u);
  EXPECT_EQ(field(w, 32, 32), 0x56u);
  EXPECT_EQ(field(w, 64, 32), 0x78u);
  EXPECT_EQ(field(w, 96, 6), 0x2du);
  EXPECT_EQ(field(w, 102, 2), 0u);
  EXPECT_EQ(field(w, 104, 32), 0x9au);
  EXPECT_EQ(field(w, 136, 8), 0xbcu);
  EXPECT_EQ(field(w, 144, 1), 1u);
  EXPECT_EQ(field(w, 145, 7), 0u);
  EXPECT_EQ(field(w, 152, 8), 0xdeu);
  for (int64_t bit = 160; bit < 512; bit += 32)
    EXPECT_EQ(field(w, bit, 32), 0u);
  // The next invocation's x, announced: flag, port, K.
  d.nextX = GemvNextX{0x5a, 0x4321};
  const StreamWord a = gemvDescriptorWord(d);
  EXPECT_EQ(field(a, 152, 8), 0xdeu);
  EXPECT_EQ(field(a, 160, 1), 1u);
  EXPECT_EQ(field(a, 161, 7), 0u);
  EXPECT_EQ(field(a, 168, 8), 0x5au);
  EXPECT_EQ(field(a, 176, 32), 0x4321u);
  for (int64_t bit = 208; bit < 512; bit += 32)
    EXPECT_EQ(field(a, bit, std::min<int64_t>(32, 512 - bit)), 0u);
}

TEST(GemvStream, HandComputedSmallLayer) {
  // 5 rows x 32, W4, g = 8 (two mantissas per word of 16 codes), 4 channels: B = 2, rows 5..7
  // padding; channel 1 holds rows 1 and 5.
  const GemvEngineShape s = smallShape();
  std::mt19937_64 rng(5);
  QuantizedLinear layer = randomLayer(s, 5, 32, 8, rng);
  GemvInvocation inv;
  inv.xPort = 1;
  inv.yPort = 2;
  inv.deliverPaddedRows = true;
  const auto channels = gemvChannelWords(layer, s, inv);
  const std::vector<StreamWord> &c1 = channels[1];
  // D P S W W W W: per row 4 mantissas, 2 W words; the channel's 8 mantissas fit one S word.
  ASSERT_EQ(c1.size(), 7u);
  EXPECT_EQ(gemvWordsPerChannel(32, 5, 8, s), 7);
  const GemvDescriptor d = gemvDescriptorFor(layer, s, inv);
  EXPECT_EQ(d.blocks, 2);
  EXPECT_EQ(d.rows, 6); // 5 rounded up to Lanes = 2
  // P: record 0 is row 1, record 1 row 5 (padding: zero), records 2..5 past the last block.
  EXPECT_EQ(signedField(c1[1], 0, 48), layer.bias[1]);
  EXPECT_EQ(field(c1[1], 48, 24), layer.outputScales[1].mantissa);
  EXPECT_EQ(field(c1[1], 72, 6), layer.outputScales[1].shift);
  EXPECT_EQ(field(c1[1], 80, 64), 0u);
  // S: row 1's mantissas 0..3, then row 5's (padding: zero).
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(field(c1[2], 16 * i, 16), layer.groupScales[size_t(4 + i)]);
  EXPECT_EQ(field(c1[2], 64, 64), 0u);
  // W: row 1, codes 16..31 in the second word, code l at bits [4l, 4l+4).
  for (int64_t l = 0; l < 16; ++l)
    EXPECT_EQ(signedField(c1[4], 4 * l, 4), layer.weight(1, size_t(16 + l)));
  EXPECT_EQ(field(c1[4], 64, 64), 0u);
  // Row 5 is padding: zero codes.
  EXPECT_EQ(field(c1[5], 0, 64), 0u);
}

TEST(GemvStream, SWordPlacementWideLanes) {
  // KLanes 128, SegLanes 32: g = 32 (4 mantissas per word), 64 (2), 128 (1), 256 and 384 (one
  // mantissa for 2 and 3 words), per channel; N not a multiple of Channels; 13 blocks (three P).
  const GemvEngineShape s = wideShape();
  std::mt19937_64 rng(7);
  for (int64_t g : {32, 64, 128, 256, 384, 0})
    for (int64_t k : {128, 384, 768, 1024}) {
      if (g != 0 && (k % g != 0 || g == k)) // g = K is per channel
        continue;
      for (int64_t n : {1, 4, 38}) {
        SCOPED_TRACE("g " + std::to_string(g) + " K " + std::to_string(k) + " N " +
                     std::to_string(n));
        const QuantizedLinear layer = randomLayer(s, n, k, g, rng);
        GemvInvocation inv;
        inv.padding = n == 4 ? GemvPaddingRecord::Saturate : GemvPaddingRecord::Zero;
        roundTrip(layer, s, inv);
      }
    }
}

TEST(GemvStream, SWordBeforeFirstWordOfChunk) {
  // g = 32, KLanes 128: 4 mantissas per word, an S word before every 8th W word.
  GemvEngineShape s = wideShape();
  s.channels = 1;
  std::mt19937_64 rng(9);
  const QuantizedLinear layer = randomLayer(s, 3, 1024, 32, rng); // 8 words per row, 3 rows
  const auto c0 = gemvChannelWords(layer, s, {})[0];
  std::string kinds;
  const Decoded d = decode(c0, s, 0);
  for (int64_t k : d.kinds)
    kinds += char(k);
  EXPECT_EQ(kinds, "DPSWWWWWWWWSWWWWWWWWSWWWWWWWW");
  // g = 256: one mantissa per 2 words, 32 mantissas per 64 words: one S word for 3 rows.
  const QuantizedLinear wide = randomLayer(s, 3, 1024, 256, rng);
  kinds.clear();
  for (int64_t k : decode(gemvChannelWords(wide, s, {})[0], s, 0).kinds)
    kinds += char(k);
  EXPECT_EQ(kinds, "DPS" + std::string(24, 'W'));
  EXPECT_EQ(gemvWordsPerChannel(1024, 3, 256, s), 1 + 1 + 1 + 24);
}

TEST(GemvStream, SmallShapeGroupsRoundTrip) {
  const GemvEngineShape s = smallShape();
  std::mt19937_64 rng(11);
  for (int64_t g : {0, 8, 16, 32, 48, 96})
    for (int64_t k : {16, 48, 96, 128})
      for (int64_t n : {1, 2, 7, 8, 30}) {
        if (g >= k || (g != 0 && k % g != 0)) // g = K is per channel
          continue;
        SCOPED_TRACE("g " + std::to_string(g) + " K " + std::to_string(k) + " N " +
                     std::to_string(n));
        GemvInvocation inv;
        inv.deliverPaddedRows = n % s.lanes != 0;
        inv.padding = n % 3 == 0 ? GemvPaddingRecord::Saturate : GemvPaddingRecord::Zero;
        roundTrip(randomLayer(s, n, k, g, rng), s, inv);
      }
}

TEST(GemvStream, BytesEqualWords) {
  std::mt19937_64 rng(13);
  GemvEngineShape w8 = smallShape();
  w8.weightBits = 8;
  w8.activationBits = 16;
  w8.kLanes = 64;
  w8.segLanes = 64;
  w8.lanes = 4;
  w8.maxK = 512;
  struct Case {
    GemvEngineShape s;
    int64_t n, k, g;
  };
  const std::vector<Case> cases = {{smallShape(), 7, 96, 48},
                                   {smallShape(), 30, 128, 8},
                                   {smallShape(), 5, 64, 0},
                                   {wideShape(), 38, 1024, 32},
                                   {wideShape(), 4, 768, 384},
                                   {w8, 9, 512, 128},
                                   {w8, 64, 256, 0}};
  std::vector<std::vector<uint8_t>> bytes; // two invocations appended per channel set
  for (const Case &c : cases) {
    SCOPED_TRACE("N " + std::to_string(c.n) + " K " + std::to_string(c.k));
    const QuantizedLinear layer = randomLayer(c.s, c.n, c.k, c.g, rng);
    GemvInvocation inv;
    inv.deliverPaddedRows = true;
    inv.padding = c.n % 2 ? GemvPaddingRecord::Saturate : GemvPaddingRecord::Zero;
    inv.reuseX = c.n % 3 == 0;
    bytes.clear();
    appendGemvChannelBytes(layer, c.s, inv, bytes);
    appendGemvChannelBytes(layer, c.s, inv, bytes);
    const auto words = gemvChannelWords(layer, c.s, inv);
    ASSERT_EQ(bytes.size(), words.size());
    for (size_t ch = 0; ch < words.size(); ++ch) {
      ASSERT_EQ(bytes[ch].size(), 2 * 64 * words[ch].size());
      for (size_t rep = 0; rep < 2; ++rep)
        for (size_t i = 0; i < words[ch].size(); ++i)
          for (size_t b = 0; b < 64; ++b)
            ASSERT_EQ(bytes[ch][rep * 64 * words[ch].size() + 64 * i + b],
                      uint8_t(words[ch][i][b / 4] >> (8 * (b % 4))))
                << "channel " << ch << " word " << i << " byte " << b;
    }
  }
}

TEST(GemvStream, WordCountFormula) {
  const GemvEngineShape s = wideShape();
  // 1 + ceil(B/6) + B*G + ceil(B*K/g/32): B = 13 (38 rows on 3 channels), G = 8.
  EXPECT_EQ(gemvWordsPerChannel(1024, 38, 32, s), 1 + 3 + 13 * 8 + 13);
  EXPECT_EQ(gemvWordsPerChannel(1024, 38, 0, s), 1 + 3 + 13 * 8);
  EXPECT_EQ(gemvWordsPerChannel(1024, 38, 128, s), 1 + 3 + 13 * 8 + 4);
  EXPECT_EQ(gemvWordsThroughBlock(0, 1024, 32, s), 1 + 8 + 1);
  EXPECT_EQ(gemvWordsThroughBlock(6, 1024, 32, s), 2 + 7 * 8 + 7);
}

TEST(GemvStream, Errors) {
  const GemvEngineShape s = smallShape();
  std::mt19937_64 rng(17);
  auto fieldOf = [&](const QuantizedLinear &layer, GemvInvocation inv = {}) -> std::string {
    try {
      gemvChannelWords(layer, s, inv);
    } catch (const Error &e) {
      return e.field();
    }
    return "no error";
  };
  EXPECT_EQ(fieldOf(randomLayer(s, 4, 136, 8, rng)), "K");          // above MaxK
  EXPECT_THROW(gemvWordsPerChannel(40, 4, 0, s), Error);            // not a multiple of KLanes
  EXPECT_EQ(fieldOf(randomLayer(s, 4, 96, 12, rng)), "group size"); // not a multiple of SegLanes
  EXPECT_THROW(gemvWordsPerChannel(96, 4, 24, s), Error); // neither multiple nor divisor of 16
  QuantizedLinear pc = randomLayer(s, 4, 32, 0, rng);
  pc.groupScales[2] = 3;
  EXPECT_EQ(fieldOf(pc), "groupScales"); // per channel: mantissas must be 1
  QuantizedLinear wide = randomLayer(s, 4, 32, 0, rng);
  wide.outputBits = 17;
  EXPECT_EQ(fieldOf(wide), "outputBits");
  QuantizedLinear biased = randomLayer(s, 4, 32, 0, rng);
  biased.bias[3] = int64_t(1) << 47;
  EXPECT_EQ(fieldOf(biased), "bias[3]");
  GemvInvocation port;
  port.yPort = 3;
  EXPECT_EQ(fieldOf(randomLayer(s, 4, 32, 0, rng), port), "y port");
  GemvInvocation announced;
  announced.nextX = GemvNextX{s.numX, 32};
  EXPECT_EQ(fieldOf(randomLayer(s, 4, 32, 0, rng), announced), "next x port");
  announced.nextX = GemvNextX{0, s.maxK + s.kLanes};
  EXPECT_EQ(fieldOf(randomLayer(s, 4, 32, 0, rng), announced), "next K");
  EXPECT_EQ(fieldOf(randomLayer(s, 5, 32, 0, rng)), "rows"); // 5 rows, Lanes 2, not padded
  GemvEngineShape bad = s;
  bad.segLanes = 32;
  EXPECT_THROW(checkGemvEngineShape(bad), Error);
  bad = s;
  bad.lanes = 3;
  EXPECT_THROW(checkGemvEngineShape(bad), Error);
}

} // namespace
} // namespace st::numerics
