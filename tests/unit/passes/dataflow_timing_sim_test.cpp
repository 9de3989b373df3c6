// Tests of the abstract dataflow timing model and simulator: the derived kernel curves reproduce
// every template model's D and L, a chain's makespan is the hand-computed one, FIFOs of depth 1
// halve throughput, memory sources on one pseudo-channel share its bandwidth, the sequenced
// engine reproduces the GEMV engine's exact model (announced x included), a fork as wiring
// (sim::TimingNode::wire) passes tokens in the cycle they arrive, a GEMV beside a
// streaming sibling deadlocks with shallow FIFOs (named), attention walks its cache before its
// late k_new and v_new exactly as the template's schedule says (buffered inputs), and
// malformed graphs are st::Errors naming the edge or node.
#include "sim/dataflow_timing_sim.h"

#include "model/argmax_model.h"
#include "model/attention_model.h"
#include "model/dma_stream_model.h"
#include "model/elementwise_model.h"
#include "model/gemv_engine_model.h"
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
  const sim::KernelCurves c = sim::deriveKernelCurves(name, t);
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
  const sim::KernelCurves c = sim::deriveKernelCurves("norm", model::normTiming(p));
  EXPECT_GE(c.consumeCycle[1].front(), c.consumeCycle[0].back());
  // A two-input join reads its inputs in step.
  const sim::KernelCurves join = sim::deriveKernelCurves("join", pipeline(8, 3, 2));
  EXPECT_EQ(join.consumeCycle[0], join.consumeCycle[1]);
}

TEST(KernelCurves, InconsistentTimingNamesTheNode) {
  model::KernelTiming t = gemv(16, 4, 5);
  t.firstOutputDelay = 10; // output 0 needs all 16 x tokens: impossible before cycle 16
  try {
    sim::deriveKernelCurves("gemv_q", t);
    FAIL() << "expected st::Error";
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "node 'gemv_q'");
    EXPECT_EQ(e.field(), "firstOutputDelay");
  }
}

TEST(TimingSim, ChainMakespanIsTheHandComputedOne) {
  // read emits token 0 at 4; each stage pops one cycle after the push and emits D later:
  // k0 8, k1 14, k2 22, write 25; the last token T - 1 cycles later; makespan = 25 + T.
  const sim::TimingGraph g = chainGraph(64);
  const sim::TimingSimResult two =
      sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 2));
  ASSERT_FALSE(two.deadlock) << two.deadlockReport;
  EXPECT_EQ(two.makespan, 25 + 64);
  for (int64_t hw : two.highWater)
    EXPECT_LE(hw, 2);
  const sim::TimingSimResult one =
      sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 1));
  ASSERT_FALSE(one.deadlock);
  EXPECT_GT(one.makespan, 25 + 64 + 60); // a depth-1 FIFO passes a token every other cycle
}

