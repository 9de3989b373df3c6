// Decode-program builders: program structure (stages, bindings, per-layer attributes), missing
// and misshapen weights reported with file and tensor, RoPE frequency scaling.
#include "frontend/decode_builder.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "frontend/safetensors_reader.h"
#include "support/error.h"
#include "test_files.h"

namespace st::frontend {
namespace {

using namespace st::frontend::testing;

nlohmann::json fixtureConfig(const std::string &name) {
  std::ifstream in(std::string(ST_FIXTURE_DIR) + "/" + name + "/config.json");
  nlohmann::json j;
  in >> j;
  return j;
}

TEST(DecodeBuilder, Gpt2ProgramHasThreeStagesAndTiedHead) {
  LoadedModel m = loadModel(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny");
  ASSERT_EQ(m.program.stages.size(), 3u);
  EXPECT_EQ(m.program.stages[1].repeat, m.config.numLayers);
  EXPECT_EQ(m.program.stages[2].bindings[0].weights.at("lm_head.weight"), "transformer.wte.weight");
  EXPECT_EQ(m.program.stages[1].bindings[1].weights.at("q_proj.weight"),
            "transformer.h.1.attn.c_attn.weight#q^T");
  // The transposed split matches the Conv1D layout: Wk[n][k] = c_attn[k][h + n], everywhere.
  const WeightStore raw = readModelWeights(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny");
  const auto &fused = raw.get("transformer.h.1.attn.c_attn.weight");
  const auto &k = m.weights.get("transformer.h.1.attn.c_attn.weight#k^T");
  const int64_t h = m.config.hiddenSize;
  ASSERT_EQ(k.data.size(), static_cast<size_t>(h * h));
  for (int64_t n = 0; n < h; ++n)
    for (int64_t i = 0; i < h; ++i)
      ASSERT_EQ(k.data[static_cast<size_t>(n * h + i)],
                fused.data[static_cast<size_t>(i * 3 * h + h + n)])
          << "row " << n << " col " << i;
  const auto &down = m.weights.get("transformer.h.1.mlp.c_proj.weight#^T");
  const auto &downFused = raw.get("transformer.h.1.mlp.c_proj.weight");
  const int64_t inner = m.config.intermediateSize;
  for (int64_t n = 0; n < h; ++n)
    for (int64_t i = 0; i < inner; ++i)
      ASSERT_EQ(down.data[static_cast<size_t>(n * inner + i)],
                downFused.data[static_cast<size_t>(i * h + n)]);
  // The fused originals keep their shapes but not their values (each weight is held once).
  EXPECT_TRUE(m.weights.get("transformer.h.1.attn.c_attn.weight").data.empty());
  EXPECT_EQ(m.weights.get("transformer.h.1.attn.c_attn.weight").shape,
            (std::vector<int64_t>{h, 3 * h}));
  EXPECT_NE(m.program.toString().find("attention {heads=4 kv_heads=4 head_dim=12"),
            std::string::npos);
}

TEST(DecodeBuilder, MissingTensorNamesFileAndTensor) {
  nlohmann::json j = fixtureConfig("gpt2_tiny");
  j["n_layer"] = 3;
  ModelConfig c = parseModelConfig(j.dump(), "config.json");
  WeightStore w = readModelWeights(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny");
  expectError([&] { buildDecodeProgram(c, w); },
              {"gpt2_tiny/model.safetensors", "tensor 'transformer.h.2.", "missing"});
}

TEST(DecodeBuilder, WrongShapeNamesFileTensorAndShapes) {
  nlohmann::json j = fixtureConfig("gpt2_tiny");
  j["n_inner"] = 100;
  ModelConfig c = parseModelConfig(j.dump(), "config.json");
  WeightStore w = readModelWeights(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny");
  expectError([&] { buildDecodeProgram(c, w); },
              {"gpt2_tiny/model.safetensors", "tensor 'transformer.h.0.mlp.c_fc.weight' shape",
               "[48,100], got [48,192]"});
}

TEST(DecodeBuilder, Llama3RopeScalingFollowsTransformers) {
  RopeScaling s;
  s.type = RopeScaling::Type::Llama3;
  s.factor = 8;
  s.lowFreqFactor = 1;
  s.highFreqFactor = 4;
  s.originalMaxPositions = 16;
  const std::vector<double> plain = ropeFrequencies(8, 500000.0, RopeScaling{});
  const std::vector<double> scaled = ropeFrequencies(8, 500000.0, s);
  // Wavelengths 2pi/f: j=0 is 6.28, between 16/4 and 16/1: smoothed; j>=1 exceed 16: divided
  // by the factor.
  const double smooth = (16 / (2 * M_PI / plain[0]) - 1) / (4 - 1);
  EXPECT_NEAR(scaled[0], (1 - smooth) * plain[0] / 8 + smooth * plain[0], 1e-12);
  EXPECT_NEAR(scaled[0], 0.576056, 1e-6);
  for (int j = 1; j < 4; ++j)
    EXPECT_DOUBLE_EQ(scaled[static_cast<size_t>(j)], plain[static_cast<size_t>(j)] / 8);
}

} // namespace
} // namespace st::frontend
