// designResources (plan/design_resources.h): every instance of the generated top is costed once
// (kernels, DMA streams, one st_fifo per stream at its sized depth, the control slave), the
// total is the sum of the parts, a module without a model is an st::Error naming the node; and
// the st_fifo memory rule and BRAM tiling of compiler/model/fifo_resources.h.
#include <memory>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "frontend/graph_yaml.h"
#include "model/axi_lite_ctrl_resources.h"
#include "model/fifo_resources.h"
#include "passes/pass_pipeline.h"
#include "plan/design_resources.h"
#include "support/error.h"

namespace {

using namespace st;

struct Compiled {
  frontend::GraphSpec spec;
  passes::CompileState state;
};

std::unique_ptr<Compiled> compile(const std::string &file) {
  auto c = std::make_unique<Compiled>();
  c->spec = frontend::loadGraphYaml(std::string(ST_GRAPH_DIR) + "/" + file);
  c->state.graph = &c->spec.graph;
  c->state.tilings = c->spec.tilings;
  c->state.forcedLayouts = c->spec.layouts;
  c->state.device = passes::loadDeviceConstraints(ST_DEVICE_YAML);
  std::ostringstream dump;
  passes::runPassPipeline(c->state, "", dump);
  return c;
}

TEST(DesignResources, EveryInstanceOnceAndTheTotalIsTheirSum) {
  auto c = compile("reshape_chain.yaml");
  const ir::DataflowGraph &df = c->state.dataflow;
  const plan::DesignResources r = plan::designResources(df);
  model::ResourceEstimate sum;
  size_t fifos = 0, dmas = 0, controls = 0;
  for (const auto &p : r.parts) {
    sum += p.estimate;
    fifos += p.module == "st_fifo";
    dmas += p.module == "st_read_dma_stream" || p.module == "st_write_dma_stream";
    controls += p.module == "st_axi_lite_ctrl";
    EXPECT_GT(p.estimate.lut + p.estimate.ff, 0) << p.name;
  }
  EXPECT_EQ(fifos, df.streams().size());
  EXPECT_EQ(dmas, 2u);
  EXPECT_EQ(controls, 1u);
  // neg, inc (the view costs nothing), two DMAs, four FIFOs, the control slave.
  EXPECT_EQ(r.parts.size(), 2u + 2u + df.streams().size() + 1u);
  EXPECT_EQ(r.total.lut, sum.lut);
  EXPECT_EQ(r.total.ff, sum.ff);
  EXPECT_EQ(r.total.bram36, sum.bram36);
  // The read DMA's data buffer (256 x 512 bits) is the design's only BRAM: 15 RAMB18.
  EXPECT_EQ(r.total.bram36, 7.5);
  // Two 64-bit pointers in the control slave, plus the DMA sequencing.
  EXPECT_GE(r.total.ff - r.fifos.ff, model::axiLiteCtrlResources(2, 3).ff);
}

TEST(DesignResources, FifosAtTheirSizedDepth) {
  auto c = compile("reshape_chain.yaml");
  ir::DataflowGraph &df = c->state.dataflow;
  const plan::DesignResources shallow = plan::designResources(df);
  const ir::StreamId s = df.streams().front();
  const int64_t bits = df.tokenBits(df.stream(s));
  df.stream(s).fifoDepth = 1000; // BRAM
  const plan::DesignResources deep = plan::designResources(df);
  EXPECT_EQ(deep.total.bram36 - shallow.total.bram36, model::blockRamTiles(bits, 1000));
  EXPECT_GT(deep.fifos.bram36, 0);
}

TEST(DesignResources, ModuleWithoutModelNamesTheNode) {
  auto c = compile("reshape_chain.yaml");
  ir::DataflowGraph &df = c->state.dataflow;
  for (ir::NodeId n : df.nodes())
    if (df.node(n).name == "neg") {
      df.node(n).module = "st_mystery";
      df.node(n).op.reset();
    }
  try {
    plan::designResources(df);
    FAIL() << "expected st::Error";
  } catch (const Error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("neg"), std::string::npos) << what;
    EXPECT_NE(what.find("st_mystery"), std::string::npos) << what;
  }
}

TEST(FifoResources, MemoryFollowsTheRtlRule) {
  EXPECT_EQ(model::fifoMemoryOf(512, 4), model::FifoMemory::Registers);
  EXPECT_EQ(model::fifoMemoryOf(8, 5), model::FifoMemory::Distributed);
  EXPECT_EQ(model::fifoMemoryOf(8, 64), model::FifoMemory::Distributed);
  EXPECT_EQ(model::fifoMemoryOf(8, 65), model::FifoMemory::Block);
  EXPECT_EQ(model::fifoMemoryOf(36, 4096), model::FifoMemory::Ultra); // 147,456 bits
  EXPECT_EQ(model::fifoMemoryOf(35, 4096), model::FifoMemory::Block);
  EXPECT_EQ(model::fifoMemoryOf(72, 4095), model::FifoMemory::Block);
  // Registers cost Depth x Width flip-flops; RAM-based FIFOs do not.
  EXPECT_GE(model::fifoResources(32, 4).ff, 128);
  EXPECT_LT(model::fifoResources(32, 64).ff, 64);
}

TEST(FifoResources, BlockRamTiling) {
  EXPECT_EQ(model::blockRamTiles(512, 256), 7.5); // 15 RAMB18 of 512 x 36
  EXPECT_EQ(model::blockRamTiles(32, 1024), 1.0);
  EXPECT_EQ(model::blockRamTiles(18, 1024), 0.5);
  EXPECT_EQ(model::blockRamTiles(72, 512), 1.0);
  EXPECT_EQ(model::blockRamTiles(8, 4096), 1.0); // 4K x 9 RAMB36
}

} // namespace