TEST(TimingSim, SourcesOnOnePseudoChannelShareItsBandwidth) {
  // Two memory sources of 400 words at 4 words per 5 cycles, each into a sink.
  auto graph = [](std::vector<int> a, std::vector<int> b) {
    sim::TimingGraph g;
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
  const int64_t alone = sim::simulateDataflowTiming(graph({}, {}), depths).makespan;
  EXPECT_NEAR(alone, 500, 3);
  // Each on a channel of its own: the refill (0.9) is above each source's rate: unchanged.
  EXPECT_EQ(sim::simulateDataflowTiming(graph({0}, {1}), depths).makespan, alone);
  // Both on channel 0: 800 words at 0.9 a cycle.
  const sim::TimingSimResult shared = sim::simulateDataflowTiming(graph({0}, {0}), depths);
  ASSERT_FALSE(shared.deadlock) << shared.deadlockReport;
  EXPECT_NEAR(shared.makespan, 800 / 0.9, 4);
  // A source drawing from every channel (the engine's super-words) shares each of them.
  EXPECT_NEAR(sim::simulateDataflowTiming(graph({0, 1}, {1}), depths).makespan, 800 / 0.9, 4);
  // Without a refill the channels are not modelled.
  sim::TimingGraph off = graph({0}, {0});
  off.bandwidth.wordsPerCycle = 0;
  EXPECT_EQ(sim::simulateDataflowTiming(off, depths).makespan, alone);
}

// The simulator's sequenced engine against the engine's exact model (the one the Verilator test
// of st_gemv_engine asserts), with ideal sources: fresh, reused and announced x (loaded while the
// call before streams), a call bound by its outputs, two x ports.
TEST(TimingSim, SequencedEngineIsTheEngineModelWithAnnouncedX) {
  model::GemvEngineShape shape;
  shape.channels = 4;
  shape.kLanes = 16;
  shape.segLanes = 8;
  shape.lanes = 2;
  shape.maxK = 128;
  shape.numX = 2;
  shape.numY = 2;
  struct Call {
    model::GemvEngineCall call;
    size_t xPort;
  };
  const std::vector<Call> calls = {
      {{64, 8, 0, false, true}, 0},    // announces the next x
      {{32, 16, 16, false, false}, 1}, // loaded early
      {{32, 8, 0, true, true}, 1},     // reuses; announces
      {{128, 24, 16, false, true}, 0}, // loaded early (longer than the call before)
      {{16, 12, 0, false, false}, 1},  // loaded early, bound by its outputs
      {{48, 4, 8, false, false}, 0},   // not announced: loads after its D
  };
  std::vector<model::GemvEngineCall> modelCalls;
  for (const Call &c : calls)
    modelCalls.push_back(c.call);
  const std::vector<model::GemvEngineCallTiming> expected =
      model::gemvEngineSequenceTiming(shape, modelCalls);

  auto engine = std::make_shared<sim::SequencedEngine>();
  engine->wordPort = 0;
  engine->outputPorts = 2;
  engine->outputDelay = model::kGemvOutputDelay;
  int64_t words = 0, outputs[2] = {0, 0}, xTokens[2] = {0, 0};
  for (size_t i = 0; i < calls.size(); ++i) {
    const model::GemvEngineCallTiming &t = expected[i];
    sim::SequencedEngine::Invocation inv;
    inv.xPort = 1 + calls[i].xPort;
    inv.xTokens = t.xTokens;
    inv.outputPort = i % 2;
    inv.preloadsNext = calls[i].call.preloadsNext;
    for (size_t b = 0; b < t.blockSuperWords.size(); ++b) {
      inv.blockWords.push_back(t.blockSuperWords[b] - 1);
      inv.blockTokens.push_back(t.blockTokens[b]);
      outputs[i % 2] += t.blockTokens[b];
    }
    words += t.superWords;
    xTokens[calls[i].xPort] += t.xTokens;
    engine->invocations.push_back(inv);
  }
  sim::TimingGraph g;
  model::KernelTiming et;
  et.inputTokens = {words, xTokens[0], xTokens[1]};
  et.inputTokensNeeded.assign(3, [](int64_t) { return int64_t(0); });
  et.outputTokens = outputs[0] + outputs[1];
  g.nodes.push_back({"engine", et, engine, {}});
  g.nodes.push_back({"words", model::readDmaStreamTiming(words, words), nullptr, {}});
  g.nodes.push_back({"x0", model::readDmaStreamTiming(xTokens[0], xTokens[0]), nullptr, {}});
  g.nodes.push_back({"x1", model::readDmaStreamTiming(xTokens[1], xTokens[1]), nullptr, {}});
  g.nodes.push_back({"y0", model::writeDmaStreamTiming(outputs[0]), nullptr, {}});
  g.nodes.push_back({"y1", model::writeDmaStreamTiming(outputs[1]), nullptr, {}});
  g.edges.push_back({"w", 1, 0, 0, words, 512, 0});
  g.edges.push_back({"x0", 2, 0, 1, xTokens[0], 16, 0});
  g.edges.push_back({"x1", 3, 0, 2, xTokens[1], 16, 0});
  g.edges.push_back({"y0", 0, 4, 0, outputs[0], 32, 0});
  g.edges.push_back({"y1", 0, 5, 0, outputs[1], 32, 1});
  const sim::TimingSimResult r =
      sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 4));
  ASSERT_FALSE(r.deadlock) << r.deadlockReport;
  const std::vector<int64_t> &wordCycles = r.consumeCycle[0][0];
  size_t wAt = 0, xAt[2] = {0, 0}, yAt = 0;
  int64_t announced = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    SCOPED_TRACE("call " + std::to_string(i));
    const model::GemvEngineCallTiming &t = expected[i];
    const int64_t d = wordCycles[wAt];
    if (i > 0)
      EXPECT_EQ(d, wordCycles[wAt - 1] + 1); // back to back, as the model assumes
    const std::vector<int64_t> &x = r.consumeCycle[0][1 + calls[i].xPort];
    for (int64_t k = 0; k < t.xTokens; ++k)
      EXPECT_EQ(x[xAt[calls[i].xPort] + size_t(k)] - d, t.xFirst + k) << "x token " << k;
    announced += t.xTokens > 0 && t.xFirst <= 0;
    for (size_t b = 0; b < t.blockLastWord.size(); ++b)
      EXPECT_EQ(wordCycles[wAt + size_t(t.blockSuperWords[b]) - 1] - d, t.blockLastWord[b]);
    for (size_t k = 0; k < t.outputs.size(); ++k)
      EXPECT_EQ(r.emitCycle[0][yAt + k] - d, t.outputs[k]) << "y token " << k;
    wAt += size_t(t.superWords);
    xAt[calls[i].xPort] += size_t(t.xTokens);
    yAt += t.outputs.size();
  }
  EXPECT_EQ(announced, 3); // calls 1, 3 and 4 took x before their descriptor
}

