// Stage lowering (compiler/llm/stage_lowering): every stage of the four fixtures lowers onto the
// kernel templates, passes the dataflow verifier after insert-forks, and sizes its FIFOs with
// the LP; each linear's weight-stream DMA streams exactly the bytes model/weight_stream
// produces for that kernel's parameters; stream widths follow docs/numerics.md §1 and equal the
// quantizer's formats; bad requests name the op.
#include "llm/stage_lowering.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "ir/hbm_layout.h"
#include "model/llm_kernel_catalog.h"
#include "model/weight_stream.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"

namespace st::llm {
namespace {

const char *const kFixtures[] = {"gpt2_tiny",   "llama_tiny_gqa", "qwen2_tiny_mqa",
                                 "gemma3_tiny", "qwen3_tiny",     "mistral_tiny"};

frontend::LoadedModel loadFixture(const std::string &name) {
  return frontend::loadModel(std::string(ST_FIXTURE_DIR) + "/" + name,
                             frontend::WeightSource::ShapeOnly);
}

/// Lowers, inserts forks and sizes the FIFOs; returns the predicted cycles of the stage.
int64_t lowerAndSize(const ir::DecodeStage &stage, const StageLoweringOptions &o,
                     LoweredStage &lowered) {
  lowered = lowerStage(stage, o);
  passes::CompileState state;
  state.graph = &stage.graph;
  state.dataflow = std::move(lowered.dataflow);
  state.dataflow.verify({true, false, false});
  passes::insertForks(state);
  state.dataflow.verify({true, true, false});
  passes::sizeStreamFifos(state);
  state.dataflow.verify({true, true, true});
  lowered.dataflow = std::move(state.dataflow);
  return state.predictedCycles;
}

int64_t countNodes(const ir::DataflowGraph &df, const std::string &module,
                   const std::string &attribute = "") {
  int64_t n = 0;
  for (ir::NodeId id : df.nodes()) {
    const ir::DataflowNode &node = df.node(id);
    n += node.module == module && (attribute.empty() || node.attributes.count(attribute));
  }
  return n;
}

TEST(StageLowering, EveryFixtureStageLowersAndSizes) {
  for (const char *fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    frontend::LoadedModel m = loadFixture(fixture);
    StageLoweringOptions o;
    o.maxContext = m.program.maxPositions;
    o.cacheLength = 8;
    int64_t stepCycles = 0;
    for (const ir::DecodeStage &stage : m.program.stages) {
      SCOPED_TRACE(stage.name);
      LoweredStage lowered;
      const int64_t cycles = lowerAndSize(stage, o, lowered);
      EXPECT_GT(cycles, 0);
      stepCycles += cycles * stage.repeat;
      // One kernel per named op.
      int64_t kernels = 0;
      for (ir::NodeId id : lowered.dataflow.nodes())
        kernels += lowered.dataflow.node(id).kind == ir::NodeKind::Kernel;
      EXPECT_EQ(kernels, static_cast<int64_t>(stage.graph.numOps()));
      const int64_t attention = countNodes(lowered.dataflow, "st_attention");
      EXPECT_EQ(countNodes(lowered.dataflow, "st_read_dma_stream", kAttrKvCacheRead),
                2 * attention);
      EXPECT_EQ(countNodes(lowered.dataflow, "st_write_dma_stream", kAttrKvAppend), 2 * attention);
      EXPECT_EQ(countNodes(lowered.dataflow, "st_read_dma_stream", kAttrWeightStream),
                countNodes(lowered.dataflow, "st_linear") +
                    countNodes(lowered.dataflow, "st_norm"));
    }
    std::printf("%s: lanes-per-stage lowering, predicted %lld cycles per step at cache length "
                "8 (stages back to back)\n",
                fixture, static_cast<long long>(stepCycles));
  }
}

TEST(StageLowering, WeightDmaStreamsTheWeightStreamImplementationsBytes) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 0.05f);
  for (numerics::Precision precision :
       {numerics::Precision::W4A8, numerics::Precision::W8A8, numerics::Precision::W8A16}) {
    frontend::LoadedModel m = loadFixture("qwen2_tiny_mqa");
    StageLoweringOptions o;
    o.precision = precision;
    o.maxContext = m.program.maxPositions;
    for (const ir::DecodeStage &stage : m.program.stages) {
      const LoweredStage lowered = lowerStage(stage, o);
      const ir::DataflowGraph &df = lowered.dataflow;
      for (ir::NodeId id : df.nodes()) {
        const ir::DataflowNode &node = df.node(id);
        if (node.module != "st_linear")
          continue;
        SCOPED_TRACE(node.name);
        const model::LinearParams p = model::linearParamsOf(node);
        EXPECT_EQ(p.activationBits, numerics::activationBitsOf(precision));
        EXPECT_EQ(p.weightBits, numerics::weightBitsOf(precision));
        // A layer of random weights quantized in the node's format.
        std::vector<float> w(static_cast<size_t>(p.k * p.nOut));
        for (float &v : w)
          v = normal(rng);
        numerics::WeightFormat format{static_cast<unsigned>(p.weightBits),
                                      static_cast<size_t>(p.groupSize ? p.groupSize : p.k)};
        const numerics::QuantizedLinear layer = numerics::quantizeLinear(
            w, p.nOut, p.k, format, 0.02, p.activationBits, 0.05, p.outputBits);
        const std::vector<uint8_t> bytes = model::linearWeightStreamBytes(layer, p);
        // The DMA feeding port "w" streams one weight word per token, one word per bus beat.
        const ir::StreamId s = *df.streamInto({id, 1});
        const ir::ITensorType &type = df.srcPort(df.stream(s)).type;
        EXPECT_EQ(type.numTokens() * type.elementsPerToken(), static_cast<int64_t>(bytes.size()));
        EXPECT_EQ(ir::hbmLayoutOf(type).wordsStreamed(), type.numTokens());
        EXPECT_LE(p.wordBits, 512);
      }
    }
  }
}

