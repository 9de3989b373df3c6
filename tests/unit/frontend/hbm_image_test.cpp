// The HBM image writer (gen/hbm_image.h) on a quantized fixture: every buffer read back from the
// image files at the manifest's address equals the bytes its DMA must stream
// (linearWeightStreamBytes with linearKernelParamsFor, embeddingImage, zero KV cache); buffers
// never overlap and stay inside their channels, on the U55C and on a small device where buffers
// span channels; a model that does not fit gives one error; the kernel-parameter choice obeys
// st_linear's rules.
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "model/llm_kernel_params.h"
#include "model/weight_stream.h"
#include "numerics/embedding.h"
#include "plan/hbm_plan.h"
#include "support/error.h"

namespace st::gen {
namespace {

struct Quantized {
  frontend::LoadedModel model;
  frontend::QuantizedModel q;
};

Quantized quantizedFixture(const std::string &name, numerics::Precision precision) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + name;
  Quantized r{frontend::loadModel(dir), {}};
  const auto calibration = frontend::calibrate(
      r.model.program, r.model.weights,
      frontend::readCalibrationSequences(dir + "/calibration.json", r.model.program.vocabSize));
  r.q = frontend::quantizeModel(r.model.program, r.model.weights, precision, calibration);
  return r;
}

std::vector<uint8_t> readImage(const std::string &dir, int64_t channelBytes, int64_t address,
                               int64_t n) {
  std::vector<uint8_t> bytes;
  while (n > 0) {
    const int64_t c = address / channelBytes, offset = address % channelBytes;
    const int64_t take = std::min(n, channelBytes - offset);
    char name[32];
    std::snprintf(name, sizeof name, "hbm_pc%02lld.bin", static_cast<long long>(c));
    std::ifstream in(dir + "/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    in.seekg(offset);
    std::vector<uint8_t> part(static_cast<size_t>(take));
    in.read(reinterpret_cast<char *>(part.data()), take);
    EXPECT_EQ(in.gcount(), take) << name << " at " << offset;
    bytes.insert(bytes.end(), part.begin(), part.end());
    address += take;
    n -= take;
  }
  return bytes;
}

/// Writes the image and checks every buffer's bytes, non-overlap and channel bounds.
void checkImage(const Quantized &m, const plan::HbmDevice &device, int64_t maxContext,
                const std::string &tag, const std::map<std::string, int64_t> &stageLanes = {}) {
  const plan::HbmImagePlan plan =
      plan::planHbmImage(m.model.program, m.q, device, maxContext, stageLanes);
  const std::string dir = ::testing::TempDir() + "/hbm_image_" + tag;
  std::filesystem::remove_all(dir);
  writeHbmImage(plan, dir);
  std::ifstream in(dir + "/manifest.json");
  ASSERT_TRUE(in);
  nlohmann::json manifest;
  in >> manifest;
  const int64_t channelBytes = manifest["pseudo_channel_bytes"].get<int64_t>();
  EXPECT_EQ(channelBytes, device.pseudoChannelBytes);
  for (const auto &f : manifest["files"]) {
    EXPECT_LE(f["bytes"].get<int64_t>(), channelBytes);
    EXPECT_EQ(
        static_cast<int64_t>(std::filesystem::file_size(dir + "/" + f["path"].get<std::string>())),
        f["bytes"].get<int64_t>());
  }
  std::vector<std::pair<int64_t, int64_t>> extents;
  size_t linears = 0, tables = 0, caches = 0, norms = 0;
  for (const auto &b : manifest["buffers"]) {
    const std::string kind = b["kind"], stage = b["stage"], op = b["op"];
    const int64_t address = b["address"], bytes = b["bytes"], stride = b["layer_stride"];
    const auto channels = b["channels"].get<std::vector<int64_t>>();
    ASSERT_FALSE(channels.empty());
    EXPECT_EQ(address / channelBytes, channels.front()) << b["name"];
    EXPECT_EQ((address + bytes - 1) / channelBytes, channels.back()) << b["name"];
    EXPECT_EQ(address % channelBytes, b["offset"].get<int64_t>());
    EXPECT_EQ(static_cast<int64_t>(channels.size()), channels.back() - channels.front() + 1);
    EXPECT_LE(channels.back(), device.pseudoChannels - 1);
    EXPECT_EQ(stride % device.alignmentBytes, 0);
    extents.push_back({address, address + bytes});
    for (int64_t l = 0; l < b["layers"].get<int64_t>(); ++l) {
      const std::vector<uint8_t> image =
          readImage(dir, channelBytes, address + l * stride, b["layer_bytes"].get<int64_t>());
      std::vector<uint8_t> expected;
      if (kind == "linear_weights") {
        const auto &layer = m.q.get<numerics::QuantizedLinear>(stage, l, op);
        const model::LinearParams params =
            stageLanes.count(stage) ? model::linearKernelParamsForLanes(layer, stageLanes.at(stage))
                                    : model::linearKernelParamsFor(layer);
        expected = model::linearWeightStreamBytes(layer, params);
        EXPECT_EQ(b["linear_params"]["Rows"].get<int64_t>(), params.rows);
        EXPECT_EQ(b["linear_params"]["KLanes"].get<int64_t>(), params.kLanes);
        EXPECT_EQ(b["linear_params"]["WordBits"].get<int64_t>(), params.wordBits);
        ++linears;
      } else if (kind == "embedding_table") {
        expected =
            numerics::embeddingImage(m.q.get<frontend::QuantizedEmbeddingOp>(stage, l, op).table);
        ++tables;
      } else if (kind == "k_cache" || kind == "v_cache") {
        expected.assign(image.size(), 0);
        EXPECT_EQ(b["layer_bytes"].get<int64_t>() % maxContext, 0);
        ++caches;
      } else {
        ASSERT_EQ(kind, "norm_params");
        const auto &norm = m.q.get<frontend::QuantizedNormOp>(stage, l, op).norm;
        // Element i in a slot of 16 bits (RMS) or 32/64 bits (LayerNorm: gamma s16, then beta
        // s(OutBits+8)), little endian.
        const bool layerNorm = norm.kind == numerics::NormKind::LayerNorm;
        const size_t slot = !layerNorm ? 2 : (16 + norm.outputBits + 8 <= 32 ? 4 : 8);
        for (size_t i = 0; i < norm.size; ++i) {
          uint64_t element = 0;
          for (size_t k = 0; k < slot; ++k)
            element |= uint64_t(image[i * slot + k]) << (8 * k);
          ASSERT_EQ(static_cast<int16_t>(element & 0xffff), norm.gamma[i])
              << b["name"] << " layer " << l << " element " << i;
          if (layerNorm) {
            const unsigned betaBits = norm.outputBits + 8;
            const int64_t beta =
                static_cast<int64_t>(element << (64 - 16 - betaBits)) >> (64 - betaBits);
            ASSERT_EQ(beta, norm.beta[i]) << b["name"] << " layer " << l << " element " << i;
          }
        }
        for (size_t k = norm.size * slot; k < image.size(); ++k)
          ASSERT_EQ(image[k], 0);
        expected = image;
        ++norms;
      }
      ASSERT_EQ(image, expected) << b["name"] << " layer " << l;
    }
  }
  EXPECT_GT(linears, 0u);
  EXPECT_GT(tables, 0u);
  EXPECT_GT(caches, 0u);
  EXPECT_GT(norms, 0u);
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i)
    EXPECT_LE(extents[i - 1].second, extents[i].first) << "overlap";
}

TEST(HbmImageTest, RoundTripOnTheU55c) {
  const plan::HbmDevice u55c = plan::loadHbmDevice(ST_CONSTRAINTS_FILE);
  EXPECT_EQ(u55c.pseudoChannels, 32);
  EXPECT_EQ(u55c.pseudoChannelBytes, int64_t(512) << 20);
  checkImage(quantizedFixture("gemma3_tiny", numerics::Precision::W4A8), u55c, 64, "gemma_w4a8");
  checkImage(quantizedFixture("gpt2_tiny", numerics::Precision::W8A16), u55c, 32, "gpt2_w8a16");
}

// With the e2e lowering's lane count per stage (Rows = Lanes = lanes, power-of-two words).
TEST(HbmImageTest, RoundTripWithStageLanes) {
  const plan::HbmDevice u55c = plan::loadHbmDevice(ST_CONSTRAINTS_FILE);
  checkImage(quantizedFixture("gemma3_tiny", numerics::Precision::W4A8), u55c, 64, "gemma_lanes",
             {{"block", 8}, {"epilogue", 8}});
  checkImage(quantizedFixture("qwen2_tiny_mqa", numerics::Precision::W8A16), u55c, 64, "qwen_lanes",
             {{"block", 4}, {"epilogue", 4}});
}

TEST(HbmImageTest, LanesRuleByHand) {
  // W4 g128, 8 lanes: 8 rows x (4 KLanes + 16) <= 512 -> KLanes 8, payload 384 -> 512-bit words.
  model::LinearParams p = model::linearKernelParamsForLanes(2048, 2048, 4, 8, 128, 16, 8);
  EXPECT_EQ(p.rows, 8);
  EXPECT_EQ(p.lanes, 8);
  EXPECT_EQ(p.kLanes, 8);
  EXPECT_EQ(p.wordBits, 512);
  // W8 per channel, 4 lanes: 4 x 8 x KLanes <= 512 -> KLanes 16, payload 512.
  p = model::linearKernelParamsForLanes(2048, 896, 8, 16, 0, 16, 4);
  EXPECT_EQ(p.kLanes, 16);
  EXPECT_EQ(p.wordBits, 512);
  // K = 48 per channel at W4, 4 lanes: KLanes 48 (768 bits) does not fit; KLanes 24 (384 bits,
  // one 512-bit header word + 2 weight words = 3 < 5) is too short; KLanes 16: 256 bits ->
  // 256-bit words, 2 header words + 3 weight words.
  p = model::linearKernelParamsForLanes(48, 48, 4, 8, 0, 16, 4);
  EXPECT_EQ(p.kLanes, 16);
  EXPECT_EQ(p.wordBits, 256);
  EXPECT_NO_THROW(model::checkLinearParams(p));
  EXPECT_THROW(model::linearKernelParamsForLanes(48, 44, 4, 8, 0, 16, 8),
               Error); // 8 does not divide 44
}

TEST(HbmImageTest, BuffersSpanChannelsOnASmallDevice) {
  plan::HbmDevice small{64, 4096, 64}; // the 8 KiB KV caches and 6 KiB embedding span two channels
  const Quantized m = quantizedFixture("llama_tiny_gqa", numerics::Precision::W4A8);
  const plan::HbmImagePlan plan = plan::planHbmImage(m.model.program, m.q, small, 64);
  bool spans = false;
  for (const plan::HbmBuffer &b : plan.buffers)
    spans = spans || b.channels.size() > 1;
  EXPECT_TRUE(spans);
  checkImage(m, small, 64, "llama_small");
}

TEST(HbmImageTest, AModelThatDoesNotFitIsOneError) {
  const Quantized m = quantizedFixture("qwen2_tiny_mqa", numerics::Precision::W4A8);
  try {
    plan::planHbmImage(m.model.program, m.q, plan::HbmDevice{2, 4096, 64}, 64);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("hbm image: buffer '"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("room in 2 pseudo-channels of 4096 bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(plan::planHbmImage(m.model.program, m.q, plan::HbmDevice{}, 65),
               Error); // > max positions
}

TEST(HbmImageTest, LinearKernelParametersObeyTheKernelRules) {
  std::vector<float> w(256 * 2048, 0.01f);
  for (numerics::Precision p :
       {numerics::Precision::W4A8, numerics::Precision::W8A8, numerics::Precision::W8A16}) {
    const auto layer = numerics::quantizeLinear(w, 256, 2048, frontend::weightFormatFor(p, 2048),
                                                0.01, numerics::activationBitsOf(p), 0.01, 16);
    const model::LinearParams params = model::linearKernelParamsFor(layer);
    EXPECT_NO_THROW(model::checkLinearParams(params));
    EXPECT_EQ(params.wordBits, 512);
    if (p != numerics::Precision::W4A8)
      EXPECT_EQ(params.rows * params.kLanes * 8, 512); // per channel: every bit is a weight
    else
      EXPECT_EQ(params.groupSize, 128);
  }
}

} // namespace
} // namespace st::gen
