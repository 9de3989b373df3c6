// Unit tests of numerics/embedding: the gathered row against hand-computed values (rounding,
// saturation, Gemma's sqrt(hidden) folded into the scale), the HBM image layout, the errors.
#include "numerics/embedding.h"

#include "support/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace st::numerics {
namespace {

QuantizedEmbedding smallTable() {
  QuantizedEmbedding t;
  t.rows = 3;
  t.dim = 70; // two HBM words per row, the second one mostly padding
  for (size_t i = 0; i < t.rows * t.dim; ++i)
    t.codes.push_back(int8_t(int(i * 37 % 256) - 128));
  t.outputScale = FixedScale{3u << 22, 23}; // 1.5
  t.outputBits = 8;
  return t;
}

TEST(Embedding, GatherRoundsHalfAwayFromZeroAndSaturates) {
  QuantizedEmbedding t = smallTable();
  t.codes[t.dim + 0] = 1;    // 1.5 -> 2
  t.codes[t.dim + 1] = -1;   // -1.5 -> -2
  t.codes[t.dim + 2] = 100;  // 150 -> 127
  t.codes[t.dim + 3] = -128; // -192 -> -128
  t.codes[t.dim + 4] = 0;
  const std::vector<int32_t> y = embeddingGather(t, 1);
  ASSERT_EQ(y.size(), 70u);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[1], -2);
  EXPECT_EQ(y[2], 127);
  EXPECT_EQ(y[3], -128);
  EXPECT_EQ(y[4], 0);
}

TEST(Embedding, GemmaNormalizerFoldsIntoTheScale) {
  const FixedScale s = embeddingScale(0.01, std::sqrt(2304.0), 0.25); // 0.01 * 48 / 0.25 = 1.92
  EXPECT_NEAR(s.value(), 1.92, 1e-6);
}

TEST(Embedding, ImageHasOneZeroPaddedRowPer64Bytes) {
  const QuantizedEmbedding t = smallTable();
  EXPECT_EQ(embeddingRowBytes(70), 128u);
  EXPECT_EQ(embeddingRowBytes(64), 64u);
  const std::vector<uint8_t> image = embeddingImage(t);
  ASSERT_EQ(image.size(), 3u * 128u);
  for (size_t r = 0; r < 3; ++r)
    for (size_t b = 0; b < 128; ++b)
      EXPECT_EQ(image[r * 128 + b], b < 70 ? uint8_t(t.codes[r * 70 + b]) : 0) << r << " " << b;
}

TEST(Embedding, RejectsBadIdsAndTables) {
  QuantizedEmbedding t = smallTable();
  try {
    embeddingGather(t, 3);
    FAIL() << "no error for an id past the vocabulary";
  } catch (const Error &e) {
    EXPECT_EQ(e.field(), "token id");
  }
  t.codes.pop_back();
  EXPECT_THROW(embeddingImage(t), Error);
}

} // namespace
} // namespace st::numerics
