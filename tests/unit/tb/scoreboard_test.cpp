// Unit tests of st::tb::Scoreboard: the first mismatch, unexpected and missing tokens.
#include <gtest/gtest.h>

#include "scoreboard.h"

using st::tb::Bits;
using st::tb::Scoreboard;

TEST(Scoreboard, MatchesInOrder) {
  Scoreboard sb("s");
  sb.expect(Bits(8, 1));
  sb.expect(Bits(8, 2));
  sb.observe(Bits(8, 1));
  sb.observe(Bits(8, 2));
  EXPECT_EQ(sb.error(), "");
  EXPECT_EQ(sb.finalCheck(), "");
  EXPECT_EQ(sb.matched(), 2u);
}

TEST(Scoreboard, ReportsFirstMismatchWithIndex) {
  Scoreboard sb("out");
  sb.expect(Bits(8, 1));
  sb.expect(Bits(8, 2));
  sb.expect(Bits(8, 3));
  sb.observe(Bits(8, 1));
  sb.observe(Bits(8, 3));
  sb.observe(Bits(8, 9)); // later mismatches do not overwrite the first
  EXPECT_EQ(sb.error(), "out: token #1 mismatch: expected 8'h2, got 8'h3");
}

TEST(Scoreboard, UnexpectedAndMissingTokens) {
  Scoreboard extra("x");
  extra.observe(Bits(4, 5));
  EXPECT_EQ(extra.error(), "x: unexpected token #0 4'h5 (no more tokens expected)");
  Scoreboard missing("m");
  missing.expect(Bits(4, 5));
  EXPECT_EQ(missing.finalCheck(), "m: 1 token(s) never arrived; next is #0 4'h5");
}
