// Unit tests of ITensorType: the text form round trip (docs/itensor.md's examples and random
// types), parse and verifier errors, the derived tensor shape, stream enumeration, the canonical
// stream form and itensor inference from tiled loop nests.
#include <gtest/gtest.h>

#include <random>

#include "ir/itensor_type.h"
#include "random_itensor.h"
#include "support/error.h"

using namespace st::ir;

namespace {

const char *kA = "itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>";
const char *kB = "itensor<4x2xf32, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>";
const char *kC = "itensor<4x2xf32, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>";

/// The error message of parsing `text`, or "" if it parses.
std::string parseError(const std::string &text) {
  try {
    parseITensorType(text);
  } catch (const st::Error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(ITensorType, DesignExamplesRoundTripByteExactly) {
  for (const char *text : {kA, kB, kC}) {
    ITensorType t = parseITensorType(text);
    EXPECT_EQ(t.toString(), text);
    EXPECT_EQ(t.tensorShape(), (std::vector<int64_t>{8, 8})) << text;
    EXPECT_EQ(parseITensorType(t.toString()), t);
  }
  ITensorType c = parseITensorType(kC);
  EXPECT_EQ(c.elementShape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(c.elementType, "f32");
  EXPECT_EQ(c.loops, (std::vector<ITensorLoop>{{4, 2}, {2, 1}, {2, 4}}));
  EXPECT_EQ(c.iterMap, (std::vector<std::optional<unsigned>>{2u, 0u}));
  EXPECT_EQ(c.dataDimOfLoop(1), std::nullopt);
  EXPECT_EQ(c.numTokens(), 16);
  EXPECT_EQ(parseITensorType(kA).numTokens(), 16);
  EXPECT_EQ(parseITensorType(kB).numTokens(), 8);
  EXPECT_NE(parseITensorType(kA), parseITensorType(kB));
}

TEST(ITensorType, AcceptsWhitespaceAndPrintsCanonically) {
  ITensorType t = parseITensorType(
      "  itensor< 4x2xbf16 ,iter_space :[ 4 , 2 ] * [2,4],iter_map:( d0 , d1 ) -> ( d1 , d0 ) > ");
  EXPECT_EQ(t.toString(), "itensor<4x2xbf16, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>");
}

TEST(ITensorType, ZeroLoopsAndConstantResults) {
  const char *one = "itensor<8x8xi8, iter_space: []*[], iter_map: ()->(0,0)>";
  ITensorType t = parseITensorType(one);
  EXPECT_EQ(t.toString(), one);
  EXPECT_EQ(t.numTokens(), 1);
  EXPECT_EQ(t.tensorShape(), (std::vector<int64_t>{8, 8}));
  const char *rows = "itensor<1x16xui4, iter_space: [3,4]*[5,1], iter_map: (d0,d1)->(d1,0)>";
  EXPECT_EQ(parseITensorType(rows).toString(), rows);
  EXPECT_EQ(parseITensorType(rows).tensorShape(), (std::vector<int64_t>{4, 16}));
}

TEST(ITensorType, RandomTypesRoundTrip) {
  const unsigned seed = 20250301;
  std::mt19937 rng(seed);
  std::cout << "seed " << seed << "\n";
  for (int i = 0; i < 300; ++i) {
    ITensorType t = random_types::randomITensorType(rng);
    std::string text = t.toString();
    ITensorType back = parseITensorType(text);
    ASSERT_EQ(back, t) << "type " << i << ": " << text;
    ASSERT_EQ(back.toString(), text) << "type " << i;
  }
}

TEST(ITensorType, ParseErrorsNameColumnAndExpectation) {
  struct Case {
    std::string text, want;
  };
  const std::vector<Case> cases{
      {"tensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>",
       "column 1: expected 'itensor', got 'tensor'"},
      {"itensor<2x2, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>",
       "column 12: expected 'x' after an element size, got ','"},
      {"itensor<2x2xq8, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>",
       "column 13: expected an element size or an element type"},
      {"itensor<2x2xf32 iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>",
       "column 17: expected ',' after the element type, got 'iter_space'"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2], iter_map: (d0,d1)->(d0,d1)>",
       "column 36: expected as many steps as trip counts (2), got 1 steps"},
      {"itensor<2x2xf32, iter_space: [4,0]*[2,2], iter_map: (d0,d1)->(d0,d1)>",
       "column 33: expected a trip count of at least 1, got 0"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d2)->(d0,d1)>",
       "column 57: expected loop dim 'd1', got 'd2'"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0)->(d0,0)>",
       "column 56: expected as many map dims as loops (2), got 1 dims"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d7)>",
       "column 66: expected a loop dim below d2, got 'd7'"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,1)>",
       "column 66: expected a map result (a loop dim d0..d1 or the constant 0), got '1'"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)",
       "column 69: expected '>' closing the itensor, got the end of the text"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)> x",
       "column 71: expected the end of the text, got 'x'"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1 >",
       "column 69: expected ',' or ')' after a map result, got '>'"},
      // Verifier errors, reported with the text and the field.
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d0)>",
       "iter_map result 1: expected each loop used at most once, got d0 again"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,3], iter_map: (d0,d1)->(d0,d1)>",
       "iter_map result 1: expected loop d1 to step by the element size 2 of data dim 1 (tiles "
       "abut exactly), got step 3"},
      {"itensor<2x2xf32, iter_space: [4,4]*[2,1], iter_map: (d0,d1)->(d0,d1)>",
       "got step 1"}, // overlapping tiles
      {"itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0)>",
       "iter_map: expected one result per element dimension (2), got 1"},
  };
  for (const auto &c : cases) {
    std::string err = parseError(c.text);
    EXPECT_NE(err.find(c.want), std::string::npos) << c.text << "\n  got: " << err;
    EXPECT_NE(err.find("itensor type '" + c.text + "'"), std::string::npos) << err;
  }
}

