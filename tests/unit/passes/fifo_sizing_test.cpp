// Tests of FIFO sizing by LP on chains, a diamond with unequal arms, a residual around a
// three-kernel path, a fork/join and a GEMV beside a streaming sibling. Per graph, in the abstract
// timing simulator: LP depths never deadlock and never exceed the LP's predicted makespan; the
// makespan is within 2 % of `deep`; and the LP's FIFO bits are at most 1.25 x the bits of the
// depths a per-edge bisection (other edges at their LP depth) finds to stay within 2 % of deep.
// The LP solve time is printed. Also: conservative mode, budgets, errors.
#include "passes/fifo_sizing.h"

#include "support/error.h"
#include "timing_graphs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

namespace st::passes {
namespace {

using namespace testing;

struct NamedGraph {
  std::string name;
  sim::TimingGraph graph;
};

std::vector<NamedGraph> reconvergentGraphs() {
  return {{"chain", chainGraph(64)},
          {"diamond", diamondGraph(48)},
          {"residual", residualGraph(32)},
          {"fork_join", forkJoinGraph(40)},
          {"gemv_sibling", gemvSiblingGraph(32)},
          {"model_residual", modelResidualGraph()}};
}

bool withinTwoPercent(int64_t cycles, int64_t deepCycles) {
  return cycles * 100 <= deepCycles * 102;
}

/// Smallest depth in [2, upper] of edge e (others as in `depths`) that keeps the simulation
/// deadlock-free and within 2 % of `deepCycles`; upper must satisfy it.
int64_t bisectDepth(const sim::TimingGraph &g, const std::vector<sim::SharedCurves> &curves,
                    std::vector<int64_t> depths, size_t e, int64_t upper, int64_t deepCycles) {
  auto enough = [&](int64_t d) {
    depths[e] = d;
    const sim::TimingSimResult r = sim::simulateDataflowTiming(g, curves, depths);
    return !r.deadlock && withinTwoPercent(r.makespan, deepCycles);
  };
  int64_t lo = 2, hi = upper;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (enough(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

class FifoSizingOnGraph : public ::testing::TestWithParam<size_t> {};

TEST_P(FifoSizingOnGraph, LpDepthsAreSafeFastAndSmall) {
  const NamedGraph ng = reconvergentGraphs()[GetParam()];
  const sim::TimingGraph &g = ng.graph;
  const std::vector<sim::SharedCurves> curves = sim::deriveAllCurves(g);

  FifoSizingOptions deepOptions;
  deepOptions.mode = FifoSizingMode::Deep;
  const FifoSizingResult deep = sizeFifos(g, deepOptions);
  const sim::TimingSimResult deepSim = sim::simulateDataflowTiming(g, curves, deep.depths());
  ASSERT_FALSE(deepSim.deadlock) << deepSim.deadlockReport;

  const FifoSizingResult lp = sizeFifos(g);
  const sim::TimingSimResult lpSim = sim::simulateDataflowTiming(g, curves, lp.depths());
  ASSERT_FALSE(lpSim.deadlock) << ng.name << ": " << lpSim.deadlockReport;
  EXPECT_LE(lpSim.makespan, lp.predictedMakespan) << ng.name;
  EXPECT_TRUE(withinTwoPercent(lpSim.makespan, deepSim.makespan))
      << ng.name << ": lp " << lpSim.makespan << " cycles, deep " << deepSim.makespan;
  for (size_t e = 0; e < g.edges.size(); ++e) {
    EXPECT_GE(lp.edges[e].depth, 2);
    EXPECT_GE(lp.edges[e].delay, lp.edges[e].minDelay);
    // The schedule's FIFO bound holds in the simulation too (ASAP never holds more).
    EXPECT_LE(lpSim.highWater[e], lp.edges[e].depth) << g.edges[e].name;
  }

  int64_t searchedBits = 0;
  std::printf("[%s] LP solve %.6f s; predicted %lld cycles, simulated lp %lld, deep %lld\n",
              ng.name.c_str(), lp.solveSeconds, (long long)lp.predictedMakespan,
              (long long)lpSim.makespan, (long long)deepSim.makespan);
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const int64_t searched =
        bisectDepth(g, curves, lp.depths(), e, lp.edges[e].depth, deepSim.makespan);
    searchedBits += searched * g.edges[e].tokenBits;
    std::printf("  %-16s lp depth %4lld (delay %4lld >= %4lld)  searched %4lld  high-water %4lld\n",
                g.edges[e].name.c_str(), (long long)lp.edges[e].depth, (long long)lp.edges[e].delay,
                (long long)lp.edges[e].minDelay, (long long)searched,
                (long long)lpSim.highWater[e]);
  }
  std::printf("  total bits: lp %lld, searched %lld, deep %lld\n", (long long)lp.totalFifoBits,
              (long long)searchedBits, (long long)deep.totalFifoBits);
  EXPECT_LE(lp.totalFifoBits * 100, searchedBits * 125) << ng.name;

  // Conservative: safe for the slowed graph it sized, never more bits than lp here.
  FifoSizingOptions conservativeOptions;
  conservativeOptions.mode = FifoSizingMode::Conservative;
  const FifoSizingResult cons = sizeFifos(g, conservativeOptions);
  const sim::TimingSimResult consSim = sim::simulateDataflowTiming(cons.sizedGraph, cons.depths());
  ASSERT_FALSE(consSim.deadlock) << consSim.deadlockReport;
  EXPECT_LE(consSim.makespan, cons.predictedMakespan);
  std::printf("  conservative: %lld bits, predicted %lld cycles, simulated %lld\n",
              (long long)cons.totalFifoBits, (long long)cons.predictedMakespan,
              (long long)consSim.makespan);
}

INSTANTIATE_TEST_SUITE_P(Graphs, FifoSizingOnGraph, ::testing::Range<size_t>(0, 6),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                           return reconvergentGraphs()[info.param].name;
                         });

/// A random DAG: read DMAs, pipelines of 1-3 inputs (random D and II), norm-like kernels (the
/// whole input before output 0) and GEMV-like kernels with their own weight DMA, all streams of
/// `tokens` tokens; every node without a consumer gets a write DMA.
sim::TimingGraph randomGraph(std::mt19937 &rng, int64_t tokens) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  GraphBuilder b;
  std::vector<size_t> streams; // nodes whose output has `tokens` tokens
  std::vector<bool> consumed;
  auto use = [&](size_t producer, size_t consumer, size_t port) {
    b.edge(producer, consumer, port, 8 * pick(1, 8));
    consumed[producer] = true;
  };
  const int64_t reads = pick(1, 2);
  for (int64_t i = 0; i < reads; ++i) {
    streams.push_back(b.node("read" + std::to_string(i), dmaRead(tokens, pick(1, 10), pick(1, 2))));
    consumed.push_back(false);
  }
  const int64_t kernels = pick(3, 8);
  for (int64_t i = 0; i < kernels; ++i) {
    const std::string name = "k" + std::to_string(i);
    const int64_t kind = pick(0, 5);
    if (kind == 0) { // GEMV-like with a weight DMA
      const int64_t blockWords = pick(1, 4);
      const size_t w = b.node(name + "_w", dmaRead(tokens * blockWords, pick(1, 10)));
      consumed.push_back(true);
      const size_t k = b.node(name, gemv(tokens, tokens, blockWords, pick(1, 8)));
      consumed.push_back(false);
      use(streams[size_t(pick(0, int64_t(streams.size()) - 1))], k, 0);
      b.edge(w, k, 1, 64);
      streams.push_back(k);
    } else if (kind == 1) { // norm-like
      model::KernelTiming t = pipeline(tokens, tokens + pick(1, 6));
      t.inputTokensNeeded = {[tokens](int64_t) { return tokens; }};
      const size_t k = b.node(name, t);
      consumed.push_back(false);
      use(streams[size_t(pick(0, int64_t(streams.size()) - 1))], k, 0);
      streams.push_back(k);
    } else { // pipeline with 1-3 inputs
      const int ports = int(pick(1, 3));
      const size_t k = b.node(name, pipeline(tokens, pick(1, 40), ports, pick(1, 3)));
      consumed.push_back(false);
      for (int p = 0; p < ports; ++p)
        use(streams[size_t(pick(0, int64_t(streams.size()) - 1))], k, size_t(p));
      streams.push_back(k);
    }
  }
  for (size_t v : std::vector<size_t>(streams))
    if (!consumed[v]) {
      const size_t sink = b.node("write_" + b.graph().nodes[v].name, dmaWrite(tokens));
      consumed.push_back(true);
      b.edge(v, sink);
    }
  return b.graph();
}

TEST(FifoSizing, RandomGraphsNeverDeadlockAndStayWithinTwoPercentOfDeep) {
  std::mt19937 rng(20261122);
  double slowestSolve = 0;
  int64_t lpBits = 0, searchedBits = 0, withinBound = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const sim::TimingGraph g = randomGraph(rng, std::uniform_int_distribution<int64_t>(4, 40)(rng));
    const std::vector<sim::SharedCurves> curves = sim::deriveAllCurves(g);
    FifoSizingOptions deepOptions;
    deepOptions.mode = FifoSizingMode::Deep;
    const sim::TimingSimResult deep =
        sim::simulateDataflowTiming(g, curves, sizeFifos(g, deepOptions).depths());
    ASSERT_FALSE(deep.deadlock);
    const FifoSizingResult lp = sizeFifos(g);
    slowestSolve = std::max(slowestSolve, lp.solveSeconds);
    const sim::TimingSimResult sim = sim::simulateDataflowTiming(g, curves, lp.depths());
    ASSERT_FALSE(sim.deadlock) << sim.deadlockReport;
    EXPECT_LE(sim.makespan, lp.predictedMakespan);
    EXPECT_TRUE(withinTwoPercent(sim.makespan, deep.makespan))
        << sim.makespan << " vs deep " << deep.makespan;
    int64_t graphSearched = 0;
    for (size_t e = 0; e < g.edges.size(); ++e) {
      EXPECT_LE(sim.highWater[e], lp.edges[e].depth);
      graphSearched += g.edges[e].tokenBits *
                       bisectDepth(g, curves, lp.depths(), e, lp.edges[e].depth, deep.makespan);
    }
    // Not asserted per graph: the rigid per-node curves of the schedule cannot see that a
    // kernel behind a fork may be back-pressured at no cost (see docs/fifo-sizing.md).
    withinBound += lp.totalFifoBits * 100 <= graphSearched * 125 ? 1 : 0;
    lpBits += lp.totalFifoBits;
    searchedBits += graphSearched;
    FifoSizingOptions conservativeOptions;
    conservativeOptions.mode = FifoSizingMode::Conservative;
    const FifoSizingResult cons = sizeFifos(g, conservativeOptions);
    const sim::TimingSimResult consSim =
        sim::simulateDataflowTiming(cons.sizedGraph, cons.depths());
    ASSERT_FALSE(consSim.deadlock) << consSim.deadlockReport;
    EXPECT_LE(consSim.makespan, cons.predictedMakespan);
  }
  std::printf("40 random graphs: lp %lld bits, searched %lld bits (ratio %.3f), %lld graphs "
              "within 1.25x; slowest LP solve %.6f s\n",
              (long long)lpBits, (long long)searchedBits, double(lpBits) / double(searchedBits),
              (long long)withinBound, slowestSolve);
  // A regression guard on the aggregate (measured 1.285 when written).
  EXPECT_LE(lpBits * 100, searchedBits * 135);
}

TEST(FifoSizing, ShortArmHoldsWhatTheLongArmDelays) {
  // Diamond: the long arm adds 20 + 35 + 12 cycles of pipeline delay and 2 FIFO hops more than
  // the short arm's 5; at one token per cycle the short arm's FIFOs must hold about that many
  // tokens, and the long arm's need no more than a few.
  const sim::TimingGraph g = diamondGraph(128);
  const FifoSizingResult lp = sizeFifos(g);
  int64_t shortArm = 0, longArm = 0;
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const std::string &n = g.edges[e].name;
    if (n == "fork->b0" || n == "b0->join")
      shortArm += lp.edges[e].depth;
    if (n == "fork->a0" || n == "a0->a1" || n == "a1->a2" || n == "a2->join")
      longArm = std::max(longArm, lp.edges[e].depth);
  }
  std::printf("diamond short arm holds %lld tokens\n", (long long)shortArm);
  EXPECT_GE(shortArm, 20 + 35 + 12 - 5 - 8);
  EXPECT_LE(shortArm, 20 + 35 + 12 - 5 + 8);
  EXPECT_LE(longArm, 3);
}

