// Tests of the abstract dataflow timing model and simulator: the derived kernel curves reproduce
// every template model's D and L, a chain's makespan is the hand-computed one, FIFOs of depth 1
// halve throughput, memory sources on one pseudo-channel share its bandwidth, a GEMV beside a
// streaming sibling deadlocks with shallow FIFOs (named), and
// malformed graphs are st::Errors naming the edge or node.
#include "passes/dataflow_timing_sim.h"

#include "model/argmax_model.h"
#include "model/dma_stream_model.h"
#include "model/elementwise_model.h"
#include "model/linear_model.h"
#include "model/memory_read_model.h"
#include "model/norm_model.h"
#include "model/softmax_model.h"
#include "support/error.h"
#include "timing_graphs.h"

#include <gtest/gtest.h>

namespace st::passes {
namespace {

using namespace testing;

void expectCurvesMeetTiming(const std::string &name, const model::KernelTiming &t) {
  SCOPED_TRACE(name);
  const KernelCurves c = deriveKernelCurves(name, t);
  ASSERT_EQ(c.emitCycle.size(), size_t(t.outputTokens));
  EXPECT_EQ(c.emitCycle.front(), t.firstOutputDelay);
  EXPECT_EQ(c.emitCycle.back(), t.totalLatency);
  for (size_t p = 0; p < t.inputTokens.size(); ++p) {
    ASSERT_EQ(c.consumeCycle[p].size(), size_t(t.inputTokens[p]));
    for (int64_t k = 0; k < t.outputTokens; ++k) {
      const int64_t n = t.inputTokensNeeded[p](k);
      if (n > 0) // every output comes at least lambda after the last input it needs
        EXPECT_LE(c.consumeCycle[p][size_t(n - 1)] + c.lambda, c.emitCycle[size_t(k)]);
    }
  }
  EXPECT_GE(c.lambda, 1);
  EXPECT_GE(c.window, 1);
}

TEST(KernelCurves, ReproduceEveryTemplateModel) {
  expectCurvesMeetTiming("linear", model::linearTiming(model::LinearParams{}));
  model::LinearParams wide;
  wide.k = 512;
  wide.nOut = 64;
  expectCurvesMeetTiming("linear_wide", model::linearTiming(wide));
  expectCurvesMeetTiming("norm", model::normTiming(model::NormParams{}));
  expectCurvesMeetTiming("softmax", model::softmaxTiming(model::SoftmaxParams{}));
  expectCurvesMeetTiming("residual_add", model::residualAddTiming(model::ResidualAddParams{}));
  expectCurvesMeetTiming("activation", model::activationTiming(model::ActivationParams{}));
  expectCurvesMeetTiming("argmax", model::argmaxTiming(model::ArgmaxParams{}));
  expectCurvesMeetTiming("gemv", gemv(16, 16, 4));
}

TEST(KernelCurves, NormReadsItsSecondPassAfterItsFirst) {
  // st_norm's port 1 (the second pass) is needed only from D - lambda on: the input order keeps
  // the abstract kernel from swallowing it early, so the FIFO feeding it must hold the vector.
  model::NormParams p;
  p.n = 64;
  p.lanes = 4;
  const KernelCurves c = deriveKernelCurves("norm", model::normTiming(p));
  EXPECT_GE(c.consumeCycle[1].front(), c.consumeCycle[0].back());
  // A two-input join reads its inputs in step.
  const KernelCurves join = deriveKernelCurves("join", pipeline(8, 3, 2));
  EXPECT_EQ(join.consumeCycle[0], join.consumeCycle[1]);
}

TEST(KernelCurves, InconsistentTimingNamesTheNode) {
  model::KernelTiming t = gemv(16, 4, 5);
  t.firstOutputDelay = 10; // output 0 needs all 16 x tokens: impossible before cycle 16
  try {
    deriveKernelCurves("gemv_q", t);
    FAIL() << "expected st::Error";
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "node 'gemv_q'");
    EXPECT_EQ(e.field(), "firstOutputDelay");
  }
}

TEST(TimingSim, ChainMakespanIsTheHandComputedOne) {
  // read emits token 0 at 4; each stage pops one cycle after the push and emits D later:
  // k0 8, k1 14, k2 22, write 25; the last token T - 1 cycles later; makespan = 25 + T.
  const TimingGraph g = chainGraph(64);
  const TimingSimResult two = simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 2));
  ASSERT_FALSE(two.deadlock) << two.deadlockReport;
  EXPECT_EQ(two.makespan, 25 + 64);
  for (int64_t hw : two.highWater)
    EXPECT_LE(hw, 2);
  const TimingSimResult one = simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 1));
  ASSERT_FALSE(one.deadlock);
  EXPECT_GT(one.makespan, 25 + 64 + 60); // a depth-1 FIFO passes a token every other cycle
}

