// The float executor against Hugging Face transformers on the tiny fixtures of
// tests/fixtures/ (made by tools/fixtures/generate_fixtures.py): teacher-forced logits within
// 1e-4 relative error (max |ours - hf| over the row / max |hf| over the row) at every position,
// and identical greedy tokens.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "frontend/decode_builder.h"
#include "frontend/float_executor.h"

namespace st::frontend {
namespace {

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, MatchesHuggingFaceLogitsAndGreedyTokens) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + GetParam();
  LoadedModel model = loadModel(dir);
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
      EXPECT_LE(rel, 1e-4) << GetParam() << " position " << pos;
      ++positions;
    }
    FloatExecutor executor(model.program, model.weights);
    GreedyResult g = greedyDecode(executor, prompt, static_cast<int64_t>(greedy.size()));
    EXPECT_EQ(g.tokens, greedy) << GetParam();
  }
  std::cout << GetParam() << ": " << positions << " positions, max relative logit error " << worst
            << ", min HF top-1 margin " << minMargin << "\n";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest,
                         ::testing::Values("gpt2_tiny", "llama_tiny_gqa", "qwen2_tiny_mqa",
                                           "gemma3_tiny"));

} // namespace
} // namespace st::frontend
