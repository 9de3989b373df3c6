// Unit tests of AffineMap: printing, parsing, evaluation, projected permutations.
#include <gtest/gtest.h>

#include "ir/affine_map.h"
#include "support/error.h"

using namespace st::ir;

TEST(AffineMap, RoundTripsText) {
  for (const char *text : {"(d0,d1)->(d0,d1)", "(d0,d1,d2)->(d2,d0)", "(d0,d1)->(d1+2,0)",
                           "(d0,d1)->(2*d0-d1,-3)", "()->()", "(d0)->()"}) {
    AffineMap m = parseAffineMap(text);
    EXPECT_EQ(m.toString(), text);
    EXPECT_EQ(parseAffineMap(m.toString()), m);
  }
}

TEST(AffineMap, ParsesSpacesAndEvaluates) {
  AffineMap m = parseAffineMap("(d0, d1, d2) -> (d2 + 1, 4*d0)");
  EXPECT_EQ(m.evaluate({3, 5, 7}), (std::vector<int64_t>{8, 12}));
  EXPECT_FALSE(m.isProjectedPermutation());
  EXPECT_TRUE(parseAffineMap("(d0,d1,d2)->(d2,d0)").isProjectedPermutation());
  EXPECT_FALSE(parseAffineMap("(d0,d1)->(d0,d0)").isProjectedPermutation());
}

TEST(AffineMap, RejectsMalformedTextWithPosition) {
  EXPECT_THROW(parseAffineMap("(d0,d1)->(d2)"), st::Error);
  EXPECT_THROW(parseAffineMap("(d1)->(d1)"), st::Error);
  EXPECT_THROW(parseAffineMap("(d0)->(d0"), st::Error);
  try {
    parseAffineMap("(d0)->(x)");
    FAIL();
  } catch (const st::Error &e) {
    EXPECT_NE(std::string(e.what()).find("column 8"), std::string::npos) << e.what();
  }
}
