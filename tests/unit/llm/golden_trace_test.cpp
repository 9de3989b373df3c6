// Golden trace and run check (compiler/llm/golden_trace, run_layout, run_check): the trace's
// generated ids are the golden model's greedy decode (and Hugging Face's greedy tokens at W8A16,
// where the golden model agrees with it at every reference position); the run buffers lie
// in the image plan without overlap; a memory holding the expected regions has no mismatch; one
// flipped bit in a KV row, a tap row, a token, or a nonzero KV row beyond the run is reported
// with its tensor, step, layer and element; of two differences the earlier in program order is
// reported.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/golden_executor.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "llm/golden_trace.h"
#include "llm/run_check.h"
#include "llm/run_layout.h"
#include "plan/run_regions.h"
#include "support/error.h"

namespace st::llm {
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

class GoldenTraceTokensTest : public ::testing::TestWithParam<std::string> {};

// The trace steps the golden model as the accelerator does: its ids are greedyDecode's, and at
// W8A16 (100 % teacher-forced top-1 on every fixture, golden_fidelity_test) Hugging Face's.
TEST_P(GoldenTraceTokensTest, GeneratedIdsAreTheGreedyDecode) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + GetParam();
  std::ifstream in(dir + "/reference.json");
  nlohmann::json ref;
  in >> ref;
  ASSERT_EQ(ref["cases"].size(), 2u);
  for (numerics::Precision precision : {numerics::Precision::W4A8, numerics::Precision::W8A16}) {
    SCOPED_TRACE(frontend::precisionName(precision));
    const Quantized m = quantizedFixture(GetParam(), precision);
    const std::vector<TapSpec> taps = defaultRunTaps(m.model.program);
    // The KV row a step appends: the attention's k input (after RoPE where there is one) and v.
    const ir::DecodeStage &block = m.model.program.stages.at(1);
    EXPECT_EQ(kvAppendOp(block, "attention", "k_cache"),
              GetParam() == "gpt2_tiny" ? "k_proj" : "rope_k");
    EXPECT_EQ(kvAppendOp(block, "attention", "v_cache"), "v_proj");
    for (const auto &c : ref["cases"]) {
      const auto prompt = c["prompt"].get<std::vector<int64_t>>();
      const auto hf = c["greedy_tokens"].get<std::vector<int64_t>>();
      const int64_t n = static_cast<int64_t>(hf.size());
      const GoldenTrace trace = runGoldenTrace(m.model.program, m.q, prompt, n, 64, taps);
      frontend::GoldenExecutor golden(m.model.program, m.q);
      const frontend::GreedyResult greedy = frontend::greedyDecode(golden, prompt, n);
      EXPECT_EQ(trace.generated, greedy.tokens);
      EXPECT_EQ(trace.numSteps(), static_cast<int64_t>(prompt.size()) + n - 1);
      if (precision == numerics::Precision::W8A16)
        EXPECT_EQ(trace.generated, hf);
      // Step t feeds the prompt, then the previous argmax.
      for (int64_t t = 0; t < trace.numSteps(); ++t)
        EXPECT_EQ(trace.steps[static_cast<size_t>(t)].token,
                  t < static_cast<int64_t>(prompt.size())
                      ? prompt[static_cast<size_t>(t)]
                      : trace.steps[static_cast<size_t>(t - 1)].argmax);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenTraceTokensTest,
                         ::testing::Values("gpt2_tiny", "llama_tiny_gqa", "qwen2_tiny_mqa",
                                           "gemma3_tiny"));

/// llama_tiny_gqa (2 layers, kv 2 x 12, hidden 48, vocab 96) at W4A8, prompt 3,1,4 and 4 new
/// ids: T = 6 steps in a context of 16.
class RunCheckTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    model_ = new Quantized(quantizedFixture("llama_tiny_gqa", numerics::Precision::W4A8));
  }
  static void TearDownTestSuite() {
    delete model_;
    model_ = nullptr;
  }
  void SetUp() override {
    const ir::DecodeProgram &program = model_->model.program;
    taps_ = defaultRunTaps(program);
    plan_ = plan::planHbmImage(program, model_->q, plan::HbmDevice{}, kContext);
    plan::addRunRegions(plan_, program, model_->q, taps_);
    layout_ = plan::runLayoutOf(plan_, program, model_->q, taps_);
    trace_ = runGoldenTrace(program, model_->q, {3, 1, 4}, 4, kContext, taps_);
    memory_ = RegionMemory(checkedRegions(layout_, trace_));
  }

