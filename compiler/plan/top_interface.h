// The interface of a design's top, decided before it is printed: the module name, one AXI4
// master per DMA with its HBM layout and pseudo-channel, and the AXI4-Lite register map of the
// kernel arguments. The top, testbench, host program and Vitis files all print from it, so
// they cannot drift.
#pragma once

#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "ir/hbm_layout.h"

namespace st::plan {

/// The AXI4 masters' data width: the HBM port's 512 bits.
constexpr unsigned kAxiDataBits = 512;

/// What the top's ports and registers are: shared with the testbench and host emitters so the
/// three cannot drift.
struct TopInterface {
  std::string module;
  /// One entry per DMA, in argument order: the node, its m_axi port prefix, its register offset.
  struct DmaPort {
    ir::NodeId node;
    std::string name; ///< m_axi_<name>_*
    bool isRead = true;
    unsigned argOffset = 0; ///< byte offset of the 64-bit pointer in s_axi_control
    ir::HbmTensorLayout layout;
    /// The HBM pseudo-channel its buffer lives in (the v++ link's sp=...:HBM[n]). Graph designs:
    /// round-robin by DMA, a refill DMA in the channel of the spill it reads; the LLM top sets
    /// it from its HBM manifest.
    unsigned hbmChannel = 0;
    /// The last pseudo-channel it reaches (> hbmChannel: HBM[first:last], the append DMA of a
    /// striped KV cache writing every slice, the read of a buffer spanning channels).
    unsigned hbmChannelLast = 0;
  };
  std::vector<DmaPort> dmas;
  unsigned controlAddrBits = 12;

  /// The Vitis ap_ctrl_hs register map of s_axi_control (st_axi_lite_ctrl): control word,
  /// global interrupt enable, interrupt enable and status, then the arguments.
  static constexpr unsigned kControlOffset = 0x00;
  static constexpr unsigned kGieOffset = 0x04;
  static constexpr unsigned kIerOffset = 0x08;
  static constexpr unsigned kIsrOffset = 0x0c;
  static constexpr unsigned kFirstArgOffset = 0x10;
  /// One kernel argument, in argument order (the order of xrt::run::set_arg and of kernel.xml).
  /// A pointer takes 12 bytes (low word, high word, reserved), a scalar 8 (value, reserved).
  struct KernelArg {
    std::string name;
    bool isPointer = true;
    unsigned offset = 0; ///< byte offset in s_axi_control
    /// A pointer's DMA (index into dmas: its m_axi port and HBM channel); -1 for a scalar.
    int dma = -1;
  };
  std::vector<KernelArg> args;
};

/// The interface of the top for `df` (DMA order = node order), with each DMA's HBM layout; the
/// DMAs' buffers are spread round-robin over `hbmPseudoChannels` channels.
TopInterface topInterfaceOf(const ir::DataflowGraph &df, const std::string &designName,
                            unsigned hbmPseudoChannels = 32);

/// Keeps the characters SystemVerilog identifiers allow.
std::string svIdentifier(const std::string &name);

} // namespace st::plan
