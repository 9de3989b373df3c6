// `eval --fidelity`'s parts: the token-id file reader (every accepted form, every malformed
// case naming the file and where), the windowing of long sequences, the per-position figures
// (negative log-likelihood, logit cosine) against closed forms, and measureFidelity on a fixture
// against an independent fp32 loop (positions, fp32 perplexity) and its own invariants.
#include "frontend/fidelity.h"

#include <cmath>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/float_executor.h"
#include "frontend/token_id_file.h"
#include "support/error.h"
#include "test_files.h"

namespace st::frontend {
namespace {

using namespace st::frontend::testing;
using Sequences = std::vector<std::vector<int64_t>>;

Sequences readText(const std::string &text, int64_t vocab = 100) {
  const auto dir = scratchDir();
  writeText(dir / "ids", text);
  return readTokenIdFile((dir / "ids").string(), vocab);
}

TEST(TokenIdFile, PlainTextIsOneSequenceSeparatedByCommasOrWhiteSpace) {
  EXPECT_EQ(readText("1, 2 3\n4,5\t6\n"), (Sequences{{1, 2, 3, 4, 5, 6}}));
}

TEST(TokenIdFile, JsonListOfIds) {
  EXPECT_EQ(readText(" [7, 8, 9]"), (Sequences{{7, 8, 9}}));
}

TEST(TokenIdFile, JsonListOfSequences) {
  EXPECT_EQ(readText("[[1,2],[3]]"), (Sequences{{1, 2}, {3}}));
}

TEST(TokenIdFile, CalibrationJsonForm) {
  EXPECT_EQ(readText(R"({"source":"x","sequences":[[4,5,6]]})"), (Sequences{{4, 5, 6}}));
}

TEST(TokenIdFile, IdOutsideTheVocabularyNamesTheToken) {
  expectError([] { readText("1 2 100"); }, {"ids", "token 2", "[0, 100)", "got '100'"});
}

TEST(TokenIdFile, NonIntegerNamesTheToken) {
  expectError([] { readText("1 x2"); }, {"token 1", "got 'x2'"});
}

TEST(TokenIdFile, EmptyTextIsAnError) {
  expectError([] { readText(" \n"); }, {"text", "the file is empty"});
}

TEST(TokenIdFile, JsonIdOutsideTheVocabularyNamesTheSequence) {
  expectError([] { readText("[[1],[2,-1]]"); }, {"sequences[1]", "got -1"});
}

TEST(TokenIdFile, MalformedJsonIsAnError) {
  expectError([] { readText("[[1,2]"); }, {"JSON", "valid JSON"});
}

TEST(TokenIdFile, ObjectWithoutSequencesIsAnError) {
  expectError([] { readText(R"({"ids":[1]})"); }, {"sequences", "the key is missing"});
}

TEST(TokenIdFile, MissingFileIsAnError) {
  expectError([] { readTokenIdFile("/nonexistent/ids.txt", 10); },
              {"/nonexistent/ids.txt", "file", "readable"});
}

TEST(TokenIdFile, WindowsCutLongSequencesAndDropSingleTokens) {
  const Sequences s{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1}};
  EXPECT_EQ(windowSequences(s, 4), (Sequences{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  EXPECT_EQ(windowSequences(s, 3), (Sequences{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
  expectError([&] { windowSequences(s, 1); }, {"--window", "at least 2"});
}

TEST(FidelityFigures, NegativeLogLikelihood) {
  EXPECT_NEAR(negativeLogLikelihood({0, 0, 0, 0}, 2), std::log(4.0), 1e-12);
  // Shift-invariant, and exact for large logits (no overflow).
  EXPECT_NEAR(negativeLogLikelihood({1000, 1000 + std::log(3.0f)}, 0), std::log(4.0), 1e-4);
  EXPECT_NEAR(negativeLogLikelihood({2, 0}, 1), 2 + std::log(1 + std::exp(-2.0)), 1e-12);
  expectError([] { negativeLogLikelihood({0, 0}, 2); }, {"target", "got 2"});
}

TEST(FidelityFigures, LogitCosine) {
  EXPECT_NEAR(logitCosine({1, 2, 3}, {2, 4, 6}), 1.0, 1e-12);
  EXPECT_NEAR(logitCosine({1, 0}, {0, 1}), 0.0, 1e-12);
  EXPECT_NEAR(logitCosine({1, 0}, {-1, 0}), -1.0, 1e-12);
  EXPECT_EQ(logitCosine({0, 0}, {0, 0}), 1.0);
  EXPECT_EQ(logitCosine({0, 0}, {1, 0}), 0.0);
}

// On gpt2_tiny: the positions are every window's length - 1, the fp32 perplexity equals an
// independent FloatExecutor loop's, and the figures obey their bounds. W8A16 agrees with fp32
// more closely than W4A8 on every figure but top-1 (which the text may tie).
TEST(MeasureFidelity, Gpt2FixtureAgainstAnIndependentFp32Loop) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/gpt2_tiny";
  LoadedModel model = loadModel(dir);
  const Sequences text =
      windowSequences(readTokenIdFile(std::string(ST_FIXTURE_DIR) + "/fidelity_text.json", 96), 40);
  const Calibration calibration =
      calibrate(model.program, model.weights,
                readCalibrationSequences(dir + "/calibration.json", model.program.vocabSize));
  const QuantizedModel w4 =
      quantizeModel(model.program, model.weights, numerics::Precision::W4A8, calibration);
  const QuantizedModel w8 =
      quantizeModel(model.program, model.weights, numerics::Precision::W8A16, calibration);
  const FidelityReport r = measureFidelity(model.program, model.weights, {&w4, &w8}, text);

  double nll = 0;
  int64_t positions = 0;
  for (const auto &s : text) {
    FloatExecutor f(model.program, model.weights);
    for (size_t pos = 0; pos + 1 < s.size(); ++pos, ++positions)
      nll += negativeLogLikelihood(f.step(s[pos], static_cast<int64_t>(pos)).logits, s[pos + 1]);
  }
  EXPECT_EQ(r.sequences, static_cast<int64_t>(text.size()));
  EXPECT_EQ(r.positions, positions);
  EXPECT_NEAR(r.fp32Perplexity, std::exp(nll / static_cast<double>(positions)),
              1e-9 * r.fp32Perplexity);
  ASSERT_EQ(r.precisions.size(), 2u);
  EXPECT_EQ(r.precisions[0].precision, numerics::Precision::W4A8);
  for (const PrecisionFidelity &p : r.precisions) {
    EXPECT_GE(p.top1Agreement, 0.85);
    EXPECT_LE(p.top1Agreement, 1.0);
    EXPECT_LE(p.minCosine, p.meanCosine);
    EXPECT_LE(p.meanCosine, 1.0);
    EXPECT_GT(p.perplexity, 1.0);
  }
  EXPECT_GT(r.precisions[1].meanCosine, r.precisions[0].meanCosine);
  EXPECT_GT(r.precisions[1].minCosine, r.precisions[0].minCosine);
  EXPECT_LT(std::fabs(r.precisions[1].perplexity - r.fp32Perplexity),
            std::fabs(r.precisions[0].perplexity - r.fp32Perplexity));
}

TEST(MeasureFidelity, RejectsSequencesItCannotScore) {
  LoadedModel model = loadModel(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny");
  expectError([&] { measureFidelity(model.program, model.weights, {}, {}); },
              {"sequences", "at least one"});
  expectError([&] { measureFidelity(model.program, model.weights, {}, {{5}}); },
              {"sequence 0", "2 .. 64 tokens, got 1"});
  expectError(
      [&] { measureFidelity(model.program, model.weights, {}, {std::vector<int64_t>(65, 1)}); },
      {"sequence 0", "got 65"});
}

} // namespace
} // namespace st::frontend