TEST(FifoSizing, TokensInFlightCountsSnapshotOccupancy) {
  // Pushes at 0,1,2,3; pops at 1,2,3,4: one token waits each cycle -> depth 1 would block
  // (push i sees i - pops before its cycle = 1 token), so 2 never blocks.
  EXPECT_EQ(tokensInFlight({0, 1, 2, 3}, 0, {1, 2, 3, 4}, 0), 2);
  // Consumer starts 10 cycles later: all four pushed before any pop.
  EXPECT_EQ(tokensInFlight({0, 1, 2, 3}, 0, {1, 2, 3, 4}, 10), 4);
}

TEST(FifoSizing, InFlightCurveEqualsTokensInFlightAtEveryDelay) {
  // Random strictly increasing push and pop cycles with runs and gaps, every delay that matters.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 60;
    std::vector<int64_t> push, pop;
    int64_t a = int64_t(rng() % 5), b = int64_t(rng() % 5);
    for (size_t i = 0; i < n; ++i) {
      a += 1 + (rng() % 3 == 0 ? int64_t(rng() % 6) : 0);
      b += 1 + (rng() % 4 == 0 ? int64_t(rng() % 9) : 0);
      push.push_back(a);
      pop.push_back(b);
    }
    const InFlightCurve curve(push, pop);
    for (int64_t d = -push.back() - 3; d <= push.back() + 3; ++d)
      ASSERT_EQ(curve.at(d), tokensInFlight(push, 0, pop, d))
          << "trial " << trial << " delay " << d;
  }
}

