// SystemVerilog top emitter: prints the Vitis RTL kernel top of a compiled dataflow graph —
// ap_clk/ap_rst_n, the AXI4-Lite control slave (st_axi_lite_ctrl, one 64-bit pointer argument
// per DMA), one AXI4 master per DMA (m_axi_<dma>_*), and inside: every kernel, converter, fork
// and DMA instance with its parameters, one st_fifo per stream sized by the FIFO-sizing pass,
// views as wiring, and the control that starts the DMAs (a refill DMA once the spill it reads
// is written) and raises ap_done when every DMA is done. The emitter only prints: every
// decision is already in the dataflow graph, the HBM layouts and the interface
// (plan/top_interface.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "plan/top_interface.h"

namespace st::gen {

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
std::string emitTop(const ir::DataflowGraph &df, const plan::TopInterface &top,
                    const FifoSearchTop *search = nullptr);

} // namespace st::gen
