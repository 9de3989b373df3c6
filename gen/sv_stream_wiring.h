// Stream wiring shared by the SystemVerilog top emitters (the graph designs' emitTop and the LLM
// accelerator's emitLlmTop): the signal names of a dataflow stream on each side of its FIFO, the
// st_fifo instance of every stream, st_fork instances, the stream-port connections of a kernel
// instance, and the AXI4 master port lists of a DMA. One naming for every top, so probes, stall
// reports and waveform files work on any of them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"

namespace st::gen {

struct FifoSearchTop;

/// The SV signal names of one side of a stream: valid, ready, data.
struct StreamSignals {
  std::string valid, ready, data;
};

/// The stem of every signal of stream `s` is streamSignalBase (sv_top_emitter.h): "s<id>_<name>".
/// The producer side (before the FIFO: <stem>_in_*) and the consumer side (after it: _out_*).
StreamSignals producerSide(const ir::DataflowGraph &df, ir::StreamId s);
StreamSignals consumerSide(const ir::DataflowGraph &df, ir::StreamId s);

/// The stream into input port `port` of `n`, or out of output port `port` (exactly one: forks
/// inserted). Throw st::Error naming the node otherwise.
ir::StreamId inputStream(const ir::DataflowGraph &df, ir::NodeId n, unsigned port);
ir::StreamId outputStream(const ir::DataflowGraph &df, ir::NodeId n, unsigned port);

/// The RTL port-name prefix of a node's stream port: "a_" for st_matmul's A input, "in0_" for a
/// generated element-wise kernel's first input, the port's own name for the LLM kernels with
/// several inputs ("x_", "w_", "gate_", "k_cache_" ...), "" for a single input or output.
std::string portPrefix(const ir::DataflowNode &node, unsigned port, bool input);

/// " #(.A(1), ...) " or " " when there are no parameters.
void emitParams(std::ostream &os, const std::vector<ir::NodeParam> &params);

/// The wires of every stream and its st_fifo (fifo_<stem>), in df.streams() order. The FIFO's
/// occupancy and high-water mark drive <stem>_fifo_count / <stem>_fifo_max_count (read only by
/// the testbench's probes and the waveform). With `search`, every
/// FIFO is the deep, run-time-limited one of the FIFO-depth search build (limit input
/// fifo_limit_<k>, k the stream's index).
void emitStreamFifos(std::ostream &os, const ir::DataflowGraph &df, const FifoSearchTop *search);

/// An st_fork instance for fork node `n`.
void emitFork(std::ostream &os, const ir::DataflowGraph &df, ir::NodeId n);

/// The ",\n      .<prefix>valid_i(...), ..." connections of every stream port of kernel `n`.
void emitKernelStreamPorts(std::ostream &os, const ir::DataflowGraph &df, ir::NodeId n);

/// The top's AXI4-Lite control slave: an st_axi_lite_ctrl instance u_control on the
/// s_axi_control_* ports and `interrupt`, driving ap_start and args (declared by the caller) and
/// taking ap_done and ap_idle; `numArgs` 64-bit argument slots, bit i of `argIs64` set for a
/// 64-bit argument i (ArgIs64Hi only when there are more than 32).
void emitAxiLiteControl(std::ostream &os, unsigned addrBits, size_t numArgs, uint64_t argIs64);

/// The AXI4 master ports m_axi_<name>_* of a read (AR/R) or write (AW/W/B) DMA: the module
/// port declarations, and the connections of a DMA instance's m_axi_* ports to them.
void emitAxiMasterPorts(std::ostream &os, const std::string &name, bool isRead);
void emitAxiMasterConnections(std::ostream &os, const std::string &name, bool isRead);

} // namespace st::gen