  const KvRegion &kv(const std::string &kind) const {
    for (const KvRegion &r : layout_.kv)
      if (r.kind == kind)
        return r;
    throw Error("test", kind, "a KV region");
  }
  const TapRegion &tap(const std::string &op) const {
    for (const TapRegion &r : layout_.taps)
      if (r.op == op)
        return r;
    throw Error("test", op, "a tap");
  }
  uint64_t kvAddress(const std::string &kind, int64_t row, int64_t layer, int64_t index) const {
    const KvRegion &r = kv(kind);
    return r.address + layer * r.layerStride + row * r.rowBytes + index;
  }
  uint64_t tapAddress(const std::string &op, int64_t step, int64_t run, int64_t index) const {
    const TapRegion &r = tap(op);
    return r.address + (step * r.rowsPerStep + run) * r.rowBytes + index * (r.bits / 8);
  }
  /// Flips bit `bit` of the byte at `address`.
  void flip(uint64_t address, unsigned bit = 0) {
    const uint8_t b = memory_.read(address, 1)[0];
    memory_.write(address, {static_cast<uint8_t>(b ^ (1u << bit))});
  }
  std::optional<RunMismatch> check() const {
    return firstMismatch(trace_, layout_, memory_.reader());
  }
  /// The first mismatch of `layout` in a copy of `memory` whose byte at `address` has `mask`
  /// flipped.
  std::optional<RunMismatch> checkFlipped(const RunLayout &layout, RegionMemory memory,
                                          uint64_t address, uint8_t mask) const {
    memory.write(address, {static_cast<uint8_t>(memory.read(address, 1)[0] ^ mask)});
    return firstMismatch(trace_, layout, memory.reader());
  }
  /// `plan` written as an image into the temporary directory `name` and its manifest read back.
  RunLayout layoutThroughManifest(const plan::HbmImagePlan &plan, const std::string &name) const {
    const std::string dir = ::testing::TempDir() + "/" + name;
    std::filesystem::remove_all(dir);
    gen::writeHbmImage(plan, dir);
    return plan::runLayoutOf(gen::readHbmManifest(dir + "/manifest.json"), model_->model.program,
                             model_->q, taps_);
  }

  static constexpr int64_t kContext = 16;
  static Quantized *model_;
  std::vector<TapSpec> taps_;
  plan::HbmImagePlan plan_;
  RunLayout layout_;
  GoldenTrace trace_;
  RegionMemory memory_;
};
Quantized *RunCheckTest::model_ = nullptr;

TEST_F(RunCheckTest, LayoutOfTheRunRegions) {
  ASSERT_EQ(taps_.size(), 2u);
  EXPECT_EQ(taps_[0].stage, "block");
  EXPECT_EQ(taps_[0].op, "x_next");
  EXPECT_EQ(taps_[1].stage, "epilogue");
  EXPECT_EQ(taps_[1].op, "logits");
  const TapRegion &x = tap("x_next"), &logits = tap("logits");
  EXPECT_EQ(x.length, 48);
  EXPECT_EQ(x.bits, 16u);
  EXPECT_EQ(x.rowsPerStep, 2);
  EXPECT_EQ(x.rowBytes, 128u); // 96 bytes of s16 codes, padded to 64
  EXPECT_EQ(logits.length, 96);
  EXPECT_EQ(logits.bits, 16u);
  EXPECT_EQ(logits.rowsPerStep, 1);
  EXPECT_EQ(logits.rowBytes, 192u);
  ASSERT_EQ(layout_.kv.size(), 2u);
  EXPECT_EQ(layout_.kv[0].kind, "k_cache");
  EXPECT_EQ(layout_.kv[0].appendOp, "rope_k");
  EXPECT_EQ(layout_.kv[1].appendOp, "v_proj");
  EXPECT_EQ(layout_.kv[0].width, 24);
  EXPECT_EQ(layout_.kv[0].rowBytes, 64u);
  EXPECT_EQ(layout_.tokensCapacity, kContext);
  // No two buffers of the plan overlap, run buffers included; each is in its channels.
  std::vector<std::pair<int64_t, int64_t>> extents;
  for (const plan::HbmBuffer &b : plan_.buffers) {
    extents.push_back({b.address, b.address + b.bytes()});
    EXPECT_EQ(b.address / plan_.device.pseudoChannelBytes, b.channels.front()) << b.name;
    EXPECT_LE(b.address + b.bytes(), (b.channels.back() + 1) * plan_.device.pseudoChannelBytes)
        << b.name;
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i)
    EXPECT_LE(extents[i - 1].second, extents[i].first) << "overlap";
  // The manifest lists the run buffers with their rows.
  const nlohmann::json manifest = nlohmann::json::parse(gen::hbmManifestJson(plan_));
  std::map<std::string, nlohmann::json> byName;
  for (const auto &b : manifest["buffers"])
    byName[b["name"].get<std::string>()] = b;
  ASSERT_TRUE(byName.count("run/tokens"));
  EXPECT_EQ(byName["run/tokens"]["kind"], "run_tokens");
  EXPECT_EQ(byName["run/tokens"]["address"].get<uint64_t>(), layout_.tokensAddress);
  EXPECT_EQ(byName["run/tokens"]["layer_bytes"].get<int64_t>(), kContext * kTokenRowBytes);
  ASSERT_TRUE(byName.count("block/x_next.tap"));
  EXPECT_EQ(byName["block/x_next.tap"]["kind"], "run_tap");
  EXPECT_EQ(byName["block/x_next.tap"]["row_bytes"].get<int64_t>(), 128);
  EXPECT_EQ(byName["block/x_next.tap"]["layer_bytes"].get<int64_t>(), kContext * 2 * 128);
  EXPECT_EQ(byName["epilogue/logits.tap"]["address"].get<uint64_t>(), logits.address);
  EXPECT_EQ(byName["block/attention.k_cache"]["row_bytes"].get<int64_t>(), 64);
}

