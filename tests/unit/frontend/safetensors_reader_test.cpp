// safetensors reader: dtype conversion, single and sharded files, and one test per malformed
// case checking that the message names the file and the field.
#include "frontend/safetensors_reader.h"

#include <cmath>

#include "support/error.h"
#include "test_files.h"

namespace st::frontend {
namespace {

using namespace st::frontend::testing;

TEST(Safetensors, ReadsF32F16Bf16) {
  auto dir = scratchDir();
  // F16: 1.0 = 0x3c00, -2.0 = 0xc000, smallest subnormal 0x0001 = 2^-24
  // BF16: 1.5 = 0x3fc0, -0.25 = 0xbe80
  std::string data = floatBytes({1.0f, 2.5f, -3.0f, 4.0f}) +
                     std::string("\x00\x3c\x00\xc0\x01\x00", 6) +
                     std::string("\xc0\x3f\x80\xbe", 4);
  std::string header = R"({"__metadata__":{"format":"pt"},)"
                       R"("a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                       R"("h":{"dtype":"F16","shape":[3],"data_offsets":[16,22]},)"
                       R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[22,26]}})";
  writeText(dir / "model.safetensors", safetensorsBytes(header, data));
  WeightStore s = readModelWeights(dir.string());
  EXPECT_EQ(s.get("a").shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(s.get("a").data, (std::vector<float>{1.0f, 2.5f, -3.0f, 4.0f}));
  EXPECT_EQ(s.get("h").data, (std::vector<float>{1.0f, -2.0f, 5.9604644775390625e-8f}));
  EXPECT_EQ(s.get("b").data, (std::vector<float>{1.5f, -0.25f}));
  EXPECT_NO_THROW(s.require("a", {2, 2}));
}

TEST(Safetensors, HalfConversionCoversSpecialValues) {
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x0200), std::ldexp(1.0f, -15));
}

TEST(Safetensors, ReadsShardsThroughIndex) {
  auto dir = scratchDir();
  writeText(dir / "model-00001-of-00002.safetensors",
            safetensorsBytes(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                             floatBytes({7.0f})));
  writeText(dir / "model-00002-of-00002.safetensors",
            safetensorsBytes(R"({"y":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                             floatBytes({8.0f, 9.0f})));
  writeText(dir / "model.safetensors.index.json",
            R"({"metadata":{},"weight_map":{"x":"model-00001-of-00002.safetensors",)"
            R"("y":"model-00002-of-00002.safetensors"}})");
  WeightStore s = readModelWeights(dir.string());
  EXPECT_EQ(s.get("x").data, (std::vector<float>{7.0f}));
  EXPECT_EQ(s.get("y").data, (std::vector<float>{8.0f, 9.0f}));
}

TEST(Safetensors, IndexNamingAbsentTensorIsAnError) {
  auto dir = scratchDir();
  writeText(dir / "a.safetensors",
            safetensorsBytes(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                             floatBytes({7.0f})));
  writeText(dir / "model.safetensors.index.json",
            R"({"weight_map":{"x":"a.safetensors","z":"a.safetensors"}})");
  expectError([&] { readModelWeights(dir.string()); }, {"a.safetensors", "tensor 'z'", "missing"});
}

TEST(Safetensors, IndexNamingAbsentShardIsAnError) {
  auto dir = scratchDir();
  writeText(dir / "model.safetensors.index.json", R"({"weight_map":{"x":"gone.safetensors"}})");
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors.index.json", "shard 'gone.safetensors'"});
}

TEST(Safetensors, MissingWeightsFileIsAnError) {
  auto dir = scratchDir();
  expectError([&] { readModelWeights(dir.string()); },
              {dir.string(), "weights", "model.safetensors"});
}

TEST(Safetensors, TruncatedHeaderLengthIsAnError) {
  auto dir = scratchDir();
  writeText(dir / "model.safetensors", std::string("\x10\x00\x00", 3));
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors", "header length", "truncated"});
}

TEST(Safetensors, HeaderLongerThanFileIsAnError) {
  auto dir = scratchDir();
  std::string bytes = safetensorsBytes(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                                       floatBytes({1.0f}));
  writeText(dir / "model.safetensors", bytes.substr(0, 30));
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors", "header length", "truncated file"});
}

TEST(Safetensors, TruncatedDataIsAnError) {
  auto dir = scratchDir();
  std::string bytes = safetensorsBytes(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                                       floatBytes({1.0f, 2.0f}));
  writeText(dir / "model.safetensors", bytes.substr(0, bytes.size() - 3));
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors", "tensor 'x' data_offsets", "truncated file"});
}

TEST(Safetensors, CorruptHeaderJsonIsAnError) {
  auto dir = scratchDir();
  writeText(dir / "model.safetensors", safetensorsBytes(R"({"x":{"dtype":"F3)", ""));
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors", "header", "valid JSON"});
}

TEST(Safetensors, UnsupportedDtypeIsAnError) {
  auto dir = scratchDir();
  writeText(dir / "model.safetensors",
            safetensorsBytes(R"({"x":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})",
                             std::string(8, '\0')));
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors", "tensor 'x' dtype", "F32, F16 or BF16, got I64"});
}

TEST(Safetensors, OffsetsNotMatchingShapeAreAnError) {
  auto dir = scratchDir();
  writeText(dir / "model.safetensors",
            safetensorsBytes(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                             floatBytes({1.0f, 2.0f})));
  expectError([&] { readModelWeights(dir.string()); },
              {"model.safetensors", "tensor 'x' data_offsets", "12 bytes for shape [3]"});
}

TEST(Safetensors, MissingAndMisshapenTensorsAreErrors) {
  auto dir = scratchDir();
  writeText(dir / "model.safetensors",
            safetensorsBytes(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                             floatBytes({1.0f, 2.0f})));
  WeightStore s = readModelWeights(dir.string());
  expectError([&] { s.require("y", {2}); }, {"model.safetensors", "tensor 'y'", "missing"});
  expectError(
      [&] {
        s.require("x", {2, 1});
      },
      {"model.safetensors", "tensor 'x' shape", "[2,1], got [2]"});
}

} // namespace
} // namespace st::frontend
