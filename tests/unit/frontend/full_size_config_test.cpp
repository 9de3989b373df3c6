// The full-size configs under configs/ (GPT-2 Medium, Qwen2.5-0.5B, TinyLlama-1.1B,
// Llama-3.2-1B, Gemma-3-1B, Qwen3-1.7B, Mistral-7B-v0.3): each parses and builds a verified decode
// program from weight shapes alone; prints the build time and parameter count.
#include <chrono>
#include <iostream>

#include <gtest/gtest.h>

#include "frontend/decode_builder.h"

namespace st::frontend {
namespace {

struct Expected {
  const char *dir;
  int64_t layers;
  double paramsBillions; ///< approximate published size, incl. the embedding
};

class FullSizeConfig : public ::testing::TestWithParam<Expected> {};

TEST_P(FullSizeConfig, BuildsProgramFromShapes) {
  const Expected e = GetParam();
  const auto start = std::chrono::steady_clock::now();
  LoadedModel m = loadModel(std::string(ST_CONFIG_DIR) + "/" + e.dir, WeightSource::ShapeOnly);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(m.program.stages.at(1).repeat, e.layers);
  int64_t params = 0;
  for (const auto &[name, t] : m.weights.all())
    if (name.find('#') == std::string::npos) // derived copies (GPT-2) are not extra parameters
      params += t.numElements();
  EXPECT_NEAR(static_cast<double>(params) / 1e9, e.paramsBillions, 0.06 * e.paramsBillions);
  std::cout << e.dir << ": " << params << " parameters, program built in " << seconds << " s\n";
}

INSTANTIATE_TEST_SUITE_P(
    Configs, FullSizeConfig,
    ::testing::Values(Expected{"gpt2-medium", 24, 0.355}, Expected{"qwen2.5-0.5b", 24, 0.494},
                      Expected{"tinyllama-1.1b", 22, 1.10}, Expected{"llama-3.2-1b", 16, 1.236},
                      Expected{"gemma-3-1b", 26, 1.0}, Expected{"qwen3-1.7b", 28, 1.7},
                      Expected{"mistral-7b", 32, 7.25}));

} // namespace
} // namespace st::frontend