// `sim` finds the run regions from the written manifest, without planning again.
TEST_F(RunCheckTest, LayoutFromTheWrittenManifestEqualsThePlans) {
  const std::string dir = ::testing::TempDir() + "/run_layout_image";
  std::filesystem::remove_all(dir);
  gen::writeHbmImage(plan_, dir);
  const plan::HbmImagePlan read = gen::readHbmManifest(dir + "/manifest.json");
  EXPECT_EQ(read.maxContext, kContext);
  EXPECT_EQ(read.channelBytes, plan_.channelBytes);
  ASSERT_EQ(read.buffers.size(), plan_.buffers.size());
  for (size_t i = 0; i < read.buffers.size(); ++i) {
    const plan::HbmBuffer &a = read.buffers[i], &b = plan_.buffers[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.address, b.address) << a.name;
    EXPECT_EQ(a.layerStride, b.layerStride) << a.name;
    EXPECT_EQ(a.layerBytes, b.layerBytes) << a.name;
    EXPECT_EQ(a.rowBytes, b.rowBytes) << a.name;
    EXPECT_EQ(a.channels, b.channels) << a.name;
    EXPECT_EQ(a.linearParams.kLanes, b.linearParams.kLanes) << a.name;
  }
  const RunLayout fromManifest = plan::runLayoutOf(read, model_->model.program, model_->q, taps_);
  EXPECT_EQ(fromManifest.tokensAddress, layout_.tokensAddress);
  ASSERT_EQ(fromManifest.kv.size(), layout_.kv.size());
  ASSERT_EQ(fromManifest.taps.size(), layout_.taps.size());
  for (size_t i = 0; i < layout_.kv.size(); ++i)
    EXPECT_EQ(fromManifest.kv[i].address, layout_.kv[i].address);
  for (size_t i = 0; i < layout_.taps.size(); ++i)
    EXPECT_EQ(fromManifest.taps[i].address, layout_.taps[i].address);
  EXPECT_FALSE(firstMismatch(trace_, fromManifest, memory_.reader()).has_value());
  // A manifest with a field missing names it.
  nlohmann::json bad;
  std::ifstream(dir + "/manifest.json") >> bad;
  bad["buffers"][2].erase("layer_stride");
  std::ofstream(dir + "/bad.json") << bad.dump();
  try {
    gen::readHbmManifest(dir + "/bad.json");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("buffers[2].layer_stride"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gen::readHbmManifest(dir + "/none.json"), Error);
}

// A striped cache (llm/kv_striping.h; llama_tiny_gqa: 2 kv heads of 12, both per token, so two
// slices of 12 codes): each slice buffer on a channel of its own, one stride apart; its expected
// rows are the unstriped rows' parts, and the manifest keeps the slices; a flipped byte in a
// slice is reported in that slice's buffer.
TEST_F(RunCheckTest, StripedCacheSlicesHoldTheRowsParts) {
  const ir::DecodeProgram &program = model_->model.program;
  plan::HbmImagePlan striped =
      plan::planHbmImage(program, model_->q, plan::HbmDevice{}, kContext, {}, nullptr, 2);
  plan::addRunRegions(striped, program, model_->q, taps_);
  const RunLayout layout = plan::runLayoutOf(striped, program, model_->q, taps_);
  ASSERT_EQ(layout.kv.size(), 4u);
  std::set<int64_t> channels;
  for (const KvRegion &r : layout.kv) {
    EXPECT_EQ(r.slices, 2);
    EXPECT_EQ(r.partCodes, 12);
    EXPECT_EQ(r.rowBytes, 64u);
    channels.insert(static_cast<int64_t>(r.address / plan::HbmDevice{}.pseudoChannelBytes));
  }
  EXPECT_EQ(channels.size(), 4u) << "one pseudo-channel per slice";
  EXPECT_EQ(plan::kvSliceStride(striped, layout.kv[0].name),
            static_cast<int64_t>(layout.kv[1].address - layout.kv[0].address));
  // The slices' rows hold the unstriped rows' parts.
  const RegionMemory slicesMemory(checkedRegions(layout, trace_));
  for (const char *kind : {"k_cache", "v_cache"}) {
    const KvRegion &whole = kv(kind);
    for (int64_t layer = 0; layer < whole.layers; ++layer)
      for (int64_t row = 0; row < trace_.numSteps(); ++row) {
        const std::vector<uint8_t> expected = memory_.read(
            whole.address + layer * whole.layerStride + row * whole.rowBytes, whole.width);
        std::vector<uint8_t> assembled;
        for (const KvRegion &r : layout.kv)
          if (r.kind == kind) {
            const std::vector<uint8_t> part = slicesMemory.read(
                r.address + layer * r.layerStride + row * r.rowBytes, r.partCodes);
            assembled.insert(assembled.end(), part.begin(), part.end());
          }
        EXPECT_EQ(assembled, expected) << kind << " layer " << layer << " row " << row;
      }
  }
  EXPECT_FALSE(firstMismatch(trace_, layout, slicesMemory.reader()).has_value());
  const KvRegion &slice1 = layout.kv[1];
  const std::optional<RunMismatch> m = checkFlipped(
      layout, slicesMemory, slice1.address + slice1.layerStride + 2 * slice1.rowBytes + 5, 4);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.k_cache.s1");
  EXPECT_EQ(m->step, 2);
  EXPECT_EQ(m->layer, 1);
  // The manifest keeps the slices.
  const RunLayout read = layoutThroughManifest(striped, "run_layout_striped");
  ASSERT_EQ(read.kv.size(), 4u);
  EXPECT_EQ(read.kv[1].slice, 1);
  EXPECT_EQ(read.kv[1].slices, 2);
  EXPECT_FALSE(firstMismatch(trace_, read, slicesMemory.reader()).has_value());
}

// A position-striped block-major cache (llama_tiny_gqa: 2 kv heads, positions over 2 slices,
// kv_striping.h) spreads each slice's two kv-head blocks over two pseudo-channels: block 1 one
// channel (pseudoChannelBytes) after block 0, at the same offset, a layer one block's rows on
// each; the expected rows land there, the manifest keeps it, and a flipped byte on the second
// channel is reported in that block.
TEST_F(RunCheckTest, BlockMajorBlocksLieOnChannelsOfTheirOwn) {
  const ir::DecodeProgram &program = model_->model.program;
  const plan::HbmDevice device;
  plan::HbmImagePlan spread =
      plan::planHbmImage(program, model_->q, device, kContext, {}, nullptr, 1, 1, 0, false, 2);
  std::map<int64_t, int> buffersOn; // channel -> KV buffers on it
  for (const plan::HbmBuffer &b : spread.buffers) {
    if (b.kind != "k_cache" && b.kind != "v_cache")
      continue;
    EXPECT_EQ(b.kvBlocks, 2);
    EXPECT_EQ(b.kvBlockChannels, 2);
    EXPECT_EQ(b.kvBlockStride(), device.pseudoChannelBytes);
    EXPECT_EQ(b.layerBytes, kContext / 2 * 64) << "one block's rows of its positions per layer";
    ASSERT_EQ(b.channels.size(), 2u);
    EXPECT_EQ(b.channels[1], b.channels[0] + 1);
    EXPECT_EQ(b.channels[0] / 4, b.channels[1] / 4) << "one HBM mini-switch";
    for (int64_t c : b.channels)
      ++buffersOn[c];
  }
  EXPECT_EQ(buffersOn.size(), 8u) << "2 slices x 2 blocks of K and of V";
  for (const auto &[channel, n] : buffersOn)
    EXPECT_EQ(n, 1) << "channel " << channel;
  plan::addRunRegions(spread, program, model_->q, taps_);
  const RunLayout layout = plan::runLayoutOf(spread, program, model_->q, taps_);
  ASSERT_EQ(layout.kv.size(), 8u);
  EXPECT_EQ(layout.kv[1].block, 1);
  EXPECT_EQ(layout.kv[1].address - layout.kv[0].address,
            static_cast<uint64_t>(device.pseudoChannelBytes));
  const RegionMemory memory(checkedRegions(layout, trace_));
  EXPECT_FALSE(firstMismatch(trace_, layout, memory.reader()).has_value());
  // Position 3 lies in slice 1 at row 1; kv head 1 in block 1, on slice 1's second channel.
  const KvRegion *block1 = nullptr;
  for (const KvRegion &r : layout.kv)
    if (r.kind == "k_cache" && r.slice == 1 && r.block == 1)
      block1 = &r;
  ASSERT_NE(block1, nullptr);
  const std::optional<RunMismatch> m = checkFlipped(
      layout, memory, block1->address + block1->layerStride + 1 * block1->rowBytes + 2, 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.k_cache.s1 block 1");
  EXPECT_EQ(m->step, 3);
  EXPECT_EQ(m->layer, 1);
  // The manifest keeps the spread.
  const RunLayout read = layoutThroughManifest(spread, "run_layout_block_channels");
  const std::string dir = ::testing::TempDir() + "/run_layout_block_channels";
  ASSERT_EQ(read.kv.size(), 8u);
  for (size_t i = 0; i < read.kv.size(); ++i)
    EXPECT_EQ(read.kv[i].address, layout.kv[i].address) << i;
  EXPECT_FALSE(firstMismatch(trace_, read, memory.reader()).has_value());
  // A manifest whose spread does not match its blocks is one error naming the field.
  nlohmann::json manifest;
  std::ifstream(dir + "/manifest.json") >> manifest;
  for (auto &b : manifest["buffers"])
    if (b.contains("kv_block_channels")) {
      b["kv_block_channels"] = 3;
      break;
    }
  std::ofstream(dir + "/manifest.json") << manifest.dump();
  try {
    gen::readHbmManifest(dir + "/manifest.json");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("kv_block_channels"), std::string::npos) << e.what();
  }
}

TEST_F(RunCheckTest, ExpectedRegionsWrittenAndReadBackHaveNoMismatch) {
  const std::string dir = ::testing::TempDir() + "/run_regions";
  std::filesystem::remove_all(dir);
  writeExpectedRegions(layout_, trace_, dir);
  const std::vector<CheckedRegion> regions = readRegions(dir);
  EXPECT_EQ(regions.size(), 1u + 2 * 2 + 2); // tokens, K and V of 2 layers, 2 taps
  EXPECT_EQ(regions.front().bytes.size(), 4u * kTokenRowBytes);
  const RegionMemory fromFiles(regions);
  EXPECT_FALSE(firstMismatch(trace_, layout_, fromFiles.reader()).has_value());
  EXPECT_FALSE(check().has_value());
  EXPECT_FALSE(checkRunDump(trace_, layout_, dir).has_value());
  // A dump with one changed byte (the design's memory over the same list of regions).
  std::vector<CheckedRegion> dumped = regions;
  dumped.back().bytes[200] ^= 0x10; // the logits tap: step 1 (192-byte rows), element 4
  const std::string dumpDir = ::testing::TempDir() + "/run_dump";
  std::filesystem::remove_all(dumpDir);
  writeRegions(dumped, dumpDir);
  const auto fromDump = checkRunDump(trace_, layout_, dumpDir);
  ASSERT_TRUE(fromDump.has_value());
  EXPECT_EQ(fromDump->tensor, "epilogue/logits");
  EXPECT_EQ(fromDump->step, 1);
  EXPECT_EQ(fromDump->index, 4);
  EXPECT_THROW(checkRunDump(trace_, layout_, dumpDir + "/missing"), Error);
  // The tokens region holds the generated ids, u32 little endian, one per 64-byte row.
  const std::vector<uint8_t> tokens = fromFiles.read(layout_.tokensAddress, 4 * kTokenRowBytes);
  for (size_t k = 0; k < 4; ++k) {
    const size_t at = k * kTokenRowBytes;
    EXPECT_EQ(tokens[at] | tokens[at + 1] << 8 | tokens[at + 2] << 16 | tokens[at + 3] << 24,
              trace_.generated[k]);
  }
  // The KV rows hold the appended codes at the stride of each layer, the rest is zero.
  const std::vector<int32_t> &k = trace_.steps[5].at("block", 1, "rope_k");
  const std::vector<uint8_t> row = fromFiles.read(kvAddress("k_cache", 5, 1, 0), 64);
  for (size_t i = 0; i < 64; ++i)
    EXPECT_EQ(static_cast<int8_t>(row[i]), i < k.size() ? k[i] : 0) << i;
  const std::vector<uint8_t> tail = fromFiles.read(kvAddress("k_cache", 6, 1, 0), 64 * 10);
  EXPECT_TRUE(std::all_of(tail.begin(), tail.end(), [](uint8_t b) { return b == 0; }));
  // An empty HBM: the first thing the run writes is K row 0 of layer 0.
  const RegionMemory empty;
  const auto m = firstMismatch(trace_, layout_, empty.reader());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.k_cache");
  EXPECT_EQ(m->step, 0);
  EXPECT_EQ(m->layer, 0);
  const std::vector<int32_t> &k00 = trace_.steps[0].at("block", 0, "rope_k");
  const auto nonzero = std::find_if(k00.begin(), k00.end(), [](int32_t c) { return c != 0; });
  EXPECT_EQ(m->index, nonzero - k00.begin());
}

TEST_F(RunCheckTest, FlippedKvBitIsReportedWithStepLayerAndIndex) {
  const int64_t i = 7;
  flip(kvAddress("k_cache", 2, 1, i), 3);
  const auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.k_cache");
  EXPECT_EQ(m->step, 2);
  EXPECT_EQ(m->layer, 1);
  EXPECT_EQ(m->index, i);
  const int32_t code = trace_.steps[2].at("block", 1, "rope_k")[i];
  EXPECT_EQ(m->expected, code);
  EXPECT_EQ(m->actual, static_cast<int8_t>(static_cast<uint8_t>(code) ^ 8));
  EXPECT_FALSE(m->beyondRun);
  EXPECT_EQ(m->address, kvAddress("k_cache", 2, 1, i));
  EXPECT_NE(m->toString().find("block/attention.k_cache step 2 layer 1 element 7"),
            std::string::npos)
      << m->toString();
}

TEST_F(RunCheckTest, FlippedVCacheBitInThePadding) {
  flip(kvAddress("v_cache", 4, 0, 30)); // codes 0..23, padding 24..63
  const auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.v_cache");
  EXPECT_EQ(m->step, 4);
  EXPECT_EQ(m->layer, 0);
  EXPECT_EQ(m->index, 30);
  EXPECT_EQ(m->expected, 0);
  EXPECT_EQ(m->actual, 1);
}

TEST_F(RunCheckTest, FlippedLogitBitIsReported) {
  const int64_t j = 41;
  flip(tapAddress("logits", 3, 0, j) + 1, 7); // the sign bit of the s16 code
  const auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "epilogue/logits");
  EXPECT_EQ(m->step, 3);
  EXPECT_EQ(m->layer, -1);
  EXPECT_EQ(m->index, j);
  const int32_t code = trace_.steps[3].at("epilogue", 0, "logits")[j];
  EXPECT_EQ(m->expected, code);
  EXPECT_EQ(m->actual, static_cast<int16_t>(static_cast<uint16_t>(code) ^ 0x8000));
}

