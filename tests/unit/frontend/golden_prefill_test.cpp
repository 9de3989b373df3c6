// The golden model's prefill (GoldenExecutor::prefill: the prompt layer-major, the linear layers
// batched, rows over the cores) against its step-by-step run, on every fixture at W4A8 and
// W8A16, with two-pass and tiled attention: a 48-token prompt crosses attention tiles, Gemma's
// sliding windows and prefill blocks; every row's taps (every op, the KV append ops among them),
// logit codes and argmax must be equal, and so must the steps that continue from the prefilled
// KV caches. Also numerics::linearRows against linear() per row, numerics::attentionInPlace
// against attention() and attentionTiled(), and one thread against four.
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/golden_executor.h"
#include "frontend/quantized_model.h"
#include "numerics/attention_rows.h"
#include "numerics/golden_ops.h"
#include "numerics/linear_batch.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::frontend {
namespace {

std::vector<std::string> fixtures() {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(ST_FIXTURE_DIR))
    if (std::filesystem::exists(entry.path() / "config.json"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<int64_t> randomIds(size_t n, int64_t vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> id(0, vocab - 1);
  std::vector<int64_t> ids(n);
  for (int64_t &v : ids)
    v = id(rng);
  return ids;
}

void expectSameStep(const GoldenExecutor::StepResult &want, const GoldenExecutor::StepResult &got,
                    size_t row) {
  SCOPED_TRACE("row " + std::to_string(row));
  EXPECT_EQ(got.nextToken, want.nextToken);
  EXPECT_EQ(got.logitCodes, want.logitCodes);
  EXPECT_EQ(got.logits, want.logits);
  ASSERT_EQ(got.taps.size(), want.taps.size());
  for (const auto &[key, codes] : want.taps) {
    auto it = got.taps.find(key);
    ASSERT_NE(it, got.taps.end()) << key;
    EXPECT_EQ(it->second, codes) << key;
  }
}

class GoldenPrefillTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenPrefillTest, EveryRowIsTheStepByStepRun) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + GetParam();
  const LoadedModel model = loadModel(dir);
  const Calibration calibration =
      calibrate(model.program, model.weights,
                readCalibrationSequences(dir + "/calibration.json", model.program.vocabSize));
  const std::vector<int64_t> prompt = randomIds(48, model.program.vocabSize, 44);
  for (numerics::Precision precision : {numerics::Precision::W4A8, numerics::Precision::W8A16})
    for (int64_t tiles : {int64_t(0), int64_t(8)}) {
      SCOPED_TRACE(precisionName(precision) + ", attention tile " + std::to_string(tiles));
      QuantizedModel q = quantizeModel(model.program, model.weights, precision, calibration);
      applyAttentionTiles(q, tiles);
      GoldenExecutor stepped(model.program, q);
      stepped.recordTaps(true);
      std::vector<GoldenExecutor::StepResult> want;
      for (size_t t = 0; t < prompt.size(); ++t)
        want.push_back(stepped.step(prompt[t], static_cast<int64_t>(t)));
      // Blocks of 20 rows (the last one shorter) on 1 and 4 threads, and one block of all.
      for (auto [blockRows, threads] : {std::pair<int64_t, unsigned>{20, 1}, {20, 4}, {256, 4}}) {
        SCOPED_TRACE("block rows " + std::to_string(blockRows) + ", threads " +
                     std::to_string(threads));
        setParallelThreads(threads);
        GoldenExecutor fast(model.program, q);
        fast.recordTaps(true);
        GoldenExecutor::PrefillOptions options;
        options.blockRows = blockRows;
        const std::vector<GoldenExecutor::StepResult> got = fast.prefill(prompt, options);
        setParallelThreads(0);
        ASSERT_EQ(got.size(), want.size());
        for (size_t t = 0; t < want.size(); ++t)
          expectSameStep(want[t], got[t], t);
        // The KV caches the prefill left: the steps that follow read all of them.
        GoldenExecutor continued = stepped;
        for (int64_t t = int64_t(prompt.size()), token = want.back().nextToken; t < 52; ++t) {
          const GoldenExecutor::StepResult a = continued.step(token, t);
          const GoldenExecutor::StepResult b = fast.step(token, t);
          expectSameStep(a, b, static_cast<size_t>(t));
          token = a.nextToken;
        }
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenPrefillTest, ::testing::ValuesIn(fixtures()));

// The prefill keeps only the taps asked for, and logits only when asked; it rejects a used
// executor, a token outside the vocabulary and more rows than the KV caches hold.
TEST(GoldenPrefill, KeepsWhatItIsAskedForAndRejectsBadRuns) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/gpt2_tiny";
  const LoadedModel model = loadModel(dir);
  const Calibration calibration =
      calibrate(model.program, model.weights,
                readCalibrationSequences(dir + "/calibration.json", model.program.vocabSize));
  const QuantizedModel q =
      quantizeModel(model.program, model.weights, numerics::Precision::W4A8, calibration);
  GoldenExecutor golden(model.program, q, 8);
  golden.recordTaps(true);
  GoldenExecutor::PrefillOptions options;
  options.logits = false;
  options.keepTap = [](const std::string &key) { return key.find("/v_proj") != std::string::npos; };
  const auto rows = golden.prefill({1, 2, 3}, options);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto &r : rows) {
    EXPECT_TRUE(r.logitCodes.empty());
    EXPECT_FALSE(r.taps.empty());
    for (const auto &[key, codes] : r.taps)
      EXPECT_NE(key.find("/v_proj"), std::string::npos) << key;
  }
  EXPECT_THROW(golden.prefill({1}, options), Error);
  golden.reset();
  EXPECT_THROW(golden.prefill({model.program.vocabSize}, options), Error);
  EXPECT_THROW(golden.prefill(std::vector<int64_t>(9, 1), options), Error);
}

// linearRows is linear() row by row at every weight and activation width of the precisions,
// per group and per channel, even and odd groups, with and without bias, with a row count not a
// multiple of 4.
TEST(GoldenPrefill, LinearRowsIsLinearPerRow) {
  std::mt19937 rng(7);
  for (unsigned wb : {4u, 8u})
    for (unsigned ab : {8u, 16u})
      // Odd groups take the portable path, even ones the AVX2 path where the CPU has it.
      for (auto [cols, groupSize] : {std::pair<size_t, size_t>{96, 32}, {96, 0}, {45, 15}, {45, 0}})
        for (bool bias : {false, true}) {
          const size_t rows = 37, n = 7;
          std::normal_distribution<float> w(0, 1);
          std::vector<float> weights(rows * cols), b(bias ? rows : 0);
          for (float &v : weights)
            v = w(rng);
          for (float &v : b)
            v = w(rng);
          const numerics::QuantizedLinear layer =
              numerics::quantizeLinear(weights, rows, cols, {wb, groupSize}, 0.01, ab, 0.02, ab, b);
          const int32_t most = (1 << (ab - 1)) - 1;
          std::uniform_int_distribution<int32_t> code(-most - 1, most);
          std::vector<int32_t> x(n * cols);
          for (int32_t &v : x)
            v = code(rng);
          const std::vector<int32_t> got = numerics::linearRows(x, n, layer);
          for (size_t r = 0; r < n; ++r) {
            const std::vector<int32_t> row(x.begin() + r * cols, x.begin() + (r + 1) * cols);
            const std::vector<int32_t> want = numerics::linear(row, layer);
            EXPECT_EQ(std::vector<int32_t>(got.begin() + r * rows, got.begin() + (r + 1) * rows),
                      want)
                << "w" << wb << "a" << ab << " group " << groupSize << " bias " << bias;
          }
        }
  std::vector<int32_t> tooWide(96, 0);
  tooWide[5] = 1 << 9;
  const numerics::QuantizedLinear layer =
      numerics::quantizeLinear(std::vector<float>(96 * 4, 0.5f), 4, 96, {4, 32}, 0.01, 8, 0.02, 8);
  EXPECT_THROW(numerics::linearRows(tooWide, 1, layer), std::invalid_argument);
  EXPECT_THROW(numerics::linearRows(tooWide, 2, layer), std::invalid_argument);
}

// attentionInPlace is attention() (tile 0) and attentionTiled() bit for bit: MHA, GQA and MQA,
// caches of 0 .. 700 positions (past the 256-position value blocks), tiles of 1 .. beyond the
// length, codes over the whole s8 range; and it rejects a q code that does not fit.
TEST(GoldenPrefill, AttentionInPlaceIsAttention) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> code(-128, 127);
  const numerics::AttentionScales scales =
      numerics::attentionScales(0.05, 0.05, 0.125, 0.03, 0.02, 8);
  for (auto [heads, kvHeads, dim] :
       {std::tuple<size_t, size_t, size_t>{4, 4, 16}, {8, 2, 32}, {6, 1, 8}})
    for (size_t length : {size_t(0), size_t(1), size_t(5), size_t(300), size_t(700)})
      for (size_t tile : {size_t(0), size_t(1), size_t(3), size_t(64), size_t(1000)}) {
        const numerics::AttentionShape shape{heads, kvHeads, dim};
        numerics::AttentionInputs in;
        auto fill = [&](std::vector<int32_t> &v, size_t count) {
          v.resize(count);
          for (int32_t &c : v)
            c = code(rng);
        };
        fill(in.q, shape.qSize());
        fill(in.kCache, length * shape.kvSize());
        fill(in.vCache, length * shape.kvSize());
        fill(in.kNew, shape.kvSize());
        fill(in.vNew, shape.kvSize());
        in.cacheLength = length;
        const std::vector<int32_t> want = tile == 0
                                              ? numerics::attention(in, shape, scales)
                                              : numerics::attentionTiled(in, shape, scales, tile);
        const numerics::AttentionView view{in.q.data(),    in.kCache.data(), in.vCache.data(),
                                           in.kNew.data(), in.vNew.data(),   length};
        EXPECT_EQ(numerics::attentionInPlace(view, shape, scales, tile), want)
            << heads << "/" << kvHeads << "x" << dim << ", length " << length << ", tile " << tile;
      }
  std::vector<int32_t> q(4 * 16, 0), kv(4 * 16, 0);
  q[3] = 128;
  const numerics::AttentionView bad{q.data(), nullptr, nullptr, kv.data(), kv.data(), 0};
  EXPECT_THROW(numerics::attentionInPlace(bad, {4, 4, 16}, scales, 0), std::invalid_argument);
}

} // namespace
} // namespace st::frontend
