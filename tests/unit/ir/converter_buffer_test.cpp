// Unit tests of converter-buffer inference: docs/itensor.md's b->c example (8x2, one shared
// loop), the paper's 64x64 example (16x64, reused 4 times), equal streams, mismatched tensors,
// and a brute-force check over random producer/consumer pairs: the true maximum of live
// elements of a converter simulated at element level never exceeds the inferred buffer, and
// equals it where the rule says the buffer is tight (see tightByRule below and docs/itensor.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ir/converter_buffer.h"
#include "random_itensor.h"
#include "support/error.h"

using namespace st::ir;

namespace {

const char *kA = "itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>";
const char *kB = "itensor<4x2xf32, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>";
const char *kC = "itensor<4x2xf32, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>";

ConverterBufferShape convert(const std::string &from, const std::string &to) {
  return inferConverterBuffer(parseITensorType(from), parseITensorType(to));
}

std::vector<std::vector<int64_t>> tokenElementLists(const ITensorType &t) {
  std::vector<std::vector<int64_t>> out;
  forEachToken(
      t, [&](int64_t, const std::vector<int64_t> &off) { out.push_back(tokenElements(t, off)); });
  return out;
}

/// The true maximum number of live elements of a converter between the two streams, simulated
/// at element level. Time is the producer's token index. The converter accepts producer tokens
/// in order and emits each consumer token (in order) as soon as every element it reads has
/// arrived. An element is live from the write that serves a read until that read. If the
/// producer writes an element n_p times and the consumer reads it n_c times (reuse loops), the
/// k-th read is served by write floor(k*n_p/n_c): repeated producer data serves the matching
/// repetition of the consumer (with n_p = 1 this is "live from its write until its last read").
/// An element written at time t and read at time t counts at t (it passes through the buffer).
int64_t trueMaxLiveElements(const ITensorType &producer, const ITensorType &consumer) {
  auto writes = tokenElementLists(producer);
  auto reads = tokenElementLists(consumer);
  int64_t numElements = 1;
  for (int64_t d : producer.tensorShape())
    numElements *= d;
  std::vector<std::vector<int64_t>> writeTimes(numElements);
  for (size_t p = 0; p < writes.size(); ++p)
    for (int64_t e : writes[p])
      writeTimes[e].push_back(static_cast<int64_t>(p));
  std::vector<int64_t> readCount(numElements, 0), readsDone(numElements, 0);
  for (const auto &tok : reads)
    for (int64_t e : tok)
      ++readCount[e];
  // live[t][e]: element e held at producer time t.
  std::vector<std::vector<char>> live(writes.size(), std::vector<char>(numElements, 0));
  int64_t time = 0;
  for (const auto &tok : reads) {
    std::vector<int64_t> serving;
    for (int64_t e : tok) {
      const auto &w = writeTimes[e];
      int64_t k = readsDone[e]++;
      serving.push_back(w[static_cast<size_t>(k * static_cast<int64_t>(w.size()) / readCount[e])]);
      time = std::max(time, serving.back());
    }
    for (size_t i = 0; i < tok.size(); ++i)
      for (int64_t t = serving[i]; t <= time; ++t)
        live[t][tok[i]] = 1;
  }
  int64_t best = 0;
  for (const auto &row : live)
    best = std::max<int64_t>(best, std::count(row.begin(), row.end(), 1));
  return best;
}

/// Where the rule claims its buffer is exactly what must be held (docs/itensor.md): a converter
/// is needed, the producer streams each element once per shared iteration (no reuse loop of the
/// canonical producer inside the shared loops), and at the moment the producer finishes the
/// first shared iteration no element of that block has been read for the last time, because
/// either (a) the consumer's first token of the block reads an element of the producer's last
/// token of the block, or (b) the consumer's first loop inside the shared ones is a reuse loop
/// (every element is read again after the first pass). Then every element of the block is live
/// at that moment.
bool tightByRule(const ITensorType &producer, const ITensorType &consumer,
                 const ConverterBufferShape &b) {
  if (!b.converterNeeded)
    return false;
  const unsigned shared = static_cast<unsigned>(b.sharedLoops.size());
  ITensorType p = canonicalStream(producer), c = canonicalStream(consumer);
  for (unsigned k = shared; k < p.numLoops(); ++k)
    if (!p.dataDimOfLoop(k))
      return false;
  if (shared < c.numLoops() && !c.dataDimOfLoop(shared))
    return true; // (b)
  auto pTokens = enumerateTokenOffsets(p);
  int64_t lastOfBlock = p.numTokens() / b.phases() - 1;
  auto last = tokenElements(p, pTokens[lastOfBlock]);
  auto first = tokenElements(c, enumerateTokenOffsets(c)[0]);
  for (int64_t e : first)
    if (std::find(last.begin(), last.end(), e) != last.end())
      return true; // (a)
  return false;
}

} // namespace

