// Step prediction (compiler/llm/step_prediction): the HBM read DMA's memory and DMA stages under
// the testbench memory's mean behaviour, the cached-row rule, the steps of a fixture (grow with
// the cache, stop growing on a sliding-window layer, slower memory is slower), a step as its
// stages' or its whole simulation, the steps compile reports and the per-run means sim prints
// beside the measured cycles; the engine's channels folded into groups the same reads share (each
// channel's refill runs ahead of the K/V channels' by its FIFO).
#include "llm/engine_channel_groups.h"
#include "llm/engine_step_prediction.h"
#include "llm/step_prediction.h"
#include "plan/kv_step_choice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "frontend/decode_builder.h"
#include "model/dma_stream_model.h"
#include "plan/llm_plan.h"
#include "sim/memory_stages.h"
#include "support/error.h"

namespace st::llm {
namespace {

frontend::LoadedModel loadFixture(const std::string &name) {
  return frontend::loadModel(std::string(ST_FIXTURE_DIR) + "/" + name,
                             frontend::WeightSource::ShapeOnly);
}

TEST(StepPrediction, MemoryRateIsTheBucketsStationaryRate) {
  model::MemoryTiming hbm; // sim's defaults: 24 + U[0, 40], ready 0.8, 250 MHz
  EXPECT_DOUBLE_EQ(hbm.meanReadLatency(), 44);
  // A beat needs the ready draw (0.8) and a full beat in the channel's bucket (57.5 B a cycle,
  // 128 B at most): 0.7808 beats per cycle in a 2-million-cycle Monte Carlo of tb/axi_memory's
  // rule, not the 0.8 of the ready draw alone (2.4 % of a full-size GPT-2 step).
  EXPECT_NEAR(hbm.wordsPerCycle(), 0.7808, 0.0005);
  hbm.readyProbability = 1; // the cap alone: 57.5 / 64
  EXPECT_NEAR(hbm.wordsPerCycle(), 57.5 / 64, 1e-4);
  hbm.kernelClockMhz = 0; // no cap: the ready draw
  hbm.readyProbability = 0.8;
  EXPECT_DOUBLE_EQ(hbm.wordsPerCycle(), 0.8);
  const model::Cadence c = model::cadenceOf(0.8);
  EXPECT_EQ(c.tokens, 4);
  EXPECT_EQ(c.cycles, 5);
  const model::Cadence cap = model::cadenceOf(57.5 / 64);
  EXPECT_EQ(cap.tokens, 115);
  EXPECT_EQ(cap.cycles, 128);
  // 4 of every 5 cycles: the gaps 1, 1, 1, 2 repeat.
  const model::KernelTiming t = model::memoryWordsTiming(9, 10, c);
  EXPECT_EQ(t.totalLatency, 10 + 10);
  EXPECT_EQ(t.gapBefore(4), 2);
  EXPECT_EQ(t.gapBefore(5), 1);
}

/// A read DMA of `words` one-word tokens (the weights) and a one-token source (x, first token
/// at cycle `wait`) feeding a GEMV-like consumer: output k needs x and weight k; then a sink.
sim::TimingGraph lateConsumerGraph(int64_t words, int64_t wait) {
  sim::TimingGraph g;
  g.nodes.push_back({"dma", model::readDmaStreamTiming(words, words)});
  model::KernelTiming x;
  x.firstOutputDelay = wait;
  x.outputTokens = 1;
  x.totalLatency = wait;
  g.nodes.push_back({"x", x});
  model::KernelTiming consumer;
  consumer.firstOutputDelay = 2;
  consumer.outputTokens = words;
  consumer.totalLatency = 2 + words - 1;
  consumer.inputTokens = {1, words};
  consumer.inputTokensNeeded = {[](int64_t) { return 1; }, [](int64_t k) { return k + 1; }};
  g.nodes.push_back({"consumer", consumer});
  g.nodes.push_back({"sink", model::writeDmaStreamTiming(words)});
  g.edges.push_back({"x->consumer", 1, 2, 0, 1, 32});
  g.edges.push_back({"dma->consumer", 0, 2, 1, words, 32});
  g.edges.push_back({"consumer->sink", 2, 3, 0, words, 32});
  return g;
}

TEST(StepPrediction, MemoryStagesAtNominalMemoryAreTheNominalDma) {
  model::MemoryTiming nominal;
  nominal.readLatency = model::kNominalHbmReadLatency;
  nominal.readLatencyJitter = 0;
  nominal.readyProbability = 1;
  nominal.kernelClockMhz = 0; // no bandwidth cap
  for (int64_t words : {1, 40, 300}) {
    const sim::TimingGraph g = lateConsumerGraph(words, 2);
    const sim::TimingSimResult plain = sim::simulateDataflowTiming(g, {2, 2, 2});
    sim::TimingGraph split = g;
    std::vector<int64_t> depths = {2, 2, 2};
    sim::addMemoryStages(split, depths, {{0, words, model::memoryStartDelay(words, nominal)}},
                         model::cadenceOf(nominal.wordsPerCycle()));
    const sim::TimingSimResult staged = sim::simulateDataflowTiming(split, depths);
    EXPECT_EQ(staged.makespan, plain.makespan) << words << " words";
  }
}

TEST(StepPrediction, MemoryRatePacesAConsumerThatStartsLate) {
  // The consumer waits 5000 cycles for x; the DMA fills its buffer and FIFO meanwhile and then
  // can deliver only at the memory's rate: the 2000 words at 0.5 take ~2 cycles each once the
  // buffer is drained, not one (a late start at one word per cycle hid this at full size).
  model::MemoryTiming half;
  half.readyProbability = 0.5;
  const sim::TimingGraph g = lateConsumerGraph(2000, 5000);
  std::vector<int64_t> depths = {2, 2, 2};
  sim::TimingGraph split = g;
  sim::addMemoryStages(split, depths, {{0, 2000, 0}}, model::cadenceOf(half.wordsPerCycle()));
  const sim::TimingSimResult r = sim::simulateDataflowTiming(split, depths);
  ASSERT_FALSE(r.deadlock) << r.deadlockReport;
  const int64_t buffered = model::kReadDmaBufferWords + 2;
  // The buffer drains at 1 - 0.5 words per cycle: 2 x buffered words at one per cycle, the rest
  // at the memory's half word per cycle.
  EXPECT_NEAR(double(r.makespan), 5000 + 2.0 * buffered + 2.0 * (2000 - 2 * buffered), 8.0);
}

TEST(StepPrediction, AFullBufferRestartsAfterABurstsRoomAndTheReadLatency) {
  // As above, but the DMA the full buffer stopped issues its next burst only once 64 words of
  // the buffer are free, and that burst's first word comes a read latency later (the testbench
  // memory; st_read_dma_stream): the supply restarts 64 + 46 cycles after the consumer starts,
  // not the next cycle, and the consumer, faster than the memory, ends that much later.
  model::MemoryTiming half;
  half.readyProbability = 0.5;
  const sim::TimingGraph g = lateConsumerGraph(2000, 5000);
  auto makespan = [&](int64_t restartDelay) {
    std::vector<int64_t> depths = {2, 2, 2};
    sim::TimingGraph split = g;
    sim::MemoryRead read{0, 2000, 0};
    read.restartDelay = restartDelay;
    sim::addMemoryStages(split, depths, {read}, model::cadenceOf(half.wordsPerCycle()));
    const sim::TimingSimResult r = sim::simulateDataflowTiming(split, depths);
    EXPECT_FALSE(r.deadlock) << r.deadlockReport;
    return r.makespan;
  };
  EXPECT_NEAR(double(makespan(46) - makespan(0)), 64 + 46, 4.0);
}

TEST(StepPrediction, CachedRowsFollowTheWindowRule) {
  EXPECT_EQ(cachedRowsAt(0, 0), 0);
  EXPECT_EQ(cachedRowsAt(0, 17), 17);
  EXPECT_EQ(cachedRowsAt(4, 2), 2);
  EXPECT_EQ(cachedRowsAt(4, 3), 3);
  EXPECT_EQ(cachedRowsAt(4, 9), 3);
}

TEST(StepPrediction, StepTableGrowsWithTheCacheAndStopsAtTheWindow) {
  for (const char *fixture : {"qwen2_tiny_mqa", "gemma3_tiny"}) {
    SCOPED_TRACE(fixture);
    const frontend::LoadedModel m = loadFixture(fixture);
    AcceleratorOptions o;
    o.maxContext = 24;
    const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
    const model::MemoryTiming hbm;
    const std::vector<int64_t> first12 = runSteps(12, 1);
    const std::vector<int64_t> full = predictStepCycles(g, o, {}, first12, hbm);
    ASSERT_EQ(full.size(), 12u);
    EXPECT_EQ(full[0], full[1]); // step 0 reads no row, simulated as 1
    for (size_t t = 2; t < full.size(); ++t)
      EXPECT_GT(full[t], full[t - 1]) << "step " << t;
    // Every layer on a window of 4: from step 3 on each layer reads 3 rows.
    const std::vector<int64_t> windowed =
        predictStepCycles(g, o, std::vector<int64_t>(g.layers, 4), first12, hbm);
    for (size_t t = 0; t < 4; ++t)
      EXPECT_EQ(windowed[t], full[t]);
    for (size_t t = 4; t < windowed.size(); ++t)
      EXPECT_EQ(windowed[t], full[3]);
    // A slower memory (longer latency, fewer ready beats) is predicted slower.
    model::MemoryTiming slow = hbm;
    slow.readLatency = 200;
    slow.readyProbability = 0.1;
    EXPECT_GT(predictStepCycles(g, o, {}, {3}, slow)[0], full[3]);
    EXPECT_THROW(predictStepCycles(g, o, {}, {o.maxContext}, hbm), Error);
    EXPECT_THROW(predictStepCycles(g, o, {}, {-1}, hbm), Error);
    EXPECT_THROW(predictStepCycles(g, o, {0}, {3}, hbm), Error);
  }
}

/// A full-size config of configs/ (shapes only).
frontend::LoadedModel configShapes(const std::string &config) {
  return frontend::loadModel(std::string(ST_CONFIG_DIR) + "/" + config,
                             frontend::WeightSource::ShapeOnly);
}

TEST(StepPrediction, AStepOfAPerOpDesignIsItsStagesSimulatedAtEachLayersRows) {
  // gemma3_tiny: sliding-window and global layers read different rows at the same step.
  const frontend::LoadedModel m = loadFixture("gemma3_tiny");
  AcceleratorOptions o;
  o.engine = LinearEngine::PerOp;
  o.maxContext = m.program.maxPositions;
  const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
  const std::vector<int64_t> windows = plan::layerWindowsOf(m.program);
  const model::MemoryTiming hbm;
  const std::vector<int64_t> steps = {0, 1, 5, o.maxContext / 2, o.maxContext - 1};
  const std::vector<int64_t> predicted = predictStepCycles(g, o, windows, steps, hbm);
  ASSERT_EQ(predicted.size(), steps.size());
  StageTimer prologue(g, o, 0, hbm), block(g, o, 1, hbm), epilogue(g, o, 2, hbm);
  for (size_t i = 0; i < steps.size(); ++i) {
    int64_t expected = prologue.cyclesAt(1) + epilogue.cyclesAt(1);
    for (int64_t l = 0; l < g.layers; ++l)
      expected += block.cyclesAt(std::max<int64_t>(1, cachedRowsAt(windows[size_t(l)], steps[i])));
    EXPECT_EQ(predicted[i], expected) << "step " << steps[i];
  }
}

TEST(StepPrediction, EngineStepsPredictedTogetherEqualEachAlone) {
  // The steps of one call run side by side on one timer; each must be its own simulation.
  for (const char *fixture : {"llama_tiny_gqa", "gemma3_tiny"}) {
    SCOPED_TRACE(fixture);
    const frontend::LoadedModel m = loadFixture(fixture);
    AcceleratorOptions o;
    o.engine = LinearEngine::Gemv;
    o.maxContext = m.program.maxPositions;
    // Every kv head per cache token (striped when a token outgrows a bus word), as compile
    // chooses for the fixtures.
    o.attentionKvStep = plan::attentionKvHeads(m.program);
    const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
    const std::vector<int64_t> windows = plan::layerWindowsOf(m.program);
    const model::MemoryTiming hbm;
    const std::vector<int64_t> steps = {o.maxContext - 1, 0, 1, 7, o.maxContext / 2, 7};
    const std::vector<int64_t> together = predictStepCycles(g, o, windows, steps, hbm);
    ASSERT_EQ(together.size(), steps.size());
    for (size_t i = 0; i < steps.size(); ++i)
      EXPECT_EQ(together[i],
                EngineStepTimer(g, o, windows, hbm).cyclesAt(std::max<int64_t>(1, steps[i])))
          << "step " << steps[i];
    EXPECT_EQ(together[1], together[2]); // step 0 reads no row: simulated as step 1
    EXPECT_LT(together[2], together[0]);
  }
}

TEST(StepPrediction, CompileReportsTheStepOfEachReferenceContext) {
  EXPECT_EQ(reportedSteps(4096), (std::vector<int64_t>{63, 511, 1023, 2047, 4095}));
  EXPECT_EQ(reportedSteps(2048), (std::vector<int64_t>{63, 511, 1023, 2047}));
  EXPECT_EQ(reportedSteps(1000), (std::vector<int64_t>{63, 511, 999}));
  EXPECT_EQ(reportedSteps(64), (std::vector<int64_t>{63}));
  EXPECT_EQ(reportedSteps(24), (std::vector<int64_t>{23}));
}

TEST(StepPrediction, TheEnginePrefetchFifoStreamsTheWeightsOnThroughAttention) {
  // Llama-3.2-1B as compile chooses it (2 of 8 kv heads per token, 3 packed pairs, block-major;
  // KvStepChoice asserts that choice)
  // at cache length 1023, where attention's passes take ~6 k cycles a layer: a 1,024-word
  // prefetch FIFO fills within them and stops the weight stream, a 4,096-word one (URAM) holds
  // the channel's words through them. (At 511 the gain is under 1 % since attention's walk
  // overlaps the k and v calls: 439,964 against 444,297 cycles.)
  const frontend::LoadedModel m = configShapes("llama-3.2-1b");
  AcceleratorOptions o;
  o.engine = LinearEngine::Gemv;
  o.maxContext = 1024;
  o.attentionKvStep = 2;
  o.enginePackedPairs = 3;
  o.attentionBlockMajor = true;
  auto cyclesWithFifo = [&](int64_t words) {
    o.engineFifoWords = words;
    const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
    for (ir::NodeId d : g.engine.channelDmas)
      for (ir::StreamId s : g.dataflow.streamsFrom({d, 0}))
        EXPECT_EQ(g.dataflow.stream(s).fifoDepth, words) << g.dataflow.stream(s).name;
    return EngineStepTimer(g, o, {}, model::MemoryTiming{}).cyclesAt(1023);
  };
  const int64_t shallow = cyclesWithFifo(1024), deep = cyclesWithFifo(4096);
  std::printf("llama-3.2-1b at cache length 1023: %lld cycles with 1,024-word FIFOs, %lld with "
              "4,096\n",
              (long long)shallow, (long long)deep);
  EXPECT_LT(static_cast<double>(deep), 0.99 * static_cast<double>(shallow));
}

/// The cycle sink `sink` (a node of `r`'s graph) took its last token.
int64_t lastTaken(const sim::TimingSimResult &r, size_t sink) {
  return r.consumeCycle.at(sink).at(0).back();
}

TEST(StepPrediction, AReadThatGoesFirstTakesItsChannelsWordsAhead) {
  // Three reads of 400 words into sinks: a and b on channel 0, c on channel 1; a's second 200
  // words lie on channel 1 (block channels). Channels refill 0.5 words a cycle.
  auto run = [](bool aFirst) {
    sim::TimingGraph g;
    for (const char *name : {"a", "b", "c"})
      g.nodes.push_back({name, model::readDmaStreamTiming(400, 400)});
    for (const char *name : {"a_sink", "b_sink", "c_sink"})
      g.nodes.push_back({name, model::writeDmaStreamTiming(400)});
    for (size_t i = 0; i < 3; ++i)
      g.edges.push_back({"e" + std::to_string(i), i, i + 3, 0, 400, 512});
    std::vector<int64_t> depths(3, 2);
    sim::MemoryRead a{0, 400, 0}, b{1, 400, 0}, c{2, 400, 0};
    a.channels = {0};
    a.blockChannels = {{0}, {1}};
    a.blockWords = 200;
    a.first = aFirst;
    b.channels = {0};
    c.channels = {1};
    g.bandwidth.wordsPerCycle = 0.5;
    sim::addMemoryStages(g, depths, {a, b, c}, model::cadenceOf(1.0));
    const sim::TimingSimResult r = sim::simulateDataflowTiming(g, depths);
    EXPECT_FALSE(r.deadlock);
    return std::vector<int64_t>{lastTaken(r, 3), lastTaken(r, 4), lastTaken(r, 5)};
  };
  const std::vector<int64_t> shared = run(false), first = run(true);
  // In turn: a and b share channel 0 (a's 200 words and b's, 800 cycles), then a and c share
  // channel 1; first, a takes channel 0 alone (400 cycles), then channel 1 (400 more).
  EXPECT_NEAR(first[0], 800, 10);
  EXPECT_GT(shared[0], first[0] + 150);
  // b gets channel 0 back when a moves on: it ends no later than it did sharing.
  EXPECT_LE(first[1], shared[1] + 10);
  // c waits for a's second block alone on channel 1.
  EXPECT_GT(first[2], 1000);
  std::printf("a, b, c done at %lld, %lld, %lld (in turn) and %lld, %lld, %lld (a first)\n",
              (long long)shared[0], (long long)shared[1], (long long)shared[2], (long long)first[0],
              (long long)first[1], (long long)first[2]);
}

TEST(StepPrediction, EngineChannelsGroupByTheReadsThatShareThem) {
  // GPT-2 Medium's caches: 8 K slices on channels 4j, 8 V slices on 4j + 2, two layers' reads of
  // each: the K channels, the weights-only channels and the V channels refill apart.
  std::vector<sim::MemoryRead> reads(4);
  for (int j = 0; j < 8; ++j)
    for (int layer = 0; layer < 2; ++layer) {
      reads[static_cast<size_t>(2 * layer)].channels.push_back(4 * j);
      reads[static_cast<size_t>(2 * layer + 1)].channels.push_back(4 * j + 2);
    }
  std::vector<std::vector<int>> expected(3);
  for (int c = 0; c < 32; ++c)
    expected[c % 4 == 0 ? 0 : c % 4 == 2 ? 2 : 1].push_back(c);
  EXPECT_EQ(engineChannelGroups(reads, 32), expected);
  // A read on one more channel splits its group; channels past the engine's are ignored.
  reads[0].channels.push_back(1);
  reads[0].channels.push_back(40);
  const std::vector<std::vector<int>> split = engineChannelGroups(reads, 32);
  ASSERT_EQ(split.size(), 4u);
  EXPECT_EQ(split[1], std::vector<int>({1}));
  // No reads: one group, every channel in lockstep.
  EXPECT_EQ(engineChannelGroups({}, 4), std::vector<std::vector<int>>({{0, 1, 2, 3}}));
}

TEST(StepPrediction, RunMeansSplitPromptAndGeneratedSteps) {
  EXPECT_EQ(runSteps(2, 4), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  const RunPrediction r = predictRun({10, 20, 30, 40, 50}, 2, 4); // steps 0 .. 4
  EXPECT_EQ(r.stepCycles, (std::vector<int64_t>{10, 20, 30, 40, 50}));
  EXPECT_DOUBLE_EQ(r.promptCyclesPerToken, 15);
  EXPECT_DOUBLE_EQ(r.generatedCyclesPerToken, 40);
  EXPECT_DOUBLE_EQ(predictRun({10, 20, 30}, 3, 1).generatedCyclesPerToken, 0);
  EXPECT_THROW(predictRun({10, 20, 30, 40, 50}, 3, 4), Error); // 6 steps
  EXPECT_THROW(predictRun({}, 0, 1), Error);
  // A run resuming at step 3 (a prefilled KV cache): steps 3 .. 5, one prompt step.
  EXPECT_EQ(runSteps(1, 3, 3), (std::vector<int64_t>{3, 4, 5}));
  const RunPrediction resumed = predictRun({40, 50, 60}, 1, 3);
  EXPECT_DOUBLE_EQ(resumed.promptCyclesPerToken, 40);
  EXPECT_DOUBLE_EQ(resumed.generatedCyclesPerToken, 55);
}

} // namespace
} // namespace st::llm
