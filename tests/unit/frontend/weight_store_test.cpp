// Streamed weights (frontend/weight_store.h): a random tensor's values made on demand, a block
// at a time, are the bits of the one sequential splitmix64 stream the store used to fill whole
// tensors with; GPT-2's derived transposes made on demand equal the transposed original; and a
// model whose random weights stay streamed calibrates and quantizes to exactly what the same
// weights held in memory give.
#include "frontend/random_weights.h"
#include "frontend/weight_store.h"

#include <array>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "quantized_model_compare.h"
#include "support/error.h"

namespace st::frontend {
namespace {

/// The store's random values as it made them before streaming: one sequential splitmix64 stream
/// over the whole tensor, two 24-bit values per draw.
std::vector<float> sequentialRandom(uint64_t state, float scale, bool plusOne, size_t count) {
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const float unit = 2.0f * scale / float(1 << 24);
  std::vector<float> v(count);
  for (size_t i = 0; i < count; i += 2) {
    const uint64_t z = next();
    v[i] = float(z & 0xffffff) * unit - scale;
    if (i + 1 < count)
      v[i + 1] = float((z >> 32) & 0xffffff) * unit - scale;
  }
  if (plusOne)
    for (float &x : v)
      x += 1.0f;
  return v;
}

TEST(RandomWeights, AnyRangeIsTheSequentialStream) {
  const uint64_t state = 0x1234 ^ std::hash<std::string>{}("model.layers.0.mlp.up_proj.weight");
  for (bool plusOne : {false, true}) {
    const std::vector<float> whole = sequentialRandom(state, 0.05f, plusOne, 1001);
    // Every start (odd ones begin in the middle of a draw) and several lengths.
    for (int64_t begin = 0; begin < 1001; begin += 7)
      for (int64_t count : {0, 1, 2, 3, 64, 257}) {
        const int64_t n = std::min<int64_t>(count, 1001 - begin);
        std::vector<float> part(static_cast<size_t>(n));
        randomWeightValues(state, 0.05f, plusOne, begin, n, part.data());
        ASSERT_TRUE(
            sameBits(part, std::vector<float>(whole.begin() + begin, whole.begin() + begin + n)))
            << "begin " << begin << " count " << n << " plusOne " << plusOne;
      }
  }
}

TEST(RandomWeights, BlocksOfAStoredTensorAreItsValues) {
  WeightStore store;
  store.synthesizeMissing(WeightStore::Missing::Random, 7);
  const WeightTensor &t = store.require("h.0.mlp.c_fc.weight", {37, 53}); // odd row length
  ASSERT_TRUE(t.hasValues());
  ASSERT_TRUE(t.data.empty()); // made on demand, not held
  const std::vector<float> whole =
      sequentialRandom(7 ^ std::hash<std::string>{}("h.0.mlp.c_fc.weight"), 0.05f, false, 37 * 53);
  EXPECT_TRUE(sameBits(t.values(), whole));
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    const int64_t r0 = std::uniform_int_distribution<int64_t>(0, 37)(rng);
    const int64_t r1 = std::uniform_int_distribution<int64_t>(r0, 37)(rng);
    const int64_t c0 = std::uniform_int_distribution<int64_t>(0, 53)(rng);
    const int64_t c1 = std::uniform_int_distribution<int64_t>(c0, 53)(rng);
    std::vector<float> block(static_cast<size_t>((r1 - r0) * (c1 - c0)));
    t.readBlock(r0, r1, c0, c1, block.data());
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = c0; c < c1; ++c)
        ASSERT_EQ(block[static_cast<size_t>((r - r0) * (c1 - c0) + c - c0)],
                  whole[static_cast<size_t>(r * 53 + c)])
            << "block [" << r0 << "," << r1 << ") x [" << c0 << "," << c1 << ")";
  }
  std::vector<float> scratch;
  const float *rows = t.rowReader()(5, 9, scratch);
  EXPECT_EQ(std::memcmp(rows, whole.data() + 5 * 53, 4 * 53 * sizeof(float)), 0);
  float one = 0;
  EXPECT_THROW(t.readBlock(36, 38, 0, 1, &one), Error); // past the last row
  // Norm gammas near 1.
  const WeightTensor &gamma = store.require("h.0.ln_1.weight", {9});
  EXPECT_TRUE(
      sameBits(gamma.values(),
               sequentialRandom(7 ^ std::hash<std::string>{}("h.0.ln_1.weight"), 0.05f, true, 9)));
}