TEST(ConverterBuffer, DesignBToCIsOneColumnOfTiles) {
  ConverterBufferShape b = convert(kB, kC);
  EXPECT_TRUE(b.converterNeeded);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{8, 2})); // the paper's printed algorithm gives 8x8
  EXPECT_EQ(b.elements, 16);
  ASSERT_EQ(b.sharedLoops.size(), 1u);
  EXPECT_EQ(b.sharedLoops[0].tripCount, 4);
  EXPECT_EQ(b.sharedLoops[0].step, 2);
  EXPECT_EQ(b.sharedLoops[0].dataDim, 1u);
  EXPECT_EQ(b.phases(), 4);
  EXPECT_EQ(trueMaxLiveElements(parseITensorType(kB), parseITensorType(kC)), 16);
}

TEST(ConverterBuffer, PaperSecondExample64x64SharesOuterLoop) {
  // 16x16 tiles, row band outer on both sides; the consumer streams each band twice.
  ConverterBufferShape b =
      convert("itensor<16x16xf32, iter_space: [4,4]*[16,16], iter_map: (d0,d1)->(d0,d1)>",
              "itensor<16x16xf32, iter_space: [4,2,4]*[16,1,16], iter_map: (d0,d1,d2)->(d0,d2)>");
  EXPECT_TRUE(b.converterNeeded);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(b.elements, 1024);
  ASSERT_EQ(b.sharedLoops.size(), 1u);
  EXPECT_EQ(b.sharedLoops[0].dataDim, 0u);
  EXPECT_EQ(b.phases(), 4); // reused 4 times
}

