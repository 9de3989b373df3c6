// DataflowGraph: construction, queries, the verifier and the text form.
#include "ir/dataflow_graph.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "support/error.h"

namespace st::ir {

std::string toString(NodeKind kind) {
  switch (kind) {
  case NodeKind::Kernel:
    return "kernel";
  case NodeKind::View:
    return "view";
  case NodeKind::ReadDma:
    return "read_dma";
  case NodeKind::WriteDma:
    return "write_dma";
  case NodeKind::Converter:
    return "converter";
  case NodeKind::Fork:
    return "fork";
  }
  return "?";
}

DataflowNode readDmaNode(std::string name, ITensorType type) {
  DataflowNode dma;
  dma.kind = NodeKind::ReadDma;
  dma.module = "st_read_dma_stream";
  dma.name = std::move(name);
  dma.outputs = {{"out", std::move(type)}};
  return dma;
}

DataflowNode writeDmaNode(std::string name, ITensorType type) {
  DataflowNode dma;
  dma.kind = NodeKind::WriteDma;
  dma.module = "st_write_dma_stream";
  dma.name = std::move(name);
  dma.inputs = {{"in", std::move(type)}};
  return dma;
}

std::optional<int64_t> DataflowNode::param(const std::string &name) const {
  for (const auto &p : params)
    if (p.name == name && !p.text)
      return p.value;
  return std::nullopt;
}

NodeId DataflowGraph::addNode(DataflowNode node) {
  nodes_.push_back(std::move(node));
  return static_cast<NodeId>(nodes_.size() - 1);
}

StreamId DataflowGraph::connect(PortRef src, PortRef dst, std::string name) {
  if (name.empty())
    name = node(src.node).name + "." + node(src.node).outputs.at(src.port).name + "_to_" +
           node(dst.node).name + "." + node(dst.node).inputs.at(dst.port).name;
  streams_.push_back(Stream{std::move(name), src, dst, 0, true});
  return static_cast<StreamId>(streams_.size() - 1);
}

void DataflowGraph::removeNode(NodeId id) {
  node(id).alive = false;
  for (auto &s : streams_)
    if (s.alive && (s.src.node == id || s.dst.node == id))
      s.alive = false;
}

void DataflowGraph::removeStream(StreamId id) {
  stream(id).alive = false;
}

std::vector<NodeId> DataflowGraph::nodes() const {
  std::vector<NodeId> out;
  for (NodeId i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].alive)
      out.push_back(i);
  return out;
}

std::vector<StreamId> DataflowGraph::streams() const {
  std::vector<StreamId> out;
  for (StreamId i = 0; i < streams_.size(); ++i)
    if (streams_[i].alive)
      out.push_back(i);
  return out;
}

std::vector<StreamId> DataflowGraph::streamsFrom(PortRef src) const {
  std::vector<StreamId> out;
  for (StreamId i = 0; i < streams_.size(); ++i)
    if (streams_[i].alive && streams_[i].src == src)
      out.push_back(i);
  return out;
}

std::optional<StreamId> DataflowGraph::streamInto(PortRef dst) const {
  for (StreamId i = 0; i < streams_.size(); ++i)
    if (streams_[i].alive && streams_[i].dst == dst)
      return i;
  return std::nullopt;
}

std::vector<NodeId> DataflowGraph::topologicalOrder() const {
  std::map<NodeId, unsigned> indegree;
  for (NodeId n : nodes())
    indegree[n] = 0;
  for (StreamId s : streams())
    ++indegree[streams_[s].dst.node];
  std::vector<NodeId> ready, order;
  for (auto [n, d] : indegree)
    if (d == 0)
      ready.push_back(n);
  while (!ready.empty()) {
    std::sort(ready.begin(), ready.end(), std::greater<>());
    NodeId n = ready.back();
    ready.pop_back();
    order.push_back(n);
    for (StreamId s : streams())
      if (streams_[s].src.node == n && --indegree[streams_[s].dst.node] == 0)
        ready.push_back(streams_[s].dst.node);
  }
  if (order.size() != indegree.size()) {
    for (auto [n, d] : indegree)
      if (d != 0)
        throw Error("dataflow graph", "node '" + nodes_[n].name + "'",
                    "an acyclic graph (the node is on a cycle)");
  }
  return order;
}

int64_t DataflowGraph::tokenBits(const Stream &s) const {
  const ITensorType &t = srcPort(s).type;
  return t.elementsPerToken() * elementBits(t.elementType);
}

