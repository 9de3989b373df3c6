// Step prediction (compiler/llm/step_prediction): the HBM read DMA timing under the testbench
// memory's mean behaviour, the cached-row rule, the per-step table of a fixture (grows with the
// cache, stops growing on a sliding-window layer, slower memory is slower) and the per-run means
// sim prints beside the measured cycles.
#include "llm/step_prediction.h"

#include <gtest/gtest.h>

#include "frontend/decode_builder.h"
#include "model/dma_stream_model.h"
#include "support/error.h"

namespace st::llm {
namespace {

frontend::LoadedModel loadFixture(const std::string &name) {
  return frontend::loadModel(std::string(ST_FIXTURE_DIR) + "/" + name,
                             frontend::WeightSource::ShapeOnly);
}

TEST(StepPrediction, ReadDmaAtNominalMemoryIsTheNominalModel) {
  HbmTiming nominal;
  nominal.readLatency = model::kNominalHbmReadLatency;
  nominal.readLatencyJitter = 0;
  nominal.readyProbability = 1;
  nominal.kernelClockMhz = 0; // no bandwidth cap
  for (auto [tokens, words] : {std::pair<int64_t, int64_t>{8, 1}, {100, 100}, {300, 150}}) {
    const model::KernelTiming a = hbmReadDmaTiming(tokens, words, nominal);
    const model::KernelTiming b = model::readDmaStreamTiming(tokens, words);
    EXPECT_EQ(a.firstOutputDelay, b.firstOutputDelay);
    EXPECT_EQ(a.totalLatency, b.totalLatency);
    EXPECT_EQ(a.outputTokens, b.outputTokens);
  }
}

TEST(StepPrediction, ReadDmaTakesMeanLatencyAndWordRate) {
  HbmTiming hbm; // sim's defaults: 24 + U[0, 40], ready 0.8, 250 MHz
  EXPECT_DOUBLE_EQ(hbm.meanReadLatency(), 44);
  EXPECT_DOUBLE_EQ(hbm.wordsPerCycle(), 0.8); // below the 57.5 B / 64 B bandwidth cap
  hbm.readyProbability = 1;
  EXPECT_NEAR(hbm.wordsPerCycle(), 14.375e9 / 250e6 / 64, 1e-12);
  hbm.readyProbability = 0.5;
  // 100 one-word tokens at half a word per cycle: the last comes 200 cycles after the first
  // could, after the first burst's address merge (64), the mean latency (44) and 5 registers.
  const model::KernelTiming t = hbmReadDmaTiming(100, 100, hbm);
  EXPECT_EQ(t.totalLatency, 64 + 44 + 5 + 200 - 1);
  // 4 tokens per word: 25 words at 0.5 take 50 cycles, the 100 tokens 100: not slower.
  EXPECT_EQ(hbmReadDmaTiming(100, 25, hbm).totalLatency, 25 + 44 + 5 + 100 - 1);
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
    const HbmTiming hbm;
    const std::vector<int64_t> full = predictStepCycles(g, o, {}, 12, hbm);
    ASSERT_EQ(full.size(), 12u);
    EXPECT_EQ(full[0], full[1]); // step 0 reads no row, simulated as 1
    for (size_t t = 2; t < full.size(); ++t)
      EXPECT_GT(full[t], full[t - 1]) << "step " << t;
    // Every layer on a window of 4: from step 3 on each layer reads 3 rows.
    const std::vector<int64_t> windowed =
        predictStepCycles(g, o, std::vector<int64_t>(g.layers, 4), 12, hbm);
    for (size_t t = 0; t < 4; ++t)
      EXPECT_EQ(windowed[t], full[t]);
    for (size_t t = 4; t < windowed.size(); ++t)
      EXPECT_EQ(windowed[t], full[3]);
    // A slower memory (longer latency, fewer ready beats) is predicted slower.
    HbmTiming slow = hbm;
    slow.readLatency = 200;
    slow.readyProbability = 0.1;
    EXPECT_GT(predictStepCycles(g, o, {}, 4, slow)[3], full[3]);
    EXPECT_THROW(predictStepCycles(g, o, {}, o.maxContext + 1, hbm), Error);
    EXPECT_THROW(predictStepCycles(g, o, {0}, 4, hbm), Error);
  }
}

TEST(StepPrediction, RunMeansSplitPromptAndGeneratedSteps) {
  const std::vector<int64_t> table = {10, 20, 30, 40, 50, 60};
  const RunPrediction r = predictRun(table, 2, 4); // steps 0 .. 4
  EXPECT_EQ(r.stepCycles, (std::vector<int64_t>{10, 20, 30, 40, 50}));
  EXPECT_DOUBLE_EQ(r.promptCyclesPerToken, 15);
  EXPECT_DOUBLE_EQ(r.generatedCyclesPerToken, 40);
  EXPECT_DOUBLE_EQ(predictRun(table, 3, 1).generatedCyclesPerToken, 0);
  EXPECT_THROW(predictRun(table, 3, 5), Error); // 7 steps
  EXPECT_THROW(predictRun(table, 0, 2), Error);
}

} // namespace
} // namespace st::llm