TEST(StageLowering, StreamWidthsFollowTheNumericsSpec) {
  frontend::LoadedModel m = loadFixture("llama_tiny_gqa");
  for (numerics::Precision precision : {numerics::Precision::W4A8, numerics::Precision::W8A16}) {
    StageLoweringOptions o;
    o.precision = precision;
    o.maxContext = m.program.maxPositions;
    const ir::DecodeStage &block = m.program.stages.at(1);
    ASSERT_EQ(block.name, "block");
    const LoweredStage lowered = lowerStage(block, o);
    const unsigned a = numerics::activationBitsOf(precision);
    for (const auto &[tensor, bits] : lowered.codeBits) {
      SCOPED_TRACE(tensor);
      const ir::TensorId t = *block.graph.findTensor(tensor);
      for (ir::OpId c : block.graph.consumers(t)) {
        const ir::Op &op = block.graph.op(c);
        if (std::holds_alternative<ir::LinearAttrs>(op.llm))
          EXPECT_EQ(bits, a) << "GEMV inputs are A" << a;
        if (std::holds_alternative<ir::AttentionAttrs>(op.llm) && op.inputs[5].tensor != t)
          EXPECT_EQ(bits, 8u) << "q, k, v into attention are s8";
        if (std::holds_alternative<ir::AddAttrs>(op.llm))
          EXPECT_EQ(bits, 16u) << "the residual stream is s16";
      }
    }
  }
}

// The lowering's stream widths and the quantizer's output formats must agree for every op output,
// at every precision, in every fixture. Both read frontend::outputCodeBits today, so this guards
// the sharing (a lowering that derives a width on its own fails it); the widths themselves are
// pinned to docs/numerics.md §1 by StreamWidthsFollowTheNumericsSpec.
TEST(StageLowering, StreamWidthsEqualTheQuantizedModelsFormats) {
  for (const char *fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + fixture;
    frontend::LoadedModel m = frontend::loadModel(dir);
    const frontend::Calibration calibration = frontend::calibrate(
        m.program, m.weights,
        frontend::readCalibrationSequences(dir + "/calibration.json", m.program.vocabSize));
    for (numerics::Precision precision :
         {numerics::Precision::W4A8, numerics::Precision::W8A8, numerics::Precision::W8A16}) {
      const frontend::QuantizedModel q =
          frontend::quantizeModel(m.program, m.weights, precision, calibration);
      StageLoweringOptions o;
      o.precision = precision;
      o.maxContext = m.program.maxPositions;
      for (const ir::DecodeStage &stage : m.program.stages) {
        const LoweredStage lowered = lowerStage(stage, o);
        for (ir::OpId id = 0; id < stage.graph.numOps(); ++id) {
          const ir::Op &op = stage.graph.op(id);
          SCOPED_TRACE(stage.name + "/" + op.name);
          EXPECT_EQ(lowered.codeBits.at(stage.graph.tensor(op.output.tensor).name),
                    q.op(stage.name, 0, op.name).outputBits);
        }
      }
    }
  }
}

