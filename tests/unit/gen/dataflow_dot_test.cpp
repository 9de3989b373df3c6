// The picture emitters: dataflowDot's text (clusters per group, node shapes per kind, labelled
// streams, HBM pseudo-channels with their AXI masters, escaping) and that Graphviz `dot` renders
// it (exit 0; graphviz is in tools/deps.sh); stallPicture's colours and labels from a stall
// report, its deadlock emphasis, and its errors naming the report's file and field.
#include "gen/dataflow_dot.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gen/stall_picture.h"
#include "support/error.h"

namespace st::gen {
namespace {

DataflowPicture smallDesign() {
  DataflowPicture p;
  p.title = "tiny \"design\"\nsecond line";
  p.nodes = {{"rd_x", "st_read_dma_stream", "block", "dma"},
             {"norm", "st_norm", "block", "kernel"},
             {"fork", "st_fork", "block", "fork"},
             {"loop", "st_layer_loop", "control", "control"},
             {"wr_y", "st_write_dma_stream", "", "dma"}};
  p.edges = {{"rd_x", "norm",
              "itensor<2xi8, iter_space: [4]*[2], iter_map: (d0)->(d0)>\nFIFO "
              "depth 2"},
             {"norm", "fork", "a\\b"},
             {"fork", "loop", "x"},
             {"fork", "wr_y", "y"}};
  p.hbmPorts = {{"m_axi_rd_x", "rd_x", true, {3}}, {"m_axi_wr_y", "wr_y", false, {0, 1}}};
  return p;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(DataflowDot, ClustersKindsStreamsAndChannels) {
  const std::string dot = dataflowDot(smallDesign());
  EXPECT_EQ(count(dot, "subgraph cluster_"), 3u); // block, control, hbm
  EXPECT_NE(dot.find("label=\"block\""), std::string::npos);
  EXPECT_NE(dot.find("\"rd_x\" [label=\"rd_x\\nst_read_dma_stream\", shape=box, style=\"filled\""),
            std::string::npos);
  EXPECT_NE(dot.find("\"fork\" [label=\"fork\\nst_fork\", shape=diamond"), std::string::npos);
  EXPECT_NE(dot.find("\"loop\" [label=\"loop\\nst_layer_loop\", shape=octagon"), std::string::npos);
  EXPECT_NE(dot.find("\"rd_x\" -> \"norm\" [label=\"itensor<2xi8, iter_space: [4]*[2], "
                     "iter_map: (d0)->(d0)>\\nFIFO depth 2\"]"),
            std::string::npos);
  // Read masters come from their channel, write masters go to each of theirs.
  EXPECT_NE(dot.find("\"HBM[3]\" -> \"rd_x\" [label=\"m_axi_rd_x\""), std::string::npos);
  EXPECT_NE(dot.find("\"wr_y\" -> \"HBM[0]\" [label=\"m_axi_wr_y\""), std::string::npos);
  EXPECT_NE(dot.find("\"wr_y\" -> \"HBM[1]\" [label=\"m_axi_wr_y\""), std::string::npos);
  EXPECT_EQ(count(dot, "shape=cylinder"), 3u);
  // Quotes and backslashes escaped, line breaks kept.
  EXPECT_NE(dot.find("label=\"tiny \\\"design\\\"\\nsecond line\""), std::string::npos);
  EXPECT_NE(dot.find("[label=\"a\\\\b\"]"), std::string::npos);
}

TEST(DataflowDot, EdgeToAnUnknownNodeGetsAPlainNode) {
  DataflowPicture p;
  p.edges = {{"a", "b", "s"}};
  const std::string dot = dataflowDot(p);
  EXPECT_NE(dot.find("\"a\" [shape=box, style=\"dotted\"]"), std::string::npos);
  EXPECT_NE(dot.find("\"b\" [shape=box, style=\"dotted\"]"), std::string::npos);
}

/// Runs Graphviz on `dot`; returns its exit status (0: rendered).
int renderWithGraphviz(const std::string &dot, const std::string &name) {
  const auto dir = std::filesystem::temp_directory_path() / ("st_dot_" + name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in.dot") << dot;
  const std::string cmd =
      "dot -Tsvg '" + (dir / "in.dot").string() + "' -o '" + (dir / "out.svg").string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(rc != 0 || std::filesystem::file_size(dir / "out.svg") > 0);
  return rc;
}

TEST(DataflowDot, GraphvizRendersIt) {
  EXPECT_EQ(renderWithGraphviz(dataflowDot(smallDesign()), "design"), 0)
      << "dot failed or is missing (apt-get install graphviz)";
}

nlohmann::json stallReport() {
  return nlohmann::json::parse(R"({"top":"t_top","seed":3,"profiled_cycles":200,
    "deadlock":true,"watchdog":{"wait_cycle":[{"kernel":"a","waits_for":"b","stream":"a.o_to_b.i",
    "because":"full"}]},"streams":[
    {"name":"a.o_to_b.i","producer":"a.o","consumer":"b.i","stalled_on_ready":150,
     "starved_on_valid":0,"fifo_high_water":2,"fifo_depth":2},
    {"name":"b.o_to_c.i","producer":"b.o","consumer":"c.i","stalled_on_ready":0,
     "starved_on_valid":100,"fifo_high_water":1,"fifo_depth":4},
    {"name":"c.o_to_d.i","producer":"c.o","consumer":"d.i","stalled_on_ready":0,
     "starved_on_valid":0,"fifo_high_water":1,"fifo_depth":2}]})");
}

TEST(StallPicture, ColoursLabelsAndTheDeadlockCycle) {
  DataflowPicture design;
  design.nodes = {{"b", "st_norm", "block", "kernel"}};
  const DataflowPicture p = stallPicture(stallReport(), &design, "sim/stall_report.json");
  ASSERT_EQ(p.edges.size(), 3u);
  ASSERT_EQ(p.nodes.size(), 4u); // a, b, c, d: the ports are stripped
  EXPECT_EQ(p.nodes[1].name, "b");
  EXPECT_EQ(p.nodes[1].group, "block"); // known to the design: its group and module
  EXPECT_EQ(p.nodes[1].detail, "st_norm");
  EXPECT_EQ(p.edges[0].from, "a");
  EXPECT_EQ(p.edges[0].to, "b");
  EXPECT_NE(p.edges[0].label.find("stalled 75 %, starved 0 %"), std::string::npos);
  EXPECT_NE(p.edges[0].label.find("FIFO 2 / 2"), std::string::npos);
  EXPECT_NE(p.edges[0].label.find("wait-for cycle"), std::string::npos);
  EXPECT_TRUE(p.edges[0].bold);
  EXPECT_FALSE(p.edges[1].bold);
  EXPECT_NE(p.edges[1].label.find("stalled 0 %, starved 50 %"), std::string::npos);
  EXPECT_EQ(p.edges[0].color, stallColor(0.75, 0));
  EXPECT_EQ(p.edges[2].color, "#8c8c8c"); // neither: grey
  EXPECT_DOUBLE_EQ(p.edges[0].width, 1 + 5 * 0.75);
  EXPECT_DOUBLE_EQ(p.edges[2].width, 1.0);
  EXPECT_NE(p.title.find("t_top"), std::string::npos);
  EXPECT_EQ(renderWithGraphviz(dataflowDot(p), "stall"), 0);
}

TEST(StallPicture, ColourMovesTowardsRedWithStallsAndBlueWithStarving) {
  auto rgb = [](const std::string &c) {
    return std::array<int, 3>{std::stoi(c.substr(1, 2), nullptr, 16),
                              std::stoi(c.substr(3, 2), nullptr, 16),
                              std::stoi(c.substr(5, 2), nullptr, 16)};
  };
  const auto grey = rgb(stallColor(0, 0)), red = rgb(stallColor(1, 0)),
             blue = rgb(stallColor(0, 1)), half = rgb(stallColor(0.5, 0));
  EXPECT_EQ(grey[0], grey[2]);
  EXPECT_GT(red[0], half[0]);
  EXPECT_GT(half[0], grey[0]);
  EXPECT_LT(red[2], grey[2]);
  EXPECT_GT(blue[2], grey[2]);
  EXPECT_LT(blue[0], grey[0]);
  EXPECT_EQ(stallColor(2, -1), stallColor(1, 0)); // clamped
}

TEST(StallPicture, MissingFieldsNameTheFile) {
  try {
    stallPicture(nlohmann::json::object(), nullptr, "d/sim/stall_report.json");
    ADD_FAILURE();
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "d/sim/stall_report.json");
    EXPECT_EQ(e.field(), "streams");
  }
  nlohmann::json r = stallReport();
  r["streams"][1].erase("fifo_depth");
  try {
    stallPicture(r, nullptr, "s.json");
    ADD_FAILURE();
  } catch (const Error &e) {
    EXPECT_EQ(e.field(), "streams[1].fifo_depth");
  }
}

} // namespace
} // namespace st::gen
