// SystemVerilog top emitter: prints the Vitis RTL kernel top of a compiled dataflow graph —
// ap_clk/ap_rst_n, the AXI4-Lite control slave (st_axi_lite_ctrl, one 64-bit pointer argument
// per DMA), one AXI4 master per DMA (m_axi_<dma>_*), and inside: every kernel, converter, fork
// and DMA instance with its parameters, one st_fifo per stream sized by the FIFO-sizing pass,
// views as wiring, and the control that starts the DMAs (a refill DMA once the spill it reads
// is written) and raises ap_done when every DMA is done. The emitter only prints: every
// decision is already in the dataflow graph and the HBM layouts.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "plan/hbm_layout.h"

namespace st::gen {

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
    plan::HbmTensorLayout layout;
    /// The HBM pseudo-channel its buffer lives in (the v++ link's sp=...:HBM[n]). Graph designs:
    /// round-robin by DMA, a refill DMA in the channel of the spill it reads; the LLM top sets
    /// it from its HBM manifest.
    unsigned hbmChannel = 0;
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

/// The top's SystemVerilog names for stream `s` all start with this base, s<id>_<stream name>:
/// <base>_in_{valid,ready,data} is the producer side (into the FIFO), <base>_out_* the consumer
/// side, fifo_<base> the st_fifo instance, and <base>_fifo_count / <base>_fifo_max_count its
/// occupancy and high-water mark (wires the testbench and the waveform read; see
/// gen/stream_probes.h).
std::string streamSignalBase(const ir::DataflowGraph &df, ir::StreamId s);
/// The depth of the st_fifo the top instantiates for a stream (the sized depth, at least 2).
int64_t instantiatedFifoDepth(const ir::Stream &stream);
/// The width of st_fifo's count_o for a depth: $clog2(Depth + 1).
unsigned fifoCountBits(int64_t depth);

/// The FIFO-depth search variant of the top (a test build, never synthesized; see
/// docs/fifo-sizing.md): every stream's st_fifo is max(physicalDepth, sized depth) deep with
/// LimitPort = 1, its run-time depth the top input `fifo_limit_<k>` (k = the stream's index in
/// df.streams(), fifoLimitBits wide), and with the memory organisation the sized FIFO has
/// ("auto" at the sized depth: LUTRAM up to 64, else block RAM), so limits equal to the sized
/// depths reproduce the sized design cycle for cycle.
struct FifoSearchTop {
  int64_t physicalDepth = 8192;
};
int64_t fifoSearchPhysicalDepth(const FifoSearchTop &search, int64_t sizedDepth);
unsigned fifoLimitBits(int64_t physicalDepth);

/// The top module's text; with `search`, the FIFO-depth search variant.
std::string emitTop(const ir::DataflowGraph &df, const TopInterface &top,
                    const FifoSearchTop *search = nullptr);

} // namespace st::gen