TEST(TimingSim, GemvBesideStreamingSiblingDeadlocksWithShallowFifos) {
  const sim::TimingGraph g = gemvSiblingGraph(32);
  const sim::TimingSimResult r =
      sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 2));
  ASSERT_TRUE(r.deadlock);
  EXPECT_EQ(r.blockedNode, "fork");
  EXPECT_EQ(r.blockedEdge, "fork->scale");
  EXPECT_NE(r.deadlockReport.find("node 'gemv' waits for token"), std::string::npos)
      << r.deadlockReport;
  // Deep FIFOs: no deadlock.
  const sim::TimingSimResult deep =
      sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 1000));
  EXPECT_FALSE(deep.deadlock) << deep.deadlockReport;
}

void expectGraphError(const sim::TimingGraph &g, const std::string &where,
                      const std::string &field) {
  try {
    sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 2));
    FAIL() << "expected st::Error about " << where;
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), where) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(TimingSim, AttentionWalksItsCacheBeforeItsLateKeyAndValue) {
  // st_attention fed q at once and k_new / v_new from late sources: its cache passes do not wait
  // for them (KernelTiming::inputBuffered), and its first output comes where the template's own
  // schedule (asserted against the RTL by tests/rtl/attention) puts it, given the cycles the
  // simulation took their last tokens in. Position-major and block-major.
  for (bool blockMajor : {false, true}) {
    for (int64_t kDelay : {0, 60, 200}) {
      for (int64_t vDelay : {0, 90, 300}) {
        SCOPED_TRACE("block-major " + std::to_string(blockMajor) + ", k_new from " +
                     std::to_string(kDelay) + ", v_new from " + std::to_string(vDelay));
        model::AttentionParams a;
        a.numHeads = 4;
        a.numKvHeads = 4;
        a.headDim = 16;
        a.lanes = 4;
        a.cacheLanes = 32; // two kv heads per cache token: two blocks
        a.maxContext = 128;
        a.blockMajor = blockMajor;
        a.cacheLength = 100;
        const model::KernelTiming t = model::attentionTiming(a);
        sim::TimingGraph g;
        const model::Cadence everyCycle{1, 1};
        const std::vector<int64_t> delays = {0, kDelay, vDelay, 0, 0};
        for (size_t p = 0; p < 5; ++p) {
          g.nodes.push_back({"in" + std::to_string(p),
                             model::memoryWordsTiming(t.inputTokens[p], delays[p], everyCycle),
                             nullptr,
                             {}});
          g.edges.push_back({"e" + std::to_string(p), p, 5, p, t.inputTokens[p], 32, 0});
        }
        g.nodes.push_back({"attention", t, nullptr, {}});
        g.nodes.push_back({"sink", model::writeDmaStreamTiming(t.outputTokens), nullptr, {}});
        g.edges.push_back({"out", 5, 6, 0, t.outputTokens, 32, 0});
        const sim::TimingSimResult r =
            sim::simulateDataflowTiming(g, std::vector<int64_t>(g.edges.size(), 1024));
        ASSERT_FALSE(r.deadlock) << r.deadlockReport;
        const std::vector<std::vector<int64_t>> &taken = r.consumeCycle[5];
        const int64_t start = taken[0].front();
        // The cache passes start with q, whatever k_new and v_new do.
        const model::AttentionSchedule ideal = model::attentionSchedule(a);
        EXPECT_EQ(taken[3].front() - start, ideal.scoreStart.front());
        a.kNewLastTaken = taken[1].back() - start;
        a.vNewLastTaken = taken[2].back() - start;
        const int64_t first = r.emitCycle[5].front() - start;
        const int64_t expected =
            model::attentionSchedule(a).firstOutputIssue + model::AttentionPipeline::kOutputStages;
        // Exact, except that what follows v_new's use keeps its ideal gap to it: where ideally
        // block 1's softmax starts its value pass (block-major) or the last block's (R, L) the
        // output, not the value pass before it, the simulation is up to that slack late once
        // v_new comes after its use.
        const int64_t segment = (a.cacheLength + 1) * ideal.segmentChunks;
        const int64_t slack =
            (blockMajor ? ideal.valueStart[1] - (ideal.valueStart[0] + segment) : 0) +
            ideal.firstOutputIssue -
            (ideal.valueStart.back() + segment - 1 + model::AttentionPipeline::kValueDrain);
        EXPECT_GE(first, expected);
        EXPECT_LE(first, expected + slack);
        if (vDelay == 0)
          EXPECT_EQ(first, expected);
      }
    }
  }
}