void DataflowGraph::verify(const DataflowInvariants &inv) const {
  std::set<std::string> names;
  for (NodeId n : nodes()) {
    const DataflowNode &node = nodes_[n];
    const std::string where = ir::toString(node.kind) + " '" + node.name + "'";
    if (!names.insert(node.name).second)
      throw Error("dataflow graph", where, "a unique node name");
    if (node.kind != NodeKind::View && node.module.empty())
      throw Error("dataflow graph", where, "an RTL module");
    auto checkPorts = [&](const std::vector<NodePort> &ports, bool input) {
      for (unsigned p = 0; p < ports.size(); ++p) {
        const std::string portWhere =
            where + (input ? " input '" : " output '") + ports[p].name + "'";
        try {
          ports[p].type.verify();
        } catch (const Error &e) {
          throw Error("dataflow graph", portWhere, "a valid itensor type (" + e.expected() + ")");
        }
        PortRef ref{n, p};
        if (input) {
          unsigned driven = 0;
          for (StreamId s : streams())
            driven += streams_[s].dst == ref;
          if (driven != 1)
            throw Error("dataflow graph", portWhere,
                        "exactly one stream driving it, got " + std::to_string(driven));
        } else {
          size_t fanout = streamsFrom(ref).size();
          if (fanout == 0 || (inv.singleConsumer && fanout != 1))
            throw Error("dataflow graph", portWhere,
                        std::string(inv.singleConsumer ? "exactly one" : "at least one") +
                            " stream leaving it, got " + std::to_string(fanout));
        }
      }
    };
    checkPorts(node.inputs, true);
    checkPorts(node.outputs, false);
  }
  std::set<std::string> streamNames;
  for (StreamId s : streams()) {
    const Stream &st = streams_[s];
    const std::string where = "stream '" + st.name + "'";
    if (!streamNames.insert(st.name).second)
      throw Error("dataflow graph", where, "a unique stream name");
    if (st.src.node >= nodes_.size() || !nodes_[st.src.node].alive ||
        st.src.port >= nodes_[st.src.node].outputs.size() || st.dst.node >= nodes_.size() ||
        !nodes_[st.dst.node].alive || st.dst.port >= nodes_[st.dst.node].inputs.size())
      throw Error("dataflow graph", where, "an output port and an input port of live nodes");
    const ITensorType &a = srcPort(st).type;
    const ITensorType &b = dstPort(st).type;
    if (a.tensorShape() != b.tensorShape() || a.elementType != b.elementType)
      throw Error("dataflow graph", where,
                  "both ends over the same tensor, got " + a.toString() + " and " + b.toString());
    if (inv.typesMatch && !sameStream(a, b))
      throw Error("dataflow graph", where,
                  "the same stream at both ends (a converter between them), got " + a.toString() +
                      " and " + b.toString());
    if (inv.fifosSized && st.fifoDepth < 1)
      throw Error("dataflow graph", where, "a FIFO depth >= 1");
  }
  topologicalOrder();
}

std::string DataflowGraph::toString() const {
  std::ostringstream os;
  for (NodeId n : topologicalOrder()) {
    const DataflowNode &node = nodes_[n];
    os << ir::toString(node.kind) << " @" << node.name;
    if (!node.module.empty())
      os << " = " << node.module;
    if (!node.params.empty()) {
      os << " #(";
      for (size_t i = 0; i < node.params.size(); ++i) {
        const NodeParam &p = node.params[i];
        os << (i ? ", " : "") << p.name << "=";
        if (p.text)
          os << '"' << *p.text << '"';
        else
          os << p.value;
      }
      os << ")";
    }
    for (const auto &[name, value] : node.attributes)
      os << " " << name << "=" << value;
    if (node.fusionGroup)
      os << " group " << node.fusionGroup;
    os << "\n";
    for (const auto &p : node.inputs)
      os << "    in  " << p.name << " : " << p.type.toString() << "\n";
    for (const auto &p : node.outputs)
      os << "    out " << p.name << " : " << p.type.toString() << "\n";
  }
  for (StreamId s : streams()) {
    const Stream &st = streams_[s];
    os << "stream %" << st.name << " : @" << nodes_[st.src.node].name << "." << srcPort(st).name
       << " -> @" << nodes_[st.dst.node].name << "." << dstPort(st).name << " (" << tokenBits(st)
       << " bits";
    if (st.fifoDepth)
      os << ", depth " << st.fifoDepth;
    os << ")\n";
  }
  return os.str();
}

} // namespace st::ir
