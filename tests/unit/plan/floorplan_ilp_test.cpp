// The floorplan ILP (plan/floorplan_ilp.h) on small synthetic designs: every item in one SLR,
// every SLR within its budget of each resource, pinned items (the HBM's AXI masters) in their
// SLR, the boundaries within their SLL limits, the fewest crossing bits (a crossing of two
// boundaries counts twice), and one st::Error naming the resource and the SLR budgets when no
// assignment fits; the U55C's SLRs and boundaries as constraints/u55c.yaml gives them.
#include <string>

#include <gtest/gtest.h>

#include "passes/compile_state.h"
#include "plan/floorplan_ilp.h"
#include "support/error.h"

namespace {

using namespace st;
using plan::FloorplanProblem;

model::ResourceEstimate res(int64_t lut, int64_t dsp = 0, double bram = 0, int64_t uram = 0) {
  model::ResourceEstimate e;
  e.lut = lut;
  e.ff = 2 * lut;
  e.dsp = dsp;
  e.bram36 = bram;
  e.uram = uram;
  return e;
}

/// Three SLRs of 100 LUT / 200 FF / 10 DSP / 10 BRAM36 / 2 URAM, boundaries of `sll` bits.
FloorplanProblem device(int64_t sll = 1000) {
  FloorplanProblem p;
  p.where = "synthetic";
  for (const char *n : {"SLR0", "SLR1", "SLR2"})
    p.slrs.push_back({n, res(100, 10, 10, 2)});
  p.boundaryBits = {sll, sll};
  return p;
}

/// What every solution must satisfy, whatever the objective.
void expectValid(const FloorplanProblem &p, const plan::FloorplanSolution &s) {
  ASSERT_EQ(s.slrOf.size(), p.items.size());
  std::vector<model::ResourceEstimate> used(p.slrs.size());
  for (size_t i = 0; i < p.items.size(); ++i) {
    ASSERT_GE(s.slrOf[i], 0);
    ASSERT_LT(s.slrOf[i], int(p.slrs.size()));
    if (p.items[i].pinned >= 0)
      EXPECT_EQ(s.slrOf[i], p.items[i].pinned) << p.items[i].name << " is pinned";
    used[size_t(s.slrOf[i])] += p.items[i].resources;
  }
  for (size_t k = 0; k < p.slrs.size(); ++k) {
    const model::ResourceEstimate &b = p.slrs[k].budget;
    EXPECT_LE(used[k].lut, b.lut) << p.slrs[k].name;
    EXPECT_LE(used[k].ff, b.ff) << p.slrs[k].name;
    EXPECT_LE(used[k].dsp, b.dsp) << p.slrs[k].name;
    EXPECT_LE(used[k].bram36, b.bram36) << p.slrs[k].name;
    EXPECT_LE(used[k].uram, b.uram) << p.slrs[k].name;
    EXPECT_EQ(used[k].lut, s.used[k].lut);
  }
  std::vector<int64_t> bits(p.boundaryBits.size(), 0);
  int64_t weighted = 0;
  for (const auto &n : p.nets) {
    const int crossings = plan::netCrossings(n, s.slrOf);
    weighted += crossings * n.bits;
    int lo = s.slrOf[n.driver];
    for (size_t l : n.loads)
      lo = std::min(lo, s.slrOf[l]);
    for (int b = lo; b < lo + crossings; ++b)
      bits[size_t(b)] += n.bits;
  }
  for (size_t b = 0; b < bits.size(); ++b) {
    EXPECT_LE(bits[b], p.boundaryBits[b]) << "boundary " << b;
    EXPECT_EQ(bits[b], s.boundaryBits[b]) << "boundary " << b;
  }
  EXPECT_EQ(weighted, s.weightedBits);
}

TEST(FloorplanIlp, FitsTheBudgetsAndKeepsHbmMastersInSlr0) {
  FloorplanProblem p = device();
  // A DMA pinned to SLR0 feeding a chain of kernels too large for one SLR together.
  p.items.push_back({"dma", res(40, 0, 6), 0});
  for (int k = 0; k < 4; ++k)
    p.items.push_back({"kernel" + std::to_string(k), res(50, 4), -1});
  for (size_t k = 0; k + 1 < p.items.size(); ++k)
    p.nets.push_back({"s" + std::to_string(k), 64, k, {k + 1}});
  const plan::FloorplanSolution s = plan::solveFloorplan(p);
  expectValid(p, s);
  EXPECT_EQ(s.slrOf[0], 0);
  // 240 LUT in SLRs of 100: at least two boundaries' worth of cuts in a chain; the best keeps
  // the chain in order (each cut crosses one boundary once): 2 x 64 bits.
  EXPECT_EQ(s.weightedBits, 128);
}

TEST(FloorplanIlp, PutsConnectedItemsTogetherWhenTheyFit) {
  FloorplanProblem p = device();
  p.items.push_back({"dma", res(10), 0});
  p.items.push_back({"a", res(30), -1});
  p.items.push_back({"b", res(30), -1});
  p.nets.push_back({"wide", 512, 0, {1}});
  p.nets.push_back({"narrow", 8, 1, {2}});
  const plan::FloorplanSolution s = plan::solveFloorplan(p);
  expectValid(p, s);
  EXPECT_EQ(s.slrOf, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(s.weightedBits, 0);
}

TEST(FloorplanIlp, CountsACrossingOfTwoBoundariesTwiceAndABroadcastOnce) {
  FloorplanProblem p = device();
  p.items.push_back({"src", res(10), 0});
  p.items.push_back({"far", res(10), 2});
  p.items.push_back({"mid1", res(10), 1});
  p.items.push_back({"mid2", res(10), 1});
  p.nets.push_back({"long", 100, 0, {1}});           // SLR0 -> SLR2: 200
  p.nets.push_back({"broadcast", 10, 0, {2, 3, 1}}); // one net up to SLR2: 20
  const plan::FloorplanSolution s = plan::solveFloorplan(p);
  expectValid(p, s);
  EXPECT_EQ(s.weightedBits, 220);
  EXPECT_EQ(s.boundaryBits, (std::vector<int64_t>{110, 110}));
}

std::string errorOf(const FloorplanProblem &p) {
  try {
    plan::solveFloorplan(p);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

/// Two pinned SLR0 sources each feeding a 60-LUT kernel over 512 bits: only one kernel fits
/// beside them in SLR0, so the other's 512 bits cross SLR0-SLR1.
FloorplanProblem twoStreams(int64_t sll) {
  FloorplanProblem p = device(sll);
  p.items.push_back({"dma0", res(20), 0});
  p.items.push_back({"dma1", res(20), 0});
  p.items.push_back({"k0", res(60), -1});
  p.items.push_back({"k1", res(60), -1});
  p.nets.push_back({"w0", 512, 0, {2}});
  p.nets.push_back({"w1", 512, 1, {3}});
  return p;
}

TEST(FloorplanIlp, RespectsTheSllLimit) {
  const FloorplanProblem p = twoStreams(600);
  const plan::FloorplanSolution s = plan::solveFloorplan(p);
  expectValid(p, s);
  EXPECT_EQ(std::min(s.slrOf[2], s.slrOf[3]), 0);
  EXPECT_EQ(s.boundaryBits[0], 512);
  const std::string tight = errorOf(twoStreams(500));
  EXPECT_NE(tight.find("none fits"), std::string::npos) << tight;
  EXPECT_NE(tight.find("the SLL limits none"), std::string::npos) << tight;
  EXPECT_NE(tight.find("SLR0-SLR1 512 bits (limit 500)"), std::string::npos) << tight;
}

TEST(FloorplanIlp, KeepsOrderedPairsInOrder) {
  FloorplanProblem p = device();
  p.items.push_back({"dma", res(10), 0});
  for (int k = 0; k < 4; ++k)
    p.items.push_back({"ch" + std::to_string(k), res(45), -1});
  for (size_t k = 1; k < 4; ++k)
    p.ordered.push_back({k, k + 1});
  const plan::FloorplanSolution s = plan::solveFloorplan(p);
  expectValid(p, s);
  for (size_t k = 1; k < 4; ++k)
    EXPECT_LE(s.slrOf[k], s.slrOf[k + 1]);
}

TEST(FloorplanIlp, NamesTheResourceAndTheBudgetsWhenNothingFits) {
  FloorplanProblem p = device();
  for (int k = 0; k < 4; ++k)
    p.items.push_back({"dsp" + std::to_string(k), res(10, 8), -1}); // 32 DSP > 3 x 10
  const std::string total = errorOf(p);
  EXPECT_NE(total.find("floorplan DSP"), std::string::npos) << total;
  EXPECT_NE(total.find("SLR0 10, SLR1 10, SLR2 10"), std::string::npos) << total;

  FloorplanProblem pinned = device();
  pinned.items.push_back({"dma0", res(60), 0});
  pinned.items.push_back({"dma1", res(60), 0});
  const std::string slr0 = errorOf(pinned);
  EXPECT_NE(slr0.find("floorplan LUT of SLR0"), std::string::npos) << slr0;
  EXPECT_NE(slr0.find("AXI masters wired to HBM"), std::string::npos) << slr0;

  // Each fits an SLR and the sum fits the three, but no packing does: 4 x 7 DSP in SLRs of 10.
  FloorplanProblem packing = device();
  for (int k = 0; k < 4; ++k)
    packing.items.push_back({"k" + std::to_string(k), res(10, 7), -1});
  const std::string none = errorOf(packing);
  EXPECT_NE(none.find("none fits"), std::string::npos) << none;
  EXPECT_NE(none.find("tightest resource: DSP"), std::string::npos) << none;
  EXPECT_NE(none.find("SLR0 10, SLR1 10, SLR2 10"), std::string::npos) << none;
}

TEST(FloorplanIlp, ReadsTheU55cSlrsAndBoundaries) {
  const passes::DeviceConstraints d = passes::loadDeviceConstraints(ST_DEVICE_YAML);
  ASSERT_EQ(d.slrs.size(), 3u);
  EXPECT_TRUE(d.slrs[0].hbm);
  EXPECT_FALSE(d.slrs[1].hbm || d.slrs[2].hbm);
  int64_t lut = 0, ff = 0, dsp = 0, bram = 0, uram = 0;
  for (const auto &s : d.slrs) {
    lut += s.lut;
    ff += s.ff;
    dsp += s.dsp;
    bram += s.bram36;
    uram += s.uram;
  }
  // The SLRs add up to what the shell leaves the kernels.
  EXPECT_EQ(lut, d.availableLut);
  EXPECT_EQ(ff, d.availableFf);
  EXPECT_EQ(dsp, d.availableDsp);
  EXPECT_EQ(bram, d.availableBram36);
  EXPECT_EQ(uram, d.availableUram);
  EXPECT_EQ(d.sllPerBoundary, (std::vector<int64_t>{23040, 23040}));
}

} // namespace
