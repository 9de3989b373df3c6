// Dataflow picture: a Graphviz DOT text of a design's kernels, streams and HBM ports, drawn
// from a small plain description (names, labels, groups, colours) that knows nothing of the
// compiler's IR. The compile fills one from report.json for every design directory
// (dataflow.dot -> dataflow.svg: kernels clustered by stage or fusion group, streams labelled
// with their itensor type and FIFO depth, each AXI master's pseudo-channels); `sim` fills one
// from sim/stall_report.json (gen/stall_picture.h) with the streams coloured by stall and
// starve fractions. Rendering (`dot -Tsvg`) is the caller's business.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace st::gen {

struct DataflowPicture {
  std::string title; ///< drawn above the graph (lines separated by '\n')
  struct Node {
    std::string name;   ///< unique; the DOT node id
    std::string detail; ///< second line of the box (the module), may be empty
    std::string group;  ///< cluster it is drawn in ("" for none)
    /// kernel, dma, fork, converter, control or view: picks the shape and fill.
    std::string kind = "kernel";
  };
  struct Edge {
    std::string from, to; ///< node names
    std::string label;    ///< lines separated by '\n'
    std::string color;    ///< "#rrggbb"; "" for the default
    double width = 1.0;   ///< pen width
    bool bold = false;
  };
  /// An AXI master: drawn as an edge between its DMA node and each HBM pseudo-channel it uses
  /// (channel -> node for a read master, node -> channel for a write master).
  struct HbmPort {
    std::string port; ///< m_axi_<name>
    std::string node; ///< the DMA (or kernel) node that owns it
    bool read = true;
    std::vector<int64_t> channels;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<HbmPort> hbmPorts;
  /// Lines of a legend box; none when empty.
  std::vector<std::string> legend;
  /// Top-to-bottom (true) or left-to-right layout.
  bool topToBottom = true;
};

/// The DOT text. Clusters appear in the order their group first appears among the nodes; an
/// edge naming a node that is not in `nodes` gets a plain node of that name.
std::string dataflowDot(const DataflowPicture &picture);

/// `text` as a DOT double-quoted string (quotes and backslashes escaped, '\n' kept as a line
/// break).
std::string dotQuoted(const std::string &text);

} // namespace st::gen