TEST(RandomWeights, Gpt2TransposesMadeOnDemandAreTheOriginalsTransposed) {
  const LoadedModel m = loadModel(std::string(ST_FIXTURE_DIR) + "/gpt2_tiny", WeightSource::Random);
  const int64_t h = m.config.hiddenSize, inner = m.config.intermediateSize;
  struct Derived {
    std::string name, from;
    int64_t fromCols, colBegin, rows, cols; ///< the transpose's rows (out) and columns (in)
  };
  const std::string b = "h.1."; // random weights: the names without "transformer."
  for (const Derived &d :
       {Derived{b + "attn.c_attn.weight#k^T", b + "attn.c_attn.weight", 3 * h, h, h, h},
        Derived{b + "mlp.c_proj.weight#^T", b + "mlp.c_proj.weight", h, 0, h, inner},
        Derived{b + "mlp.c_fc.weight#^T", b + "mlp.c_fc.weight", inner, 0, inner, h}}) {
    SCOPED_TRACE(d.name);
    const WeightTensor &t = m.weights.get(d.name);
    ASSERT_TRUE(t.data.empty() && t.source);
    const std::vector<float> original = m.weights.get(d.from).values();
    ASSERT_EQ(t.shape, (std::vector<int64_t>{d.rows, d.cols}));
    // Whole, and blocks whose sides are not multiples of 8 (the vector transpose's remainder).
    const std::vector<float> whole = t.values();
    for (int64_t r = 0; r < d.rows; ++r)
      for (int64_t c = 0; c < d.cols; ++c)
        ASSERT_EQ(whole[static_cast<size_t>(r * d.cols + c)],
                  original[static_cast<size_t>(c * d.fromCols + d.colBegin + r)])
            << "row " << r << " col " << c;
    for (auto [r0, r1, c0, c1] :
         {std::array<int64_t, 4>{3, 40, 5, 29}, std::array<int64_t, 4>{0, 17, 0, 9},
          std::array<int64_t, 4>{1, 2, 0, d.cols}}) {
      std::vector<float> block(static_cast<size_t>((r1 - r0) * (c1 - c0)));
      t.readBlock(r0, r1, c0, c1, block.data());
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c)
          ASSERT_EQ(block[static_cast<size_t>((r - r0) * (c1 - c0) + c - c0)],
                    whole[static_cast<size_t>(r * d.cols + c)])
              << "block row " << r << " col " << c;
    }
  }
}

/// `from` with every tensor's values held in memory.
WeightStore materialized(const WeightStore &from) {
  WeightStore held;
  for (const auto &[name, t] : from.all()) {
    WeightTensor copy;
    copy.shape = t.shape;
    copy.file = t.file;
    if (t.hasValues())
      copy.data = t.values();
    held.add(name, std::move(copy));
  }
  return held;
}

TEST(RandomWeights, StreamedModelQuantizesAsTheSameWeightsHeldInMemory) {
  // GPT-2 (derived transposes made on demand, biases, tied head), Gemma 3 (scaled embedding,
  // 1 + w norms) and a GQA Llama: shapes of the fixtures, random values.
  for (const char *fixture : {"gpt2_tiny", "gemma3_tiny", "llama_tiny_gqa"}) {
    SCOPED_TRACE(fixture);
    const LoadedModel streamed =
        loadModel(std::string(ST_FIXTURE_DIR) + "/" + fixture, WeightSource::Random);
    const WeightStore held = materialized(streamed.weights);
    const auto sequences = randomCalibrationSequences(streamed.program.vocabSize, 3, 6);
    const Calibration a = calibrate(streamed.program, streamed.weights, sequences);
    const Calibration b = calibrate(streamed.program, held, sequences);
    ASSERT_EQ(a.points.size(), b.points.size());
    expectSameCalibrations(a, b);
    for (numerics::Precision precision : {numerics::Precision::W4A8, numerics::Precision::W8A16})
      expectSameModels(quantizeModel(streamed.program, streamed.weights, precision, a),
                       quantizeModel(streamed.program, held, precision, b));
  }
}

} // namespace
} // namespace st::frontend
