// The float executor's batched paths give the bits of the one-token path: floatLinearColumns
// (both kernels, any column count, ragged row and reduction blocks, rows read in place or made
// block by block, one thread or several) against the scalar double-accumulated loop it
// replaced, and runTeacherForced against reset() + step() token by token on every fixture
// (logits, next tokens and every observed op output, in order).
#include "frontend/float_executor.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "../numerics/counting_row_reader.h"
#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/float_linear.h"
#include "quantized_model_compare.h"
#include "support/parallel.h"

namespace st::frontend {
namespace {

/// The one-column loop of the executor before batching: y = float(sum_k double(w) * x) + b.
std::vector<float> scalarLinear(const std::vector<float> &w, size_t rows, size_t cols,
                                const float *bias, const float *x) {
  std::vector<float> y(rows);
  for (size_t r = 0; r < rows; ++r) {
    double acc = 0;
    for (size_t k = 0; k < cols; ++k)
      acc += static_cast<double>(w[r * cols + k]) * x[k];
    y[r] = static_cast<float>(acc) + (bias ? bias[r] : 0.0f);
  }
  return y;
}

/// Values over many binades, so that any other summation order or a float accumulator changes
/// the low bits of most outputs.
std::vector<float> wideValues(size_t n, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<float> v(n);
  for (float &x : v)
    x = std::ldexp(normal(rng), exponent(rng));
  return v;
}

TEST(FloatLinear, ColumnsGiveTheScalarLoopsBitsWithEitherKernel) {
  std::mt19937 rng(11);
  struct Shape {
    size_t rows, cols;
  };
  // Rows around the 6-row register block and the 66-row task; reductions around the 256 block.
  const Shape shapes[] = {{1, 1}, {2, 7}, {5, 256}, {7, 300}, {67, 257}, {259, 513}, {600, 96}};
  int checked = 0;
  for (const Shape &s : shapes) {
    const std::vector<float> w = wideValues(s.rows * s.cols, rng);
    const std::vector<float> bias = wideValues(s.rows, rng);
    for (size_t columns : {1, 2, 3, 4, 5, 15, 16, 17, 33, 64, 70}) {
      const std::vector<float> x = wideValues(columns * s.cols, rng);
      for (bool withBias : {false, true}) {
        std::vector<float> expected;
        for (size_t c = 0; c < columns; ++c) {
          const std::vector<float> y = scalarLinear(
              w, s.rows, s.cols, withBias ? bias.data() : nullptr, x.data() + c * s.cols);
          expected.insert(expected.end(), y.begin(), y.end());
        }
        for (FloatLinearKernel kernel : {FloatLinearKernel::Best, FloatLinearKernel::Portable}) {
          std::vector<float> y(columns * s.rows);
          floatLinearColumns(w.data(), s.rows, s.cols, withBias ? bias.data() : nullptr, x.data(),
                             columns, y.data(), kernel);
          ASSERT_TRUE(sameBits(y, expected))
              << s.rows << " x " << s.cols << ", " << columns << " columns, bias " << withBias
              << ", kernel " << (kernel == FloatLinearKernel::Best ? "best" : "portable");
          ++checked;
        }
      }
    }
  }
  std::cout << checked << " shape/column/bias/kernel cases bit-identical (AVX2/FMA kernel "
            << (floatLinearHasAvx2() ? "used" : "not available") << ")\n";
}

TEST(FloatLinear, StreamedRowsAndThreadCountsGiveTheSameBits) {
  // 1000 rows are 16 tasks of 66 rows; the reader hands out copies (as streamed weights do) and
  // counts the rows it was asked for: every row once.
  std::mt19937 rng(12);
  const size_t rows = 1000, cols = 300, columns = 37;
  const std::vector<float> w = wideValues(rows * cols, rng), x = wideValues(columns * cols, rng);
  const std::vector<float> bias = wideValues(rows, rng);
  std::vector<float> expected;
  for (size_t c = 0; c < columns; ++c) {
    const std::vector<float> y = scalarLinear(w, rows, cols, bias.data(), x.data() + c * cols);
    expected.insert(expected.end(), y.begin(), y.end());
  }
  for (unsigned threads : {1u, 2u, 4u}) {
    setParallelThreads(threads);
    testutil::CountingRowReader counted(w, rows, cols);
    std::vector<float> y(columns * rows);
    floatLinearColumns(counted.reader(), rows, cols, bias.data(), x.data(), columns, y.data());
    EXPECT_TRUE(sameBits(y, expected)) << threads << " threads";
    for (size_t r = 0; r < rows; ++r)
      ASSERT_EQ(counted.timesAsked(r), 1) << "row " << r << ", " << threads << " threads";
    floatLinearColumns(w.data(), rows, cols, bias.data(), x.data(), columns, y.data());
    EXPECT_TRUE(sameBits(y, expected)) << threads << " threads, in place";
  }
  setParallelThreads(0);
}

/// Every observed op output, per key, in the order it was seen.
using Observed = std::map<std::string, std::vector<std::vector<float>>>;

TEST(FloatExecutor, TeacherForcedEqualsStepByStepOnEveryFixture) {
  for (const char *fixture : {"gpt2_tiny", "llama_tiny_gqa", "qwen2_tiny_mqa", "gemma3_tiny",
                              "qwen3_tiny", "mistral_tiny"}) {
    SCOPED_TRACE(fixture);
    const LoadedModel m = loadModel(std::string(ST_FIXTURE_DIR) + "/" + fixture);
    // Unequal lengths, longer than gemma3_tiny's window of 4; 5 + 9 + 7 = 21 columns.
    std::vector<std::vector<int64_t>> sequences =
        randomCalibrationSequences(m.program.vocabSize, 3, 9, 5);
    sequences[0].resize(5);
    sequences[2].resize(7);

    Observed stepwise;
    FloatExecutor one(m.program, m.weights, 9);
    one.setObserver(
        [&](const std::string &key, const std::vector<float> &v) { stepwise[key].push_back(v); });
    std::vector<std::vector<FloatExecutor::StepResult>> expected;
    for (const auto &s : sequences) {
      one.reset();
      expected.emplace_back();
      for (size_t p = 0; p < s.size(); ++p)
        expected.back().push_back(one.step(s[p], static_cast<int64_t>(p)));
    }

    Observed batched;
    FloatExecutor all(m.program, m.weights, 9);
    all.setObserver(
        [&](const std::string &key, const std::vector<float> &v) { batched[key].push_back(v); });
    const auto results = all.runTeacherForced(sequences);
    ASSERT_EQ(results.size(), sequences.size());
    for (size_t s = 0; s < sequences.size(); ++s) {
      ASSERT_EQ(results[s].size(), sequences[s].size());
      for (size_t p = 0; p < sequences[s].size(); ++p) {
        EXPECT_TRUE(sameBits(results[s][p].logits, expected[s][p].logits))
            << "sequence " << s << " position " << p;
        EXPECT_EQ(results[s][p].nextToken, expected[s][p].nextToken);
      }
    }
    ASSERT_EQ(batched.size(), stepwise.size());
    for (const auto &[key, values] : stepwise) {
      ASSERT_EQ(batched[key].size(), values.size()) << key;
      for (size_t i = 0; i < values.size(); ++i)
        ASSERT_TRUE(sameBits(batched[key][i], values[i])) << key << " value " << i;
    }
    // The batched run kept its caches to itself: step() continues where it was.
    const auto again = one.step(sequences[2].back(), 7);
    EXPECT_EQ(again.logits.size(), static_cast<size_t>(m.program.vocabSize));
  }
}

TEST(FloatExecutor, TeacherForcedRejectsWhatStepRejects) {
  const LoadedModel m = loadModel(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny");
  FloatExecutor e(m.program, m.weights, 4);
  EXPECT_THROW(e.runTeacherForced({{1, 2, 3, 4, 5}}), Error); // longer than the state rows
  EXPECT_THROW(e.runTeacherForced({{1, m.program.vocabSize}}), Error);
  EXPECT_THROW(e.runTeacherForced({{}}), Error);
}

} // namespace
} // namespace st::frontend
