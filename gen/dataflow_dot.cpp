// Dataflow picture as Graphviz DOT (see dataflow_dot.h).
#include "gen/dataflow_dot.h"

#include <map>
#include <set>
#include <sstream>

namespace st::gen {

namespace {

/// `text` escaped for the inside of a DOT string, '\n' as a centred line break.
std::string dotEscaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

/// Shape and fill per node kind.
std::string nodeStyle(const std::string &kind) {
  if (kind == "dma")
    return "shape=box, style=\"filled\", fillcolor=\"#fdf0d5\"";
  if (kind == "fork")
    return "shape=diamond, style=\"filled\", fillcolor=\"#e8e8e8\", fontsize=8";
  if (kind == "converter")
    return "shape=box3d, style=\"filled\", fillcolor=\"#e6f2e6\"";
  if (kind == "control")
    return "shape=octagon, style=\"filled\", fillcolor=\"#efe3f7\"";
  if (kind == "view")
    return "shape=box, style=\"dashed\"";
  return "shape=box, style=\"rounded,filled\", fillcolor=\"#e3ecf9\"";
}

std::string hbmNode(int64_t channel) {
  return "HBM[" + std::to_string(channel) + "]";
}

} // namespace

std::string dotQuoted(const std::string &text) {
  return "\"" + dotEscaped(text) + "\"";
}

std::string dataflowDot(const DataflowPicture &p) {
  std::ostringstream os;
  os << "digraph dataflow {\n"
     << "  graph [rankdir=" << (p.topToBottom ? "TB" : "LR")
     << ", fontname=\"Helvetica\", fontsize=14, labelloc=t, label=" << dotQuoted(p.title)
     << ", newrank=true, nodesep=0.6, ranksep=0.6];\n"
     << "  node [fontname=\"Helvetica\", fontsize=10, margin=\"0.12,0.04\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#505050\", arrowsize=0.6];\n";

  // Nodes, clustered by group in order of first appearance.
  std::vector<std::string> groups;
  std::map<std::string, std::vector<const DataflowPicture::Node *>> byGroup;
  std::set<std::string> known;
  for (const DataflowPicture::Node &n : p.nodes) {
    if (!byGroup.count(n.group))
      groups.push_back(n.group);
    byGroup[n.group].push_back(&n);
    known.insert(n.name);
  }
  auto writeNode = [&](const DataflowPicture::Node &n, const std::string &indent) {
    const std::string label = n.detail.empty() ? n.name : n.name + "\n" + n.detail;
    os << indent << dotQuoted(n.name) << " [label=" << dotQuoted(label) << ", " << nodeStyle(n.kind)
       << "];\n";
  };
  size_t cluster = 0;
  for (const std::string &g : groups) {
    if (g.empty()) {
      for (const DataflowPicture::Node *n : byGroup[g])
        writeNode(*n, "  ");
      continue;
    }
    os << "  subgraph cluster_" << cluster++ << " {\n"
       << "    label=" << dotQuoted(g) << "; style=\"rounded,filled\"; fillcolor=\"#f6f6f6\"; "
       << "color=\"#b0b0b0\"; fontsize=12;\n";
    for (const DataflowPicture::Node *n : byGroup[g])
      writeNode(*n, "    ");
    os << "  }\n";
  }
  for (const DataflowPicture::Edge &e : p.edges)
    for (const std::string *end : {&e.from, &e.to})
      if (known.insert(*end).second)
        os << "  " << dotQuoted(*end) << " [shape=box, style=\"dotted\"];\n";

  // HBM pseudo-channels, one cylinder each, in one cluster.
  std::set<int64_t> channels;
  for (const DataflowPicture::HbmPort &h : p.hbmPorts)
    channels.insert(h.channels.begin(), h.channels.end());
  if (!channels.empty()) {
    os << "  subgraph cluster_hbm {\n"
       << "    label=\"HBM pseudo-channels\"; style=\"rounded\"; color=\"#c08000\"; fontsize=12;\n";
    for (int64_t c : channels)
      os << "    " << dotQuoted(hbmNode(c)) << " [shape=cylinder, style=\"filled\", "
         << "fillcolor=\"#fff2c8\", label=" << dotQuoted(hbmNode(c)) << "];\n";
    os << "  }\n";
  }

  for (const DataflowPicture::Edge &e : p.edges) {
    os << "  " << dotQuoted(e.from) << " -> " << dotQuoted(e.to)
       << " [label=" << dotQuoted(e.label);
    if (!e.color.empty())
      os << ", color=" << dotQuoted(e.color) << ", fontcolor=" << dotQuoted(e.color);
    if (e.width != 1.0)
      os << ", penwidth=" << e.width;
    if (e.bold)
      os << ", style=bold";
    os << "];\n";
  }
  for (const DataflowPicture::HbmPort &h : p.hbmPorts)
    for (int64_t c : h.channels) {
      const std::string from = h.read ? hbmNode(c) : h.node;
      const std::string to = h.read ? h.node : hbmNode(c);
      os << "  " << dotQuoted(from) << " -> " << dotQuoted(to) << " [label=" << dotQuoted(h.port)
         << ", style=dashed, color=\"#c08000\", fontcolor=\"#8a5c00\"];\n";
    }

  if (!p.legend.empty()) {
    std::string text; // left-aligned lines: each ends in \l
    for (const std::string &line : p.legend)
      text += dotEscaped(line) + "\\l";
    os << "  legend [shape=note, fontsize=9, style=\"filled\", fillcolor=\"#ffffff\", label=\""
       << text << "\"];\n";
  }
  os << "}\n";
  return os.str();
}

} // namespace st::gen