TEST_F(RunCheckTest, FlippedBlockOutputBitIsReportedWithItsLayer) {
  flip(tapAddress("x_next", 1, 1, 47));
  const auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/x_next");
  EXPECT_EQ(m->step, 1);
  EXPECT_EQ(m->layer, 1);
  EXPECT_EQ(m->index, 47);
  EXPECT_EQ(m->expected, trace_.steps[1].at("block", 1, "x_next")[47]);
}

TEST_F(RunCheckTest, WrongTokenIsReported) {
  flip(layout_.tokensAddress + kTokenRowBytes * 2 + 1, 0); // generated id 2 (step P-1+2 = 4), bit 8
  const auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "tokens");
  EXPECT_EQ(m->index, 2);
  EXPECT_EQ(m->step, 4);
  EXPECT_EQ(m->expected, trace_.generated[2]);
  EXPECT_EQ(m->actual, trace_.generated[2] ^ 0x100);
  EXPECT_EQ(m->toString().rfind("tokens step 4 generated id 2 (HBM 0x", 0), 0u) << m->toString();
}

TEST_F(RunCheckTest, ResumedRunIsCheckedFromItsFirstStepOverThePrefilledRows) {
  // A run resumed at step 4 (sim --kv-prefill 4) of the 6-step trace: KV rows 0..3 prefilled,
  // no tap rows of steps 0..3, its generated ids the argmax of steps 4 and 5.
  const int64_t first = 4;
  const std::vector<CheckedRegion> prefill = kvPrefillRegions(layout_, trace_, first);
  ASSERT_EQ(prefill.size(), 2u * 2); // K and V of 2 layers
  for (const CheckedRegion &r : prefill) {
    ASSERT_EQ(r.bytes.size(), static_cast<size_t>(first * layout_.kv.front().rowBytes));
    EXPECT_EQ(memory_.read(r.address, r.bytes.size()), r.bytes) << r.name;
  }
  EXPECT_TRUE(kvPrefillRegions(layout_, trace_, 0).empty());
  EXPECT_THROW(kvPrefillRegions(layout_, trace_, 7), Error);
  RegionMemory resumed(checkedRegions(layout_, trace_));
  for (int64_t step = 0; step < first; ++step) // taps the resumed run never wrote
    resumed.write(tapAddress("logits", step, 0, 0), std::vector<uint8_t>(8, 0x5a));
  for (int64_t k = 0; k < 2; ++k) { // generated ids 0, 1: the argmax of steps 4, 5
    std::vector<uint8_t> id(4);
    for (int b = 0; b < 4; ++b)
      id[static_cast<size_t>(b)] = static_cast<uint8_t>(trace_.generated[2 + k] >> (8 * b));
    resumed.write(layout_.tokensAddress + kTokenRowBytes * k, id);
  }
  EXPECT_FALSE(firstMismatch(trace_, layout_, resumed.reader(), first).has_value());
  // The same memory read as a run from step 0: the taps of step 0 are wrong.
  const auto fromZero = firstMismatch(trace_, layout_, resumed.reader());
  ASSERT_TRUE(fromZero.has_value());
  EXPECT_EQ(fromZero->tensor, "epilogue/logits");
  // A prefilled row the run overwrote is still a mismatch.
  resumed.write(kvAddress("k_cache", 1, 0, 2), {0x11});
  const auto overwritten = firstMismatch(trace_, layout_, resumed.reader(), first);
  ASSERT_TRUE(overwritten.has_value());
  EXPECT_EQ(overwritten->tensor, "block/attention.k_cache");
  EXPECT_EQ(overwritten->step, 1);
  EXPECT_THROW(firstMismatch(trace_, layout_, memory_.reader(), 6), Error);
}