TEST(ITensorType, VerifierRejectsBadFields) {
  ITensorType t = parseITensorType(kC);
  t.iterMap[0] = 5;
  EXPECT_THROW(t.verify(), st::Error);
  t = parseITensorType(kC);
  t.loops[1].tripCount = 0;
  EXPECT_THROW(t.verify(), st::Error);
  t = parseITensorType(kC);
  t.elementType = "u8";
  EXPECT_THROW(t.verify(), st::Error);
  t = parseITensorType(kC);
  t.loops[1].step = 7; // a reuse loop's step is free
  EXPECT_NO_THROW(t.verify());
}

TEST(ITensorType, TensorShapeCheck) {
  ITensorType c = parseITensorType(kC);
  EXPECT_NO_THROW(checkCoversTensor(c, {8, 8}));
  try {
    checkCoversTensor(c, {8, 4});
    FAIL();
  } catch (const st::Error &e) {
    EXPECT_EQ(e.field(), "covered tensor");
    EXPECT_EQ(e.expected(), "shape 8x4, got 8x8");
  }
}

TEST(ITensorType, EnumeratesStreamOrder) {
  using Offsets = std::vector<std::vector<int64_t>>;
  Offsets a = enumerateTokenOffsets(parseITensorType(kA));
  EXPECT_EQ(Offsets(a.begin(), a.begin() + 5), (Offsets{{0, 0}, {0, 2}, {0, 4}, {0, 6}, {2, 0}}));
  EXPECT_EQ(enumerateTokenOffsets(parseITensorType(kB)),
            (Offsets{{0, 0}, {4, 0}, {0, 2}, {4, 2}, {0, 4}, {4, 4}, {0, 6}, {4, 6}}));
  Offsets c = enumerateTokenOffsets(parseITensorType(kC));
  ASSERT_EQ(c.size(), 16u);
  EXPECT_EQ(Offsets(c.begin(), c.begin() + 6),
            (Offsets{{0, 0}, {4, 0}, {0, 0}, {4, 0}, {0, 2}, {4, 2}}));
  // Element level: a 4x4 tensor in 2x2 tiles, column of tiles first.
  ITensorType t = parseITensorType("itensor<2x2xi8, iter_space: [2,2]*[2,2], "
                                   "iter_map: (d0,d1)->(d1,d0)>");
  EXPECT_EQ(enumerateElementOrder(t),
            (std::vector<int64_t>{0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15}));
  EXPECT_EQ(tokenElements(t, {2, 2}), (std::vector<int64_t>{10, 11, 14, 15}));
}

TEST(ITensorType, CanonicalStreamDropsUnitLoopsAndMergesReuse) {
  ITensorType t = parseITensorType("itensor<4x2xf32, iter_space: [1,4,3,2,2]*[4,2,5,7,4], "
                                   "iter_map: (d0,d1,d2,d3,d4)->(d4,d1)>");
  std::vector<std::vector<unsigned>> origin;
  ITensorType c = canonicalStream(t, &origin);
  EXPECT_EQ(c.toString(),
            "itensor<4x2xf32, iter_space: [4,6,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>");
  EXPECT_EQ(origin, (std::vector<std::vector<unsigned>>{{1}, {2, 3}, {4}}));
  EXPECT_TRUE(sameStream(t, c));
  EXPECT_EQ(enumerateTokenOffsets(t), enumerateTokenOffsets(c));
  EXPECT_FALSE(sameStream(parseITensorType(kB), parseITensorType(kC)));
  // A trip-1 mapped loop and the constant 0 stream alike.
  EXPECT_TRUE(sameStream(
      parseITensorType("itensor<8x2xf32, iter_space: [4,1]*[2,8], iter_map: (d0,d1)->(d1,d0)>"),
      parseITensorType("itensor<8x2xf32, iter_space: [4]*[2], iter_map: (d0)->(0,d0)>")));
}

TEST(ITensorType, InfersFromTiledLoops) {
  // Offsets [iv2, iv0] inside loops d0,d1,d2 (the paper's example, docs/sources.md §1) give
  // (d0,d1,d2)->(d2,d0).
  ITensorType t = inferITensorType({{4, 2}, {2, 1}, {2, 4}},
                                   {SliceOffset::loopIndex(2), SliceOffset::loopIndex(0)}, {4, 2},
                                   "f32", std::vector<int64_t>{8, 8});
  EXPECT_EQ(t.toString(), kC);
  // A whole-dim slice at constant offset 0.
  ITensorType rows = inferITensorType(
      {{4, 2}}, {SliceOffset::loopIndex(0), SliceOffset::constantValue(0)}, {2, 16}, "i8");
  EXPECT_EQ(rows.toString(), "itensor<2x16xi8, iter_space: [4]*[2], iter_map: (d0)->(d0,0)>");
  EXPECT_THROW(inferITensorType({{4, 2}},
                                {SliceOffset::loopIndex(0), SliceOffset::constantValue(3)}, {2, 16},
                                "i8"),
               st::Error);
  EXPECT_THROW(inferITensorType({{4, 2}},
                                {SliceOffset::loopIndex(1), SliceOffset::constantValue(0)}, {2, 16},
                                "i8"),
               st::Error);
  EXPECT_THROW(inferITensorType({{4, 3}}, {SliceOffset::loopIndex(0)}, {2}, "i8"), st::Error);
  EXPECT_THROW(
      inferITensorType({{4, 2}}, {SliceOffset::loopIndex(0)}, {2}, "i8", std::vector<int64_t>{16}),
      st::Error);
}
