// DataflowGraph: the dataflow IR (docs/architecture.md). Nodes are hardware units — kernels
// (instances of an RTL template or of a generated module), read and write DMAs at the HBM
// boundary, layout converters and forks — and streams connect one node's output port to another
// node's input port. Every port carries the itensor type of the stream it wants to see, so a
// stream whose two ends disagree is a converter still to be inserted. Passes rewrite the graph;
// the verifier checks the invariants the pipeline has established so far.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/itensor_type.h"
#include "ir/tensor_graph.h"

namespace st::ir {

using NodeId = unsigned;
using StreamId = unsigned;

enum class NodeKind {
  Kernel,    ///< computes: an RTL template or a generated module
  View,      ///< no hardware: re-types a stream (reshape, a transpose's lane permutation)
  ReadDma,   ///< streams a tensor out of HBM in its output port's order
  WriteDma,  ///< writes a stream into HBM
  Converter, ///< ping-pong layout converter: written in the input's order, read in the output's
  Fork,      ///< broadcasts one stream to several consumers
};
std::string toString(NodeKind kind);

/// One stream port of a node: its name in the RTL and the itensor it produces or expects.
struct NodePort {
  std::string name;
  ITensorType type;
};

/// A template parameter: an integer, or a string (a table path, say).
struct NodeParam {
  std::string name;
  int64_t value = 0;
  std::optional<std::string> text;
};

struct DataflowNode {
  std::string name;
  NodeKind kind = NodeKind::Kernel;
  /// The RTL module: a template in rtl_templates/ or a module the emitter generates.
  std::string module;
  std::vector<NodeParam> params;
  /// Facts about the node that are not template parameters (a converter's buffer elements and
  /// phases, say), for the fusion pass and the reports.
  std::map<std::string, int64_t> attributes;
  std::vector<NodePort> inputs;
  std::vector<NodePort> outputs;
  /// The tensor-graph op a kernel or view implements.
  std::optional<OpId> op;
  /// The HBM tensor a DMA reads or writes.
  std::optional<TensorId> tensor;
  /// The fusion group (set by the fusion pass; 0 until then).
  unsigned fusionGroup = 0;
  /// A read DMA that refills a stream spilled to HBM between fusion groups starts only once
  /// these write DMAs are done.
  std::vector<NodeId> startAfter;
  /// False once a pass removed the node (ids stay stable; the printer skips dead nodes).
  bool alive = true;

  std::optional<int64_t> param(const std::string &name) const;
};

/// A read DMA (st_read_dma_stream) named `name` whose output port "out" streams `type` from HBM.
DataflowNode readDmaNode(std::string name, ITensorType type);
/// A write DMA (st_write_dma_stream) named `name` whose input port "in" takes `type` to HBM.
DataflowNode writeDmaNode(std::string name, ITensorType type);

struct PortRef {
  NodeId node = 0;
  unsigned port = 0;
  bool operator==(const PortRef &o) const { return node == o.node && port == o.port; }
  bool operator<(const PortRef &o) const { return node != o.node ? node < o.node : port < o.port; }
};

struct Stream {
  std::string name;
  PortRef src; ///< an output port
  PortRef dst; ///< an input port
  /// FIFO depth in tokens (0 until FIFO sizing).
  int64_t fifoDepth = 0;
  bool alive = true;
};

/// What the verifier may rely on: each pass of the pipeline establishes one more property.
struct DataflowInvariants {
  /// Both ends of every stream stream the same tokens in the same order (sameStream).
  bool typesMatch = false;
  /// Every output port drives exactly one stream (forks broadcast).
  bool singleConsumer = false;
  /// Every stream has a FIFO depth >= 1.
  bool fifosSized = false;
};

class DataflowGraph {
public:
  NodeId addNode(DataflowNode node);
  StreamId connect(PortRef src, PortRef dst, std::string name = "");
  void removeNode(NodeId id);
  void removeStream(StreamId id);

  DataflowNode &node(NodeId id) { return nodes_.at(id); }
  const DataflowNode &node(NodeId id) const { return nodes_.at(id); }
  Stream &stream(StreamId id) { return streams_.at(id); }
  const Stream &stream(StreamId id) const { return streams_.at(id); }
  unsigned numNodeIds() const { return static_cast<unsigned>(nodes_.size()); }
  unsigned numStreamIds() const { return static_cast<unsigned>(streams_.size()); }
  /// Live node and stream ids, in creation order.
  std::vector<NodeId> nodes() const;
  std::vector<StreamId> streams() const;

  /// Live streams leaving / entering a port.
  std::vector<StreamId> streamsFrom(PortRef src) const;
  std::optional<StreamId> streamInto(PortRef dst) const;
  /// Live nodes in an order where producers come before consumers; throws on a cycle.
  std::vector<NodeId> topologicalOrder() const;

  const NodePort &srcPort(const Stream &s) const { return node(s.src.node).outputs.at(s.src.port); }
  const NodePort &dstPort(const Stream &s) const { return node(s.dst.node).inputs.at(s.dst.port); }
  /// Bits of one token of the stream (element count times element bits).
  int64_t tokenBits(const Stream &s) const;

  /// Throws st::Error naming the node, port or stream unless: names are unique; every port of a
  /// live node has a verified itensor type; every input port is driven by exactly one stream and
  /// every output port drives at least one; streams join an output to an input of live nodes;
  /// both ends describe the same tensor; the graph is acyclic; plus what `invariants` claims.
  void verify(const DataflowInvariants &invariants) const;
  /// The text form printed by --dump-after: one line per node, then one per stream.
  std::string toString() const;

  /// The tensor graph the kernels implement (ops and tensors named by the nodes).
  const TensorGraph *source = nullptr;

private:
  std::vector<DataflowNode> nodes_;
  std::vector<Stream> streams_;
};

} // namespace st::ir
