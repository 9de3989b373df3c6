// Accelerator options as JSON (compiler/llm/accelerator_options_json): what compile writes into
// design.json reads back as the same options (sim lowers the same design from them), and a
// missing or mistyped field is one error naming the file and the field.
#include "llm/accelerator_options_json.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace st::llm {
namespace {

AcceleratorOptions unusualOptions() {
  AcceleratorOptions o;
  o.precision = numerics::Precision::W8A16;
  o.maxLanes = 4;
  o.engine = LinearEngine::PerOp;
  o.engineChannels = 16;
  o.engineFifoWords = 8192;
  o.enginePackedPairs = 3;
  o.maxContext = 2048;
  o.sizingCacheLength = 9;
  o.attentionKvStep = 2;
  o.attentionHeadSplit = 2;
  o.attentionReadStep = 4;
  o.attentionBlockMajor = true;
  o.attentionPositionSlices = 4;
  o.attentionTilePositions = 128;
  o.debugTaps = false;
  o.forcedDepths = {{"a_to_b", 7}};
  return o;
}

TEST(AcceleratorOptionsJson, EveryFieldReadsBack) {
  const AcceleratorOptions o = unusualOptions();
  const AcceleratorOptions back =
      acceleratorOptionsFromJson(acceleratorOptionsJson(o), "design.json");
  EXPECT_EQ(back.precision, o.precision);
  EXPECT_EQ(back.maxLanes, o.maxLanes);
  EXPECT_EQ(back.engine, o.engine);
  EXPECT_EQ(back.engineChannels, o.engineChannels);
  EXPECT_EQ(back.engineFifoWords, o.engineFifoWords);
  EXPECT_EQ(back.enginePackedPairs, o.enginePackedPairs);
  EXPECT_EQ(back.maxContext, o.maxContext);
  EXPECT_EQ(back.sizingCacheLength, o.sizingCacheLength);
  EXPECT_EQ(back.attentionKvStep, o.attentionKvStep);
  EXPECT_EQ(back.attentionHeadSplit, o.attentionHeadSplit);
  EXPECT_EQ(back.attentionReadStep, o.attentionReadStep);
  EXPECT_EQ(back.attentionBlockMajor, o.attentionBlockMajor);
  EXPECT_EQ(back.attentionPositionSlices, o.attentionPositionSlices);
  EXPECT_EQ(back.attentionTilePositions, o.attentionTilePositions);
  EXPECT_EQ(back.debugTaps, o.debugTaps);
  EXPECT_EQ(back.forcedDepths, o.forcedDepths);
  // Every field written is read: the JSON of the read options is the same.
  EXPECT_EQ(acceleratorOptionsJson(back), acceleratorOptionsJson(o));
}

TEST(AcceleratorOptionsJson, AMissingOrMistypedFieldNamesTheFileAndField) {
  nlohmann::json j = acceleratorOptionsJson(unusualOptions());
  j.erase("attention_tile_positions");
  try {
    acceleratorOptionsFromJson(j, "out/design.json");
    FAIL() << "a missing field must throw";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("out/design.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("accelerator.attention_tile_positions"), std::string::npos)
        << e.what();
  }
  j = acceleratorOptionsJson(unusualOptions());
  j["max_context"] = "long";
  EXPECT_THROW(acceleratorOptionsFromJson(j, "design.json"), Error);
  EXPECT_THROW(acceleratorOptionsFromJson(nlohmann::json(), "design.json"), Error);
}

} // namespace
} // namespace st::llm