TEST(TimingSim, SourcesOnOnePseudoChannelShareItsBandwidth) {
  // Two memory sources of 400 words at 4 words per 5 cycles, each into a sink.
  auto graph = [](std::vector<int> a, std::vector<int> b) {
    TimingGraph g;
    const model::Cadence rate{4, 5};
    g.nodes.push_back({"a", model::memoryWordsTiming(400, 0, rate), nullptr, std::move(a)});
    g.nodes.push_back({"b", model::memoryWordsTiming(400, 0, rate), nullptr, std::move(b)});
    g.nodes.push_back({"sink_a", model::writeDmaStreamTiming(400), nullptr, {}});
    g.nodes.push_back({"sink_b", model::writeDmaStreamTiming(400), nullptr, {}});
    g.edges.push_back({"a_out", 0, 2, 0, 400, 512, 0});
    g.edges.push_back({"b_out", 1, 3, 0, 400, 512, 0});
    g.bandwidth.wordsPerCycle = 0.9; // the refill; a bucket of 2 words
    return g;
  };
  const std::vector<int64_t> depths(2, 4);
  const int64_t alone = simulateDataflowTiming(graph({}, {}), depths).makespan;
  EXPECT_NEAR(alone, 500, 3);
  // Each on a channel of its own: the refill (0.9) is above each source's rate: unchanged.
  EXPECT_EQ(simulateDataflowTiming(graph({0}, {1}), depths).makespan, alone);
  // Both on channel 0: 800 words at 0.9 a cycle.
  const TimingSimResult shared = simulateDataflowTiming(graph({0}, {0}), depths);
  ASSERT_FALSE(shared.deadlock) << shared.deadlockReport;
  EXPECT_NEAR(shared.makespan, 800 / 0.9, 4);
  // A source drawing from every channel (the engine's super-words) shares each of them.
  EXPECT_NEAR(simulateDataflowTiming(graph({0, 1}, {1}), depths).makespan, 800 / 0.9, 4);
  // Without a refill the channels are not modelled.
  TimingGraph off = graph({0}, {0});
  off.bandwidth.wordsPerCycle = 0;
  EXPECT_EQ(simulateDataflowTiming(off, depths).makespan, alone);
}

TEST(TimingSim, GemvBesideStreamingSiblingDeadlocksWithShallowFifos) {
  const TimingGraph g = gemvSiblingGraph(32);
  const TimingSimResult r = simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 2));
  ASSERT_TRUE(r.deadlock);
  EXPECT_EQ(r.blockedNode, "fork");
  EXPECT_EQ(r.blockedEdge, "fork->scale");
  EXPECT_NE(r.deadlockReport.find("node 'gemv' waits for token"), std::string::npos)
      << r.deadlockReport;
  // Deep FIFOs: no deadlock.
  const TimingSimResult deep =
      simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 1000));
  EXPECT_FALSE(deep.deadlock) << deep.deadlockReport;
}

void expectGraphError(const TimingGraph &g, const std::string &where, const std::string &field) {
  try {
    simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 2));
    FAIL() << "expected st::Error about " << where;
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), where) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(TimingSim, MalformedGraphsNameTheEdgeOrNode) {
  TimingGraph g = chainGraph(8);
  g.edges[1].tokens = 7;
  expectGraphError(g, "edge 'k0->k1'", "tokens");

  g = chainGraph(8);
  g.edges.push_back({"k2->k0", 3, 1, 0, 8, 32}); // second edge into k0's only port
  expectGraphError(g, "edge 'k2->k0'", "dstPort");

  g = chainGraph(8);
  g.edges.erase(g.edges.begin() + 2); // k1 -> k2 removed: k2's port has no edge
  expectGraphError(g, "node 'k2'", "input port 0");

  GraphBuilder b; // a -> c -> a: a cycle
  const size_t a = b.node("a", pipeline(4, 2));
  const size_t c = b.node("c", pipeline(4, 2));
  b.edge(a, c);
  b.edge(c, a);
  expectGraphError(b.graph(), "node 'a'", "edges");
}

} // namespace
} // namespace st::passes
