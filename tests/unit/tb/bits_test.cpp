// Unit tests of st::tb::Bits: widths across word boundaries, slices, masking, printing.
#include <gtest/gtest.h>

#include "bits.h"

using st::tb::Bits;

TEST(Bits, MasksToWidth) {
  Bits b(5, 0xff);
  EXPECT_EQ(b.toU64(), 0x1fu);
  EXPECT_EQ(Bits(64, ~0ull).toU64(), ~0ull);
  EXPECT_EQ(Bits(33, ~0ull).toU64(), 0x1ffffffffull);
}

TEST(Bits, SliceAcrossWords) {
  std::mt19937_64 rng(7);
  Bits wide = Bits::random(512, rng);
  Bits lane = wide.slice(60, 8);
  for (unsigned i = 0; i < 8; ++i)
    EXPECT_EQ(lane.bit(i), wide.bit(60 + i));
  Bits copy(512);
  for (unsigned lo = 0; lo < 512; lo += 64)
    copy.setSlice(lo, wide.slice(lo, 64));
  EXPECT_EQ(copy, wide);
}

TEST(Bits, EqualityIncludesWidth) {
  EXPECT_NE(Bits(8, 3), Bits(9, 3));
  EXPECT_EQ(Bits(8, 3), Bits(8, 0x103));
}

TEST(Bits, PrintsHexMostSignificantFirst) {
  EXPECT_EQ(Bits(8, 0x3f).toString(), "8'h3f");
  Bits b(72);
  b.setSliceU64(64, 8, 0xab);
  b.setSliceU64(0, 32, 1);
  EXPECT_EQ(b.toString(), "72'hab0000000000000001");
  EXPECT_EQ(Bits(40, 0).toString(), "40'h0");
}

TEST(Bits, OutOfRangeThrows) {
  Bits b(8);
  EXPECT_THROW(b.bit(8), std::out_of_range);
  EXPECT_THROW(b.slice(4, 5), std::out_of_range);
}