TEST_F(RunCheckTest, NonzeroKvRowBeyondTheRunIsReported) {
  const int64_t steps = trace_.numSteps();
  ASSERT_EQ(steps, 6);
  memory_.write(kvAddress("v_cache", steps, 1, 3), {0x80});
  const auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.v_cache");
  EXPECT_EQ(m->step, steps);
  EXPECT_EQ(m->layer, 1);
  EXPECT_EQ(m->index, 3);
  EXPECT_EQ(m->expected, 0);
  EXPECT_EQ(m->actual, -128);
  EXPECT_TRUE(m->beyondRun);
  EXPECT_NE(m->toString().find("beyond the run"), std::string::npos);
}

TEST_F(RunCheckTest, TheEarlierOfTwoMismatchesInProgramOrderIsReported) {
  // Different steps: step 2's logits before step 4's layer-0 K row.
  flip(kvAddress("k_cache", 4, 0, 0));
  flip(tapAddress("logits", 2, 0, 90));
  auto m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "epilogue/logits");
  EXPECT_EQ(m->step, 2);
  // Same step: the block (layer 1's V row) before the epilogue's logits.
  flip(kvAddress("v_cache", 2, 1, 5));
  m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.v_cache");
  EXPECT_EQ(m->layer, 1);
  // Same step: layer 0's block output before layer 1's V row; within a layer K, V, then x_next.
  flip(tapAddress("x_next", 2, 0, 3));
  m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/x_next");
  EXPECT_EQ(m->layer, 0);
  flip(kvAddress("v_cache", 2, 0, 23));
  m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.v_cache");
  EXPECT_EQ(m->layer, 0);
  EXPECT_EQ(m->index, 23);
  flip(kvAddress("k_cache", 2, 0, 23));
  m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.k_cache");
  // A token of step 2 (P-1 = 2: generated id 0) comes after all of step 2's rows ...
  flip(layout_.tokensAddress);
  m = check();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "block/attention.k_cache");
  // ... and before anything of step 3 or a row beyond the run.
  RegionMemory fresh(checkedRegions(layout_, trace_));
  fresh.write(kvAddress("k_cache", 3, 0, 0), {0x55});
  fresh.write(kvAddress("k_cache", 10, 0, 0), {0x55});
  fresh.write(layout_.tokensAddress, {0xff});
  m = firstMismatch(trace_, layout_, fresh.reader());
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->tensor, "tokens");
  EXPECT_EQ(m->step, 2);
  EXPECT_EQ(m->index, 0);
}

