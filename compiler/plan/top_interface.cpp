// The top's interface: DMA ports, HBM channels and register map (see top_interface.h).
#include "plan/top_interface.h"

#include <cctype>
#include <map>

#include "support/error.h"

namespace st::plan {

std::string svIdentifier(const std::string &name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "n_" + out;
  return out;
}

TopInterface topInterfaceOf(const ir::DataflowGraph &df, const std::string &designName,
                            unsigned hbmPseudoChannels) {
  if (hbmPseudoChannels == 0)
    throw Error("emitter", "design '" + designName + "'", "at least one HBM pseudo-channel");
  TopInterface top;
  top.module = svIdentifier(designName) + "_top";
  unsigned offset = TopInterface::kFirstArgOffset;
  std::map<ir::NodeId, unsigned> channelOf;
  for (ir::NodeId n : df.nodes()) {
    const ir::DataflowNode &node = df.node(n);
    if (node.kind != ir::NodeKind::ReadDma && node.kind != ir::NodeKind::WriteDma)
      continue;
    const bool isRead = node.kind == ir::NodeKind::ReadDma;
    const ir::ITensorType &type = isRead ? node.outputs[0].type : node.inputs[0].type;
    const unsigned index = static_cast<unsigned>(top.dmas.size());
    top.dmas.push_back(
        {n, svIdentifier(node.name), isRead, offset, ir::hbmLayoutOf(type, kAxiDataBits)});
    top.args.push_back({top.dmas.back().name, true, offset, static_cast<int>(index)});
    channelOf[n] = index % hbmPseudoChannels;
    offset += 12;
  }
  // A refill reads the buffer its spill wrote: same channel.
  for (TopInterface::DmaPort &d : top.dmas) {
    const ir::DataflowNode &node = df.node(d.node);
    d.hbmChannel =
        node.startAfter.empty() ? channelOf.at(d.node) : channelOf.at(node.startAfter.front());
  }
  while ((1u << top.controlAddrBits) < offset)
    ++top.controlAddrBits;
  return top;
}

} // namespace st::plan