TEST(FifoSizing, BudgetBelowTheCriticalPathNamesTheLastNode) {
  FifoSizingOptions options;
  options.maxMakespan = 50;
  try {
    sizeFifos(chainGraph(64), options);
    FAIL() << "expected st::Error";
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "node 'write'");
    EXPECT_EQ(e.field(), "makespan");
    EXPECT_NE(std::string(e.what()).find("at cycle 89"), std::string::npos) << e.what();
  }
}

TEST(FifoSizing, LooserBudgetNeverCostsMoreBitsAndIsKept) {
  const sim::TimingGraph g = gemvSiblingGraph(32);
  const FifoSizingResult tight = sizeFifos(g);
  FifoSizingOptions options;
  options.maxMakespan = tight.predictedMakespan * 3 / 2;
  const FifoSizingResult loose = sizeFifos(g, options);
  EXPECT_LE(loose.totalFifoBits, tight.totalFifoBits);
  EXPECT_LE(loose.predictedMakespan, options.maxMakespan);
  const sim::TimingSimResult sim = sim::simulateDataflowTiming(g, loose.depths());
  ASSERT_FALSE(sim.deadlock) << sim.deadlockReport;
  EXPECT_LE(sim.makespan, loose.predictedMakespan);
}

TEST(FifoSizing, ModesParseAndBadModeIsAnError) {
  EXPECT_EQ(parseFifoSizingMode("lp"), FifoSizingMode::Lp);
  EXPECT_EQ(parseFifoSizingMode("conservative"), FifoSizingMode::Conservative);
  EXPECT_EQ(parseFifoSizingMode("deep"), FifoSizingMode::Deep);
  EXPECT_THROW(parseFifoSizingMode("shallow", "--fifo-mode"), Error);
}

TEST(FifoSizing, MalformedGraphNamesTheEdge) {
  sim::TimingGraph g = diamondGraph(8);
  g.edges[3].tokenBits = 0;
  try {
    sizeFifos(g);
    FAIL() << "expected st::Error";
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "edge '" + g.edges[3].name + "'");
    EXPECT_EQ(e.field(), "tokenBits");
  }
}

} // namespace
} // namespace st::passes