TEST_F(RunCheckTest, RunBufferWithoutRoomOrWithATakenNameIsOneError) {
  plan::HbmImagePlan full =
      plan::planHbmImage(model_->model.program, model_->q, plan::HbmDevice{}, 8);
  const size_t buffers = full.buffers.size();
  plan::HbmBuffer b;
  b.name = "block/attention.k_cache";
  b.kind = "run_tap";
  b.layerBytes = 64;
  EXPECT_THROW(plan::addRunBuffer(full, b), Error); // the name is the image's K cache
  b.name = "run/extra";
  b.layerBytes = 0;
  EXPECT_THROW(plan::addRunBuffer(full, b), Error);
  for (int64_t &used : full.channelBytes)
    used = full.device.pseudoChannelBytes - 1024;
  b.layerBytes = 2048;
  try {
    plan::addRunBuffer(full, b);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("hbm image: buffer 'run/extra' (2048 bytes)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(full.buffers.size(), buffers);
  // One channel with one 4 KiB block left: the buffer goes there.
  const int64_t channel = 5, bytes = full.device.pseudoChannelBytes;
  full.channelBytes[channel] = bytes - 4096;
  const plan::HbmBuffer placed = plan::addRunBuffer(full, b);
  EXPECT_EQ(placed.address, channel * bytes + bytes - 4096);
  EXPECT_EQ(placed.channels, std::vector<int64_t>{channel});
  EXPECT_EQ(full.channelBytes[channel], bytes);
  EXPECT_EQ(full.buffers.size(), buffers + 1);
}

TEST_F(RunCheckTest, TapRingKeepsTheLastStepsAndChecksThem) {
  // A budget of 4 steps of logits: the logits tap becomes a ring of 4 (the block's x_next tap,
  // smaller per step, keeps 8), and a run of T = 6 steps is checked on its last 4.
  const ir::DecodeProgram &program = model_->model.program;
  const TapRegion &full = tap("logits");
  plan::HbmImagePlan plan = plan::planHbmImage(program, model_->q, plan::HbmDevice{}, kContext);
  plan::addRunRegions(plan, program, model_->q, taps_, 4 * int64_t(full.rowBytes));
  const RunLayout ring = plan::runLayoutOf(plan, program, model_->q, taps_);
  const TapRegion *logits = nullptr;
  for (const TapRegion &r : ring.taps)
    if (r.op == "logits")
      logits = &r;
  ASSERT_NE(logits, nullptr);
  EXPECT_TRUE(logits->ring);
  EXPECT_EQ(logits->maxSteps, 4);
  // The manifest carries the ring.
  const std::string dir = ::testing::TempDir() + "/tap_ring";
  std::filesystem::remove_all(dir);
  gen::writeHbmImage(plan, dir);
  const RunLayout read =
      plan::runLayoutOf(gen::readHbmManifest(dir + "/manifest.json"), program, model_->q, taps_);
  for (const TapRegion &r : read.taps)
    if (r.op == "logits")
      EXPECT_EQ(r.maxSteps, 4);
  ASSERT_EQ(trace_.numSteps(), 6);
  RegionMemory memory(checkedRegions(ring, trace_));
  EXPECT_FALSE(firstMismatch(trace_, ring, memory.reader()).has_value());
  // Slot 1 holds step 5 (not step 1, which it held before), slot 0 step 4.
  const auto flipAt = [&](uint64_t address) {
    RegionMemory m = memory;
    m.write(address, {static_cast<uint8_t>(m.read(address, 1)[0] ^ 1)});
    return firstMismatch(trace_, ring, m.reader());
  };
  const auto slot1 = flipAt(logits->address + 1 * logits->rowBytes);
  ASSERT_TRUE(slot1.has_value());
  EXPECT_EQ(slot1->step, 5);
  const auto slot0 = flipAt(logits->address);
  ASSERT_TRUE(slot0.has_value());
  EXPECT_EQ(slot0->step, 4);
}

TEST_F(RunCheckTest, BadRequestsAreOneError) {
  const ir::DecodeProgram &program = model_->model.program;
  // T = 14 + 4 - 1 = 17 steps do not fit a context of 16.
  EXPECT_THROW(runGoldenTrace(program, model_->q, std::vector<int64_t>(14, 1), 4, kContext, taps_),
               Error);
  EXPECT_THROW(runGoldenTrace(program, model_->q, {}, 4, kContext, taps_), Error);
  EXPECT_THROW(runGoldenTrace(program, model_->q, {96}, 4, kContext, taps_), Error);
  EXPECT_THROW(runGoldenTrace(program, model_->q, {1}, 0, kContext, taps_), Error);
  try {
    runGoldenTrace(program, model_->q, {1}, 1, kContext, {{"block", "no_such_op"}});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("block/no_such_op"), std::string::npos) << e.what();
  }
  plan::HbmImagePlan bare = plan::planHbmImage(program, model_->q, plan::HbmDevice{}, kContext);
  EXPECT_THROW(plan::runLayoutOf(bare, program, model_->q, taps_), Error); // no run buffers added
  EXPECT_THROW(
      plan::addRunRegions(bare, program, model_->q, {{"epilogue", "next_token"}, {"x", "y"}}),
      Error);
  // A trace longer than a layout planned for 8 positions.
  plan::HbmImagePlan small = plan::planHbmImage(program, model_->q, plan::HbmDevice{}, 8);
  plan::addRunRegions(small, program, model_->q, taps_);
  const RunLayout smallLayout = plan::runLayoutOf(small, program, model_->q, taps_);
  const GoldenTrace longer = runGoldenTrace(program, model_->q, {3, 1, 4}, 8, kContext, taps_);
  EXPECT_THROW(firstMismatch(longer, smallLayout, memory_.reader()), Error);
}

} // namespace
} // namespace st::llm
