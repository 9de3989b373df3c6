// Prediction work (compiler/llm/prediction_work): for every full-size config of configs/ (shapes
// only), the simulations that compile's default design choices (attention's parallelism, the
// attention tile, the engine FIFO depth) and the step prediction of the chosen design run, held
// under a budget. The counts are exact (no timing), so the budget fails on a change that makes
// the prediction simulate more (e.g. a step simulated per context length), not on a slow machine.
#include "llm/prediction_work.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/decode_builder.h"
#include "llm/design_defaults.h"
#include "passes/compile_state.h"
#include "plan/attention_tile_choice.h"
#include "plan/engine_fifo_choice.h"
#include "plan/kv_step_choice.h"
#include "plan/llm_plan.h"

namespace st::llm {
namespace {

/// Step simulations and cycles simulated (in steps at the max context) a config's choices and
/// prediction may take: one simulation per candidate of the choices (at most 2 + 4 + 2) and per
/// reported step (at most 5), less those the prediction reuses from the choices, so at most 13
/// (2026-11-29: 6-11); the cycles: today's most (8.2 steps at the max context, Qwen2.5-0.5B) with
/// a fifth to spare. A change that makes the prediction simulate more (e.g. a step per context
/// length) fails them.
constexpr int64_t kSimulationBudget = 13;
constexpr int64_t kMaxContextStepsBudget = 10;

struct ConfigWork {
  PredictionWork work;
  int64_t maxContextCycles = 0;
};

ConfigWork choicesAndPrediction(const std::string &config) {
  const frontend::LoadedModel m = frontend::loadModel(config, frontend::WeightSource::ShapeOnly);
  // compile's defaults (llm/design_defaults.h): W4A8, the model's context, the share of each
  // of the U55C's resources.
  const model::ResourceEstimate budget =
      designBudget(passes::loadDeviceConstraints(ST_DEVICE_YAML));
  AcceleratorOptions o;
  o.maxContext = defaultMaxContext(m.program);
  const PredictionWork before = predictionWork();
  StepCache steps;
  plan::chooseAttentionParallelism(m.program, o, budget, &steps).applyTo(o);
  o.attentionTilePositions =
      plan::chooseAttentionTile(m.program, o, plan::kAttentionTileCandidates, budget, &steps);
  o.engineFifoWords =
      plan::chooseEngineFifoWords(m.program, o, plan::kEngineFifoCandidates, budget, {}, &steps);
  const plan::LlmStepPrediction p =
      plan::predictLlmSteps(plan::lowerLlmDesign(m.program, o), o, &steps);
  return {predictionWork().since(before), p.stepCycles.back()}; // the last: the max context
}

std::vector<std::string> configDirs() {
  std::vector<std::string> configs;
  for (const auto &entry : std::filesystem::directory_iterator(ST_CONFIG_DIR))
    configs.push_back(entry.path().string());
  std::sort(configs.begin(), configs.end());
  return configs;
}

/// One test per config of configs/ (so that ctest runs them side by side).
class PredictionWorkOfConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(PredictionWorkOfConfig, ChoicesAndPredictionStayWithinBudget) {
  const std::string config = GetParam();
  const ConfigWork c = choicesAndPrediction(config);
  const int64_t simulations = c.work.stepSimulations + c.work.blockSimulations;
  std::printf("%s: %lld step simulations, %lld layers, %lld cycles simulated (%.1f steps at the "
              "max context)\n",
              std::filesystem::path(config).filename().c_str(), (long long)simulations,
              (long long)c.work.layersSimulated, (long long)c.work.cyclesSimulated,
              double(c.work.cyclesSimulated) / double(c.maxContextCycles));
  EXPECT_GT(simulations, 0);
  EXPECT_LE(simulations, kSimulationBudget);
  EXPECT_LE(c.work.cyclesSimulated, kMaxContextStepsBudget * c.maxContextCycles);
}

TEST(PredictionWork, EveryConfigIsCovered) {
  EXPECT_GE(configDirs().size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(Configs, PredictionWorkOfConfig, ::testing::ValuesIn(configDirs()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name = std::filesystem::path(info.param).filename();
                           for (char &ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return name;
                         });

} // namespace
} // namespace st::llm
