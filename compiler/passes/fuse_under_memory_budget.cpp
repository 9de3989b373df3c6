// Pass fuse: fusion under the on-chip memory budget (the paper's Algorithm 2). Nodes are visited
// in topological order; each joins the latest fusion group among its producers if that group's
// on-chip memory plus the node's own (a converter's ping-pong buffer) stays within the budget
// (constraints/<device>.yaml, or --memory-budget), else it opens a new group. A stream between
// two groups is cut: the producer's group writes it to HBM and the consumer's group reads it
// back once that write is done. A node that alone exceeds the budget is an error naming it.
#include <algorithm>

#include "model/kernel_templates.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"

namespace st::passes {

namespace {

/// On-chip memory a node needs, in bits (converters: both ping-pong banks).
int64_t onChipBits(const ir::DataflowNode &node) {
  if (node.kind != ir::NodeKind::Converter)
    return 0;
  return 2 * node.attributes.at("buffer_elements") *
         model::layoutConverterTemplate().decode(node).elementBits;
}

bool isDma(const ir::DataflowNode &node) {
  return node.kind == ir::NodeKind::ReadDma || node.kind == ir::NodeKind::WriteDma;
}

} // namespace

void fuseUnderMemoryBudget(CompileState &state) {
  ir::DataflowGraph &df = state.dataflow;
  const int64_t budget = state.options.memoryBudgetBits.value_or(state.device.onChipMemoryBits);
  std::vector<int64_t> groupBits{0}; // index 0 unused: groups count from 1
  for (ir::NodeId n : df.topologicalOrder()) {
    ir::DataflowNode &node = df.node(n);
    if (isDma(node))
      continue;
    const int64_t bits = onChipBits(node);
    if (bits > budget)
      throw Error("fusion", ir::toString(node.kind) + " '" + node.name + "'",
                  "at most the on-chip memory budget of " + std::to_string(budget) +
                      " bits, needs " + std::to_string(bits) +
                      " (choose tilings whose orders share more loops, or smaller tiles)");
    // The latest group among the node's on-chip producers; a node fed only from HBM considers
    // the latest group formed so far.
    unsigned latest = 0;
    bool hasProducer = false;
    for (ir::StreamId s : df.streams())
      if (df.stream(s).dst.node == n && !isDma(df.node(df.stream(s).src.node))) {
        latest = std::max(latest, df.node(df.stream(s).src.node).fusionGroup);
        hasProducer = true;
      }
    if (!hasProducer)
      latest = static_cast<unsigned>(groupBits.size() - 1);
    if (latest == 0 || groupBits[latest] + bits > budget) {
      groupBits.push_back(0);
      latest = static_cast<unsigned>(groupBits.size() - 1);
    }
    node.fusionGroup = latest;
    groupBits[latest] += bits;
  }
  // DMAs belong to the group of the node they feed or drain.
  for (ir::StreamId s : df.streams()) {
    ir::Stream &st = df.stream(s);
    if (df.node(st.src.node).kind == ir::NodeKind::ReadDma)
      df.node(st.src.node).fusionGroup = df.node(st.dst.node).fusionGroup;
    if (df.node(st.dst.node).kind == ir::NodeKind::WriteDma)
      df.node(st.dst.node).fusionGroup = df.node(st.src.node).fusionGroup;
  }
  // Cut the streams that cross groups through HBM.
  for (ir::StreamId s : df.streams()) {
    const ir::Stream st = df.stream(s);
    const unsigned from = df.node(st.src.node).fusionGroup;
    const unsigned to = df.node(st.dst.node).fusionGroup;
    if (from == to)
      continue;
    const ir::ITensorType type = df.srcPort(st).type;
    const std::string base = df.node(st.src.node).name + "_to_" + df.node(st.dst.node).name;
    ir::DataflowNode spill = ir::writeDmaNode("spill_" + base, type);
    spill.fusionGroup = from;
    ir::DataflowNode fill = ir::readDmaNode("fill_" + base, type);
    fill.fusionGroup = to;
    df.removeStream(s);
    const ir::NodeId w = df.addNode(std::move(spill));
    fill.startAfter = {w};
    const ir::NodeId r = df.addNode(std::move(fill));
    df.connect(st.src, {w, 0});
    df.connect({r, 0}, st.dst);
  }
  state.numFusionGroups = static_cast<unsigned>(groupBits.size() - 1);
  if (state.numFusionGroups == 0)
    state.numFusionGroups = 1;
}

} // namespace st::passes
