// Stream probes (gen/stream_probes.h): one per stream of the dataflow graph, named exactly as
// the emitted top names its wires (every probed signal is declared in emitTop's text, with the
// width the probe says), ordered by producer, round-tripping through the manifest JSON (and an
// st::Error naming the entry when a field is missing), one public_flat_rd line per probed
// signal in the Verilator config, and a GTKWave save file with one group per producer node.
#include <algorithm>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/graph_yaml.h"
#include "gen/stream_probes.h"
#include "gen/sv_top_emitter.h"
#include "passes/pass_pipeline.h"
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

/// Width of every `wire [m:0] a, b;` and `wire a, b;` the top declares.
std::map<std::string, int64_t> declaredWires(const std::string &sv) {
  std::map<std::string, int64_t> out;
  std::regex decl(R"(^\s*wire\s+(\[(\d+):0\]\s+)?([^;]+);)");
  std::istringstream lines(sv);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, decl))
      continue;
    const int64_t bits = m[2].matched ? std::stoll(m[2]) + 1 : 1;
    std::istringstream names(m[3].str());
    for (std::string n; std::getline(names, n, ',');) {
      n.erase(0, n.find_first_not_of(' '));
      n.erase(n.find_last_not_of(' ') + 1);
      out[n] = bits;
    }
  }
  return out;
}

TEST(StreamProbes, NameTheTopsWiresWithTheirWidths) {
  auto c = compile("diamond.yaml");
  const ir::DataflowGraph &df = c->state.dataflow;
  const plan::TopInterface top = plan::topInterfaceOf(df, "diamond");
  const std::map<std::string, int64_t> wires = declaredWires(gen::emitTop(df, top));
  const std::vector<gen::StreamProbe> probes = gen::streamProbesOf(df);
  ASSERT_EQ(probes.size(), df.streams().size());
  for (const gen::StreamProbe &p : probes) {
    for (const std::string &one : {p.inValid(), p.inReady(), p.outValid(), p.outReady()}) {
      ASSERT_TRUE(wires.count(one)) << one;
      EXPECT_EQ(wires.at(one), 1) << one;
    }
    for (const std::string &data : {p.inData(), p.outData()}) {
      ASSERT_TRUE(wires.count(data)) << data;
      EXPECT_EQ(wires.at(data), p.tokenBits) << data;
    }
    for (const std::string &count : {p.fifoCount(), p.fifoMaxCount()}) {
      ASSERT_TRUE(wires.count(count)) << count;
      EXPECT_EQ(wires.at(count), p.countBits) << count;
    }
    EXPECT_GT(p.tokens, 0) << p.name;
    EXPECT_GE(p.fifoDepth, 2) << p.name;
  }
  // diamond's bypass: sized 12 by the LP, a 4-bit count ($clog2(13)).
  const auto bypass = std::find_if(probes.begin(), probes.end(), [](const gen::StreamProbe &p) {
    return p.name == "fork_pre.out1_to_cvt_pre_1.in";
  });
  ASSERT_NE(bypass, probes.end());
  EXPECT_EQ(bypass->producer, "fork_pre");
  EXPECT_EQ(bypass->consumer, "cvt_pre_1");
  EXPECT_EQ(bypass->fifoDepth, 12);
  EXPECT_EQ(bypass->countBits, 4u);
  EXPECT_EQ(bypass->tokens, 16);
  // Producers in topological order: a producer's streams are adjacent, and no producer comes
  // after one of its consumers.
  std::map<std::string, size_t> first;
  for (size_t i = 0; i < probes.size(); ++i)
    first.emplace(probes[i].producer, i);
  for (size_t i = 0; i < probes.size(); ++i) {
    EXPECT_TRUE(i == 0 || probes[i].producer == probes[i - 1].producer ||
                first.at(probes[i].producer) == i)
        << probes[i].name;
    if (first.count(probes[i].consumer))
      EXPECT_LT(first.at(probes[i].producer), first.at(probes[i].consumer)) << probes[i].name;
  }
}

TEST(StreamProbes, RoundTripThroughTheManifest) {
  auto c = compile("residual.yaml");
  const std::vector<gen::StreamProbe> probes = gen::streamProbesOf(c->state.dataflow);
  const nlohmann::json j = gen::streamProbesJson(probes);
  const std::vector<gen::StreamProbe> back = gen::streamProbesFromJson(j, "design.json");
  ASSERT_EQ(back.size(), probes.size());
  EXPECT_EQ(gen::streamProbesJson(back), j);

  nlohmann::json broken = j;
  broken[1].erase("signal");
  try {
    gen::streamProbesFromJson(broken, "design.json");
    FAIL() << "a probe without a signal must be an error";
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "design.json");
    EXPECT_EQ(e.field(), "streams[1]");
  }
  EXPECT_THROW(gen::streamProbesFromJson(nlohmann::json::object(), "design.json"), Error);
}

TEST(StreamProbes, VerilatorConfigAndGtkwaveSaveFile) {
  auto c = compile("diamond.yaml");
  const std::vector<gen::StreamProbe> probes = gen::streamProbesOf(c->state.dataflow);
  const std::string vlt = gen::probeVerilatorConfig(probes, "diamond_top");
  EXPECT_NE(vlt.find("`verilator_config\n"), std::string::npos);
  size_t lines = 0;
  for (size_t at = vlt.find("public_flat_rd -module \"diamond_top\" -var \"");
       at != std::string::npos; at = vlt.find("public_flat_rd", at + 1))
    ++lines;
  // Six signals per stream, and the kernel's start and done for its span (tb/kernel_span.h).
  EXPECT_EQ(lines, 6 * probes.size() + 2);
  for (const gen::StreamProbe &p : probes)
    EXPECT_NE(vlt.find("-var \"" + p.fifoMaxCount() + "\""), std::string::npos) << p.name;
  EXPECT_NE(vlt.find(std::string("-var \"") + gen::kKernelStartSignal + "\""), std::string::npos);
  EXPECT_NE(vlt.find(std::string("-var \"") + gen::kKernelDoneSignal + "\""), std::string::npos);

  const std::string gtkw =
      gen::gtkwaveSaveFile(probes, "dut.diamond_top", "/x/trace.fst", "/x/trace.gtkw");
  EXPECT_NE(gtkw.find("[dumpfile] \"/x/trace.fst\"\n"), std::string::npos);
  std::set<std::string> producers;
  for (const gen::StreamProbe &p : probes)
    producers.insert(p.producer);
  size_t opened = 0, closed = 0;
  for (size_t at = gtkw.find("@800200\n-"); at != std::string::npos;
       at = gtkw.find("@800200\n-", at + 1))
    ++opened;
  for (size_t at = gtkw.find("@1000200\n-"); at != std::string::npos;
       at = gtkw.find("@1000200\n-", at + 1))
    ++closed;
  EXPECT_EQ(opened, producers.size());
  EXPECT_EQ(closed, producers.size());
  EXPECT_NE(gtkw.find("\ndut.diamond_top.s10_cvt_pre_1_out_to_right_a_fifo_count[1:0]\n"),
            std::string::npos);
  EXPECT_NE(gtkw.find("\n-fork_pre (st_fork)\n"), std::string::npos);
}

} // namespace