// The HBM image planned with the lowering's lane counts holds, for every linear, exactly the
// weight stream its lowered kernel reads: the same st_linear parameters and as many bytes per
// layer as the weight DMA streams.
TEST(StageLowering, HbmImageHoldsTheStreamsTheLoweredKernelsRead) {
  for (const char *fixture : {"llama_tiny_gqa", "gpt2_tiny"}) {
    SCOPED_TRACE(fixture);
    const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + fixture;
    frontend::LoadedModel m = frontend::loadModel(dir);
    const frontend::QuantizedModel q = frontend::quantizeModel(
        m.program, m.weights, numerics::Precision::W4A8,
        frontend::calibrate(
            m.program, m.weights,
            frontend::readCalibrationSequences(dir + "/calibration.json", m.program.vocabSize)));
    StageLoweringOptions o;
    o.maxContext = m.program.maxPositions;
    std::map<std::string, int64_t> lanes;
    for (const ir::DecodeStage &stage : m.program.stages)
      lanes[stage.name] = stageLanes(stage, o.maxLanes);
    const plan::HbmImagePlan plan =
        plan::planHbmImage(m.program, q, plan::HbmDevice{}, o.maxContext, lanes);
    int64_t linears = 0;
    for (const ir::DecodeStage &stage : m.program.stages) {
      const LoweredStage lowered = lowerStage(stage, o);
      EXPECT_EQ(lowered.lanes, lanes.at(stage.name));
      const ir::DataflowGraph &df = lowered.dataflow;
      for (ir::NodeId id : df.nodes()) {
        const ir::DataflowNode &node = df.node(id);
        if (node.module != "st_linear")
          continue;
        SCOPED_TRACE(node.name);
        ++linears;
        const plan::HbmBuffer *buffer = nullptr;
        for (const plan::HbmBuffer &b : plan.buffers)
          if (b.kind == "linear_weights" && b.stage == stage.name && b.op == node.name)
            buffer = &b;
        ASSERT_NE(buffer, nullptr);
        const model::LinearParams p = model::linearParamsOf(node);
        const model::LinearParams &img = buffer->linearParams;
        EXPECT_EQ(std::tie(img.k, img.nOut, img.rows, img.kLanes, img.lanes, img.weightBits,
                           img.activationBits, img.groupSize, img.outputBits, img.wordBits),
                  std::tie(p.k, p.nOut, p.rows, p.kLanes, p.lanes, p.weightBits, p.activationBits,
                           p.groupSize, p.outputBits, p.wordBits));
        const ir::ITensorType &w = df.srcPort(df.stream(*df.streamInto({id, 1}))).type;
        EXPECT_EQ(buffer->layerBytes, w.numTokens() * w.elementsPerToken());
        EXPECT_EQ(buffer->layers, stage.repeat);
      }
    }
    EXPECT_GT(linears, 0);
  }
}

TEST(StageLowering, ACacheLengthBeyondTheContextNamesTheAttention) {
  frontend::LoadedModel m = loadFixture("gemma3_tiny");
  StageLoweringOptions o;
  o.maxContext = 16;
  o.cacheLength = 16;
  try {
    lowerStage(m.program.stages.at(1), o);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("attention"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1 .. 15"), std::string::npos) << e.what();
  }
}

TEST(StageLowering, OnePassAttentionNamesTheAttentionWhereItCannotApply) {
  // gpt2_tiny: 4 heads of 12 codes. Its default walk (position-major over every kv head) takes
  // no one pass; block-major over 2 heads a token does, but not in a tile of 3 positions.
  frontend::LoadedModel m = loadFixture("gpt2_tiny");
  StageLoweringOptions o;
  o.maxContext = 64;
  o.cacheLength = 8;
  o.gemvEngine = true;
  o.attentionKvStep = 4;
  o.attentionTilePositions = 32;
  auto errorOf = [&] {
    try {
      lowerStage(m.program.stages.at(1), o);
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = errorOf();
  EXPECT_NE(e.find("attention 'attention'"), std::string::npos) << e;
  EXPECT_NE(e.find("block-major walk"), std::string::npos) << e;
  EXPECT_NE(e.find("walks position-major"), std::string::npos) << e;
  o.attentionKvStep = 2;
  o.attentionBlockMajor = true;
  o.attentionTilePositions = 3;
  e = errorOf();
  EXPECT_NE(e.find("a power of two 2 .. 64"), std::string::npos) << e;
  o.attentionTilePositions = 32;
  const LoweredStage lowered = lowerStage(m.program.stages.at(1), o);
  bool onePass = false;
  for (ir::NodeId id : lowered.dataflow.nodes())
    for (const ir::NodeParam &param : lowered.dataflow.node(id).params)
      onePass = onePass || (param.name == "OnePass" && param.value == 1);
  EXPECT_TRUE(onePass);
}

TEST(StageLowering, FullSizeConfigsLower) {
  for (const char *config :
       {"gpt2-medium", "qwen2.5-0.5b", "tinyllama-1.1b", "llama-3.2-1b", "gemma-3-1b"}) {
    SCOPED_TRACE(config);
    frontend::LoadedModel m = frontend::loadModel(std::string(ST_CONFIG_DIR) + "/" + config,
                                                  frontend::WeightSource::ShapeOnly);
    StageLoweringOptions o;
    o.maxContext = 1024;
    o.cacheLength = 256;
    for (const ir::DecodeStage &stage : m.program.stages) {
      SCOPED_TRACE(stage.name);
      const LoweredStage lowered = lowerStage(stage, o);
      EXPECT_NO_THROW(lowered.dataflow.verify({true, false, false}));
      std::printf("%s %s: %lld codes per token\n", config, stage.name.c_str(),
                  static_cast<long long>(lowered.lanes));
    }
  }
}

} // namespace
} // namespace st::llm
