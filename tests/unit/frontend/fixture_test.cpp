// The float executor against Hugging Face transformers on the tiny fixtures of
// tests/fixtures/ (made by tools/fixtures/generate_fixtures.py): teacher-forced logits within
// 1e-4 relative error (max |ours - hf| over the row / max |hf| over the row) at every position,
// and identical greedy tokens. Each fixture is read twice, with the config in the form
// transformers 5 writes (rope_parameters) and in the 4.x form (rope_theta, rope_scaling): one is
// its config.json, the other config.transformers4.json or config.transformers5.json beside it,
// put in a scratch directory as config.json next to links to the same weights.
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "frontend/decode_builder.h"
#include "frontend/float_executor.h"

namespace st::frontend {
namespace {

namespace fs = std::filesystem;

/// The fixture with its config.json (form "") or the other form's config file: a scratch
/// directory holding that file as config.json and links to the fixture's weights.
std::string fixtureWithConfig(const std::string &fixture, const std::string &configFile) {
  const fs::path dir = fs::path(ST_FIXTURE_DIR) / fixture;
  if (configFile == "config.json")
    return dir.string();
  const fs::path scratch = fs::temp_directory_path() / ("st_fixture_" + fixture + "_" + configFile);
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  for (const auto &entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".safetensors") != std::string::npos)
      fs::create_symlink(fs::absolute(entry.path()), scratch / name);
  }
  fs::copy_file(dir / configFile, scratch / "config.json");
  return scratch.string();
}

/// (fixture, config file): every fixture with its config.json and the other form's file.
using FixtureConfig = std::pair<std::string, std::string>;

class FixtureTest : public ::testing::TestWithParam<FixtureConfig> {};

TEST_P(FixtureTest, MatchesHuggingFaceLogitsAndGreedyTokens) {
  const auto &[fixture, configFile] = GetParam();
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + fixture;
  LoadedModel model = loadModel(fixtureWithConfig(fixture, configFile));
  std::ifstream in(dir + "/reference.json");
  ASSERT_TRUE(in) << dir;
  nlohmann::json ref;
  in >> ref;
  double worst = 0, minMargin = 1e30;
  size_t positions = 0;
  for (const auto &c : ref["cases"]) {
    const auto prompt = c["prompt"].get<std::vector<int64_t>>();
    const auto greedy = c["greedy_tokens"].get<std::vector<int64_t>>();
    const auto logits = c["logits"].get<std::vector<std::vector<float>>>();
    std::vector<int64_t> fed = prompt;
    fed.insert(fed.end(), greedy.begin(), greedy.end() - 1);
    ASSERT_EQ(logits.size(), fed.size());
    FloatExecutor teacher(model.program, model.weights);
    for (size_t pos = 0; pos < fed.size(); ++pos) {
      const auto ours = teacher.step(fed[pos], static_cast<int64_t>(pos)).logits;
      const auto &hf = logits[pos];
      ASSERT_EQ(ours.size(), hf.size());
      double maxDiff = 0, maxRef = 0, top1 = -1e30, top2 = -1e30;
      for (size_t i = 0; i < hf.size(); ++i) {
        maxDiff = std::max(maxDiff, std::fabs(static_cast<double>(ours[i]) - hf[i]));
        maxRef = std::max(maxRef, std::fabs(static_cast<double>(hf[i])));
        if (hf[i] > top1) {
          top2 = top1;
          top1 = hf[i];
        } else if (hf[i] > top2) {
          top2 = hf[i];
        }
      }
      const double rel = maxDiff / maxRef;
      worst = std::max(worst, rel);
      minMargin = std::min(minMargin, top1 - top2);
      EXPECT_LE(rel, 1e-4) << fixture << " " << configFile << " position " << pos;
      ++positions;
    }
    FloatExecutor executor(model.program, model.weights);
    GreedyResult g = greedyDecode(executor, prompt, static_cast<int64_t>(greedy.size()));
    EXPECT_EQ(g.tokens, greedy) << fixture << " " << configFile;
  }
  std::cout << fixture << " (" << configFile << "): " << positions
            << " positions, max relative logit error " << worst << ", min HF top-1 margin "
            << minMargin << "\n";
}

// Which form each config file is in: the transformers version that wrote it.
TEST_P(FixtureTest, ConfigFileIsInItsForm) {
  const auto &[fixture, configFile] = GetParam();
  std::ifstream in(std::string(ST_FIXTURE_DIR) + "/" + fixture + "/" + configFile);
  ASSERT_TRUE(in) << configFile;
  nlohmann::json j;
  in >> j;
  const std::string version = j.value("transformers_version", "");
  const bool v5 = version.rfind("5.", 0) == 0;
  ASSERT_TRUE(v5 || version.rfind("4.", 0) == 0) << version;
  if (configFile == "config.transformers4.json")
    EXPECT_FALSE(v5);
  if (configFile == "config.transformers5.json")
    EXPECT_TRUE(v5);
  if (configFile == "config.json")
    EXPECT_EQ(v5, fixture != "qwen2_tiny_mqa") << fixture << " is kept in the 4.x form";
  if (fixture == "gpt2_tiny")
    return; // no RoPE: the two forms differ in neither RoPE key
  EXPECT_EQ(j.contains("rope_parameters"), v5) << fixture << " " << configFile;
  EXPECT_EQ(j.contains("rope_theta"), !v5) << fixture << " " << configFile;
}

// qwen2_tiny_mqa keeps the 4.x form as its config.json; the others carry transformers 5's.
INSTANTIATE_TEST_SUITE_P(
    Fixtures, FixtureTest,
    ::testing::Values(FixtureConfig{"gpt2_tiny", "config.json"},
                      FixtureConfig{"gpt2_tiny", "config.transformers4.json"},
                      FixtureConfig{"llama_tiny_gqa", "config.json"},
                      FixtureConfig{"llama_tiny_gqa", "config.transformers4.json"},
                      FixtureConfig{"qwen2_tiny_mqa", "config.json"},
                      FixtureConfig{"qwen2_tiny_mqa", "config.transformers5.json"},
                      FixtureConfig{"gemma3_tiny", "config.json"},
                      FixtureConfig{"gemma3_tiny", "config.transformers4.json"},
                      FixtureConfig{"qwen3_tiny", "config.json"},
                      FixtureConfig{"qwen3_tiny", "config.transformers4.json"},
                      FixtureConfig{"mistral_tiny", "config.json"},
                      FixtureConfig{"mistral_tiny", "config.transformers4.json"}),
    [](const auto &info) {
      std::string name = info.param.first + "_" + info.param.second;
      for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });

} // namespace
} // namespace st::frontend