TEST(TimingSim, WireForksPassTokensInTheCycleTheyArrive) {
  // read -> fork -> {a, b} -> ...: as a nominal node (D = 1) the fork adds a cycle; as the RTL's
  // wiring between FIFOs (sim::TimingNode::wire) a token pushed in t is taken by the consumers in
  // t + 1 as if the FIFOs were one; a consumer whose FIFO is full holds every branch.
  auto graph = [](bool wire, int64_t slowII) {
    GraphBuilder b;
    const size_t read = b.node("read", dmaRead(16));
    const size_t fork = b.node("fork", model::passThroughTiming(16));
    b.edge(read, fork);
    const size_t a = b.node("a", pipeline(16, 3));
    const size_t c = b.node("c", pipeline(16, 3, 1, slowII));
    b.edge(fork, a);
    b.edge(fork, c);
    sim::TimingGraph g = b.graph();
    g.nodes[fork].wire = wire;
    return g;
  };
  const std::vector<int64_t> depths(3, 2);
  const sim::TimingSimResult nominal = sim::simulateDataflowTiming(graph(false, 1), depths);
  const sim::TimingSimResult wired = sim::simulateDataflowTiming(graph(true, 1), depths);
  ASSERT_FALSE(nominal.deadlock || wired.deadlock);
  EXPECT_EQ(wired.makespan, nominal.makespan - 1);
  // read emits token 0 at 4, the fork passes it on at 5, a takes it at 6 and emits at 9.
  EXPECT_EQ(wired.emitCycle[1].front(), 5);
  EXPECT_EQ(wired.consumeCycle[1][0].front(), 5);
  EXPECT_EQ(wired.emitCycle[2].front(), 9);
  // c takes a token every 4 cycles: the fork, and with it a, follow it.
  const sim::TimingSimResult held = sim::simulateDataflowTiming(graph(true, 4), depths);
  ASSERT_FALSE(held.deadlock);
  EXPECT_GE(held.emitCycle[2].back(), held.emitCycle[3].back() - 4 * 3);
  sim::TimingGraph bad = graph(true, 1);
  bad.nodes[0].wire = true; // a source cannot be a wire
  expectGraphError(bad, "node 'read'", "wire");
}

TEST(TimingSim, MalformedGraphsNameTheEdgeOrNode) {
  sim::TimingGraph g = chainGraph(8);
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
