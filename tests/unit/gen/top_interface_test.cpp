// TopInterface's kernel arguments and HBM channels, and the Vitis writer's checks: one pointer
// argument per DMA at 0x10 + 12 i, DMAs round-robin over the pseudo-channels, a refill in its
// spill's channel and buffer, the generated header's offsets equal to the interface's, and
// st::Error on an inconsistent description.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/graph_yaml.h"
#include "gen/sv_top_emitter.h"
#include "gen/vitis_writer.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"

namespace {

using namespace st;

struct Compiled {
  frontend::GraphSpec spec;
  passes::CompileState state;
};

std::unique_ptr<Compiled> compile(const std::string &file, std::optional<int64_t> budget = {}) {
  auto c = std::make_unique<Compiled>();
  c->spec = frontend::loadGraphYaml(std::string(ST_GRAPH_DIR) + "/" + file);
  c->state.graph = &c->spec.graph;
  c->state.tilings = c->spec.tilings;
  c->state.forcedLayouts = c->spec.layouts;
  c->state.device = passes::loadDeviceConstraints(ST_DEVICE_YAML);
  c->state.options.memoryBudgetBits = budget;
  std::ostringstream dump;
  passes::runPassPipeline(c->state, "", dump);
  return c;
}

TEST(TopInterface, OnePointerPerDmaAtTheHlsOffsets) {
  auto c = compile("residual.yaml");
  const plan::TopInterface top = plan::topInterfaceOf(c->state.dataflow, "residual", 3);
  ASSERT_EQ(top.args.size(), top.dmas.size());
  ASSERT_EQ(top.dmas.size(), 4u);
  for (size_t i = 0; i < top.args.size(); ++i) {
    EXPECT_TRUE(top.args[i].isPointer);
    EXPECT_EQ(top.args[i].dma, static_cast<int>(i));
    EXPECT_EQ(top.args[i].offset, 0x10u + 12u * i);
    EXPECT_EQ(top.args[i].offset, top.dmas[i].argOffset);
    EXPECT_EQ(top.args[i].name, top.dmas[i].name);
    EXPECT_EQ(top.dmas[i].hbmChannel, i % 3) << "round-robin over 3 channels";
  }
  EXPECT_EQ(top.controlAddrBits, 12u);
  EXPECT_EQ(plan::TopInterface::kFirstArgOffset, 0x10u);
}

TEST(TopInterface, RefillSharesItsSpillsChannel) {
  auto c = compile("residual.yaml", 1100);
  const ir::DataflowGraph &df = c->state.dataflow;
  const plan::TopInterface top = plan::topInterfaceOf(df, "residual");
  std::map<ir::NodeId, unsigned> channel;
  for (const auto &d : top.dmas)
    channel[d.node] = d.hbmChannel;
  unsigned refills = 0;
  for (const auto &d : top.dmas) {
    const auto &after = df.node(d.node).startAfter;
    if (after.empty())
      continue;
    ++refills;
    EXPECT_EQ(d.hbmChannel, channel.at(after.front())) << d.name;
  }
  EXPECT_EQ(refills, 2u);
}

TEST(TopInterface, NoChannelsIsAnError) {
  auto c = compile("chain.yaml");
  EXPECT_THROW(plan::topInterfaceOf(c->state.dataflow, "chain", 0), Error);
}

gen::VitisDesign designOf(const plan::TopInterface &top) {
  gen::VitisDesign d;
  d.top = &top;
  d.design = "chain";
  d.rtlFiles = {"a.sv", "chain_top.sv"};
  d.part = "xcu55c-fsvh2892-2L-e";
  d.platform = "xilinx_u55c_gen3x16_xdma_3_202210_1";
  d.kernelClockMhz = 250;
  for (unsigned i = 0; i < top.args.size(); ++i)
    d.buffers.push_back({"input", 64, "data/x.bin", i});
  return d;
}

TEST(VitisWriter, HeaderOffsetsAreTheInterfaces) {
  auto c = compile("chain.yaml");
  const plan::TopInterface top = plan::topInterfaceOf(c->state.dataflow, "chain");
  const std::string header = gen::kernelHeaderText(designOf(top));
  for (const auto &a : top.args) {
    char line[128];
    std::snprintf(line, sizeof line, "kArgOffset_%s = 0x%02x;", a.name.c_str(), a.offset);
    EXPECT_NE(header.find(line), std::string::npos) << line;
  }
  EXPECT_NE(header.find("namespace chain_kernel"), std::string::npos);
  EXPECT_EQ(gen::kernelHeaderName("chain"), "chain_kernel.h");
}

TEST(VitisWriter, InconsistentDescriptionsAreErrors) {
  auto c = compile("chain.yaml");
  const plan::TopInterface top = plan::topInterfaceOf(c->state.dataflow, "chain");
  gen::VitisDesign d = designOf(top);
  d.buffers.pop_back();
  EXPECT_THROW(gen::kernelHeaderText(d), Error);
  d = designOf(top);
  d.kernelClockMhz = 0;
  EXPECT_THROW(gen::linkConfig(d), Error);
  d = designOf(top);
  d.platform.clear();
  EXPECT_THROW(gen::vitisMakefile(d), Error);
}

} // namespace