TEST(ConverterBuffer, RowMajorToColumnMajorHoldsWholeTensor) {
  ConverterBufferShape b = convert(kA, kB);
  EXPECT_TRUE(b.converterNeeded);
  EXPECT_TRUE(b.sharedLoops.empty());
  EXPECT_EQ(b.shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(b.elements, 64);
  // Not tight: 2x2 tiles of a 4x4 tensor, row-major to column-major. At most 2 tiles are live
  // at once, but the ping-pong converter fills the whole block before draining it.
  ITensorType rows =
      parseITensorType("itensor<2x2xi8, iter_space: [2,2]*[2,2], iter_map: (d0,d1)->(d0,d1)>");
  ITensorType cols =
      parseITensorType("itensor<2x2xi8, iter_space: [2,2]*[2,2], iter_map: (d0,d1)->(d1,d0)>");
  EXPECT_EQ(inferConverterBuffer(rows, cols).elements, 16);
  EXPECT_EQ(trueMaxLiveElements(rows, cols), 8);
  EXPECT_FALSE(tightByRule(rows, cols, inferConverterBuffer(rows, cols)));
}

TEST(ConverterBuffer, SharesALoopOverAnInnerDataDimension) {
  // Column bands of a 4x8 tensor: rows of 2 elements in, the whole 4x2 band as one token out.
  // The shared loop maps data dim 1 while dim 0 is not shared at all.
  ITensorType p =
      parseITensorType("itensor<1x2xi8, iter_space: [4,4]*[2,1], iter_map: (d0,d1)->(d1,d0)>");
  ITensorType c = parseITensorType("itensor<4x2xi8, iter_space: [4]*[2], iter_map: (d0)->(0,d0)>");
  ConverterBufferShape b = inferConverterBuffer(p, c);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(b.sharedLoops.size(), 1u);
  EXPECT_EQ(b.elements, trueMaxLiveElements(p, c));
}

TEST(ConverterBuffer, SharedReuseLoopSurroundsTheBuffer) {
  // Both stream the 8x8 tensor twice, by 2-row bands; inside a band 2x2 tiles in, the whole
  // band out. The reuse loop and the band loop are shared: a 2x8 buffer filled 8 times.
  ITensorType p = parseITensorType(
      "itensor<2x2xi8, iter_space: [2,4,4]*[1,2,2], iter_map: (d0,d1,d2)->(d1,d2)>");
  ITensorType c =
      parseITensorType("itensor<2x8xi8, iter_space: [2,4]*[1,2], iter_map: (d0,d1)->(d1,0)>");
  ConverterBufferShape b = inferConverterBuffer(p, c);
  EXPECT_EQ(b.sharedLoops.size(), 2u);
  EXPECT_EQ(b.sharedLoops[0].dataDim, std::nullopt);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(b.phases(), 8);
  EXPECT_EQ(b.elements, trueMaxLiveElements(p, c));
  // Without the producer's reuse loop nothing is shared: the consumer's second pass needs the
  // whole tensor kept.
  p = parseITensorType("itensor<2x2xi8, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>");
  b = inferConverterBuffer(p, c);
  EXPECT_TRUE(b.sharedLoops.empty());
  EXPECT_EQ(b.elements, 64);
  EXPECT_EQ(trueMaxLiveElements(p, c), 64);
}

TEST(ConverterBuffer, EqualStreamsNeedNoConverter) {
  ConverterBufferShape b = convert(kC, kC);
  EXPECT_FALSE(b.converterNeeded);
  EXPECT_TRUE(b.shape.empty());
  EXPECT_EQ(b.elements, 0);
  EXPECT_TRUE(b.sharedLoops.empty());
  // Different text, same stream: a trip-1 loop and a reuse loop's step do not matter.
  EXPECT_FALSE(convert(kC, "itensor<4x2xf32, iter_space: [1,4,2,2]*[9,2,5,4], "
                           "iter_map: (d0,d1,d2,d3)->(d3,d1)>")
                   .converterNeeded);
}

TEST(ConverterBuffer, DifferentTensorsAreAnError) {
  try {
    convert(kB, "itensor<4x2xf32, iter_space: [2,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>");
    FAIL();
  } catch (const st::Error &e) {
    EXPECT_NE(e.field().find("consumer type"), std::string::npos);
    EXPECT_EQ(e.expected(), "an itensor over the producer's tensor 8x8xf32, got one over 8x4xf32");
  }
  EXPECT_THROW(
      convert(kB, "itensor<4x2xbf16, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>"),
      st::Error);
}

TEST(ConverterBuffer, RandomPairsNeverUndersizedAndTightWhereClaimed) {
  const unsigned seed = 77031;
  std::mt19937 rng(seed);
  int pairs = 0, converters = 0, withShared = 0, tight = 0, claimedTight = 0, fifo = 0;
  for (; converters < 500; ++pairs) {
    std::vector<int64_t> shape = random_types::randomTensorShape(rng);
    ITensorType p = random_types::randomTypeOver(rng, shape, "i8");
    unsigned prefix = random_types::chance(rng, 0.6)
                          ? static_cast<unsigned>(random_types::pick(rng, 0, p.numLoops()))
                          : 0;
    ITensorType c = random_types::randomTypeOver(rng, shape, "i8", &p, prefix);
    SCOPED_TRACE("seed " + std::to_string(seed) + " pair " + std::to_string(pairs) +
                 "\n  producer " + p.toString() + "\n  consumer " + c.toString());
    ConverterBufferShape b = inferConverterBuffer(p, c);
    bool sameTokens =
        p.elementShape == c.elementShape && enumerateTokenOffsets(p) == enumerateTokenOffsets(c);
    ASSERT_EQ(b.converterNeeded, !sameTokens);
    if (!b.converterNeeded) {
      ++fifo;
      continue;
    }
    ++converters;
    withShared += !b.sharedLoops.empty();
    int64_t live = trueMaxLiveElements(p, c);
    ASSERT_GE(b.elements, live) << "buffer " << b.elements << " < true max live " << live;
    tight += b.elements == live;
    if (tightByRule(p, c, b)) {
      ++claimedTight;
      ASSERT_EQ(b.elements, live) << "the rule claims tightness";
    }
  }
  std::cout << "seed " << seed << ": " << pairs << " pairs, " << fifo << " same stream, "
            << converters << " converters (" << withShared << " with shared loops); buffer == "
            << "true max live in " << tight << ", claimed tight by the rule in " << claimedTight
            << "\n";
  EXPECT_GE(claimedTight, 100);
  EXPECT_GE(withShared, 100);
}
