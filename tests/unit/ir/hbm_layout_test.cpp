// HbmTensorLayout against a C++ model of the hardware path: the DMA walks its loops word by
// word, the unpacker takes tokensPerRun tokens from each run of words (dropping the padding at a
// run's end). For random itensors, with reuse loops, the tokens that come out must be exactly
// the stream the itensor describes, element by element, and the bytes must be stored once.
#include <random>

#include <gtest/gtest.h>

#include "ir/dataflow_graph.h"
#include "ir/hbm_layout.h"
#include "random_itensor.h"
#include "support/error.h"

namespace {

using namespace st;

/// Word addresses of the DMA's iteration space in order.
std::vector<int64_t> dmaWordAddresses(const ir::HbmTensorLayout &L) {
  std::vector<int64_t> out;
  std::vector<int64_t> idx(L.loops.size(), 0);
  const int64_t total = L.wordsStreamed();
  for (int64_t n = 0; n < total; ++n) {
    int64_t addr = 0;
    for (size_t k = 0; k < L.loops.size(); ++k)
      addr += idx[k] * L.loops[k].strideBytes;
    out.push_back(addr);
    for (size_t k = L.loops.size(); k-- > 0;) {
      if (++idx[k] < L.loops[k].tripCount)
        break;
      idx[k] = 0;
    }
  }
  return out;
}

TEST(HbmLayout, DmaPlusUnpackerReproducesEveryRandomStream) {
  std::mt19937 rng(20261122);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    auto shape = ir::random_types::randomTensorShape(rng);
    std::string dtype = std::vector<std::string>{"i4", "i8", "i16", "ui8", "i32"}[trial % 5];
    ir::ITensorType t = ir::random_types::randomTypeOver(rng, shape, dtype);
    SCOPED_TRACE(t.toString());
    for (int64_t wordBits : {512, 64}) {
      ir::HbmTensorLayout L;
      try {
        L = ir::hbmLayoutOf(t, wordBits);
      } catch (const Error &) {
        continue; // token wider than the word
      }
      int64_t n = 1;
      for (int64_t d : shape)
        n *= d;
      std::vector<int64_t> values(static_cast<size_t>(n));
      const unsigned bits = ir::elementBits(dtype);
      const bool isSigned = dtype[0] == 'i';
      for (auto &v : values) {
        int64_t lo = isSigned ? -(int64_t{1} << (bits - 1)) : 0;
        int64_t hi = isSigned ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
        v = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
      }
      std::vector<uint8_t> image = ir::packTensor(L, values);
      ASSERT_EQ(image.size(), static_cast<size_t>(L.bytes()));
      EXPECT_EQ(ir::unpackTensor(L, image, isSigned), values);
      // Hardware path: words in DMA order, runs of wordsPerRun words, tokensPerRun tokens each.
      std::vector<int64_t> streamed;
      auto words = dmaWordAddresses(L);
      ASSERT_EQ(words.size() % static_cast<size_t>(L.wordsPerRun), 0u);
      for (size_t w0 = 0; w0 < words.size(); w0 += static_cast<size_t>(L.wordsPerRun))
        for (int64_t tok = 0; tok < L.tokensPerRun; ++tok) {
          int64_t bitInRun = tok * L.paddedTokenBits;
          int64_t byteAddr = words[w0 + static_cast<size_t>(bitInRun / wordBits)];
          int64_t bit = byteAddr * 8 + bitInRun % wordBits;
          for (int64_t e = 0; e < t.elementsPerToken(); ++e) {
            uint64_t v = 0;
            for (unsigned b = 0; b < bits; ++b, ++bit)
              if ((image.at(static_cast<size_t>(bit / 8)) >> (bit % 8)) & 1)
                v |= uint64_t{1} << b;
            if (isSigned && ((v >> (bits - 1)) & 1))
              v |= ~uint64_t{0} << bits;
            streamed.push_back(static_cast<int64_t>(v));
          }
        }
      std::vector<int64_t> expected;
      for (int64_t index : ir::enumerateElementOrder(t))
        expected.push_back(values[static_cast<size_t>(index)]);
      ASSERT_EQ(streamed, expected) << "word bits " << wordBits;
      ++checked;
    }
  }
  EXPECT_GT(checked, 600);
}

TEST(HbmLayout, ReuseLoopRevisitsOneRunWithStrideZero) {
  // bias[8] broadcast over 4 row tiles, 4 lanes per token: a reuse loop outside a 2-token run.
  ir::ITensorType t =
      ir::parseITensorType("itensor<4xi8, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1)>");
  ir::HbmTensorLayout L = ir::hbmLayoutOf(t);
  EXPECT_EQ(L.paddedTokenBits, 32);
  EXPECT_EQ(L.tokensPerRun, 2);
  EXPECT_EQ(L.wordsPerRun, 1);
  EXPECT_EQ(L.runs, 1);
  ASSERT_EQ(L.loops.size(), 2u);
  EXPECT_EQ(L.loops[0].tripCount, 4);
  EXPECT_EQ(L.loops[0].strideBytes, 0);
  EXPECT_EQ(L.loops[1].tripCount, 1);
  EXPECT_EQ(L.bytes(), 64);
}

} // namespace
