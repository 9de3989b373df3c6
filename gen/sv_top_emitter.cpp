// SystemVerilog top emitter: prints the Vitis RTL kernel top of a dataflow graph.
#include "gen/sv_top_emitter.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "gen/sv_stream_wiring.h"
#include "support/error.h"

namespace st::gen {

namespace {

constexpr unsigned kAxiAddrBits = 64;
constexpr unsigned kAxiDataBits = 512;

/// The lane permutation of a transpose view: output lane -> input lane.
std::vector<int64_t> transposeLanes(const ir::DataflowGraph &df, const ir::DataflowNode &view) {
  const ir::ITensorType &in = view.inputs[0].type;
  const ir::ITensorType &out = view.outputs[0].type;
  const ir::AffineMap &map = df.source->op(*view.op).inputs[0].map;
  // Input dim i is indexed by output dim d (map result i = d).
  const size_t rank = in.elementShape.size();
  std::vector<int64_t> lanes;
  const int64_t n = out.elementsPerToken();
  for (int64_t o = 0; o < n; ++o) {
    std::vector<int64_t> oc(rank);
    int64_t rem = o;
    for (size_t j = rank; j-- > 0;) {
      oc[j] = rem % out.elementShape[j];
      rem /= out.elementShape[j];
    }
    int64_t idx = 0;
    for (size_t i = 0; i < rank; ++i)
      idx = idx * in.elementShape[i] + oc[*map.results[i].singleDim()];
    lanes.push_back(idx);
  }
  return lanes;
}

std::string packedList(const std::vector<int64_t> &values, unsigned bits) {
  // Element 0 in the low bits: the last element is written first.
  std::ostringstream os;
  os << "{";
  for (size_t i = values.size(); i-- > 0;)
    os << bits << "'d" << (values[i] < 0 ? "0" : std::to_string(values[i])) << (i ? ", " : "");
  os << "}";
  return os.str();
}

std::string stridesList(const std::vector<plan::DmaLoop> &loops) {
  std::ostringstream os;
  os << "{";
  for (size_t i = loops.size(); i-- > 0;)
    os << "64'd" << loops[i].strideBytes << (i ? ", " : "");
  os << "}";
  return os.str();
}

} // namespace

std::string svIdentifier(const std::string &name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "n_" + out;
  return out;
}

std::string streamSignalBase(const ir::DataflowGraph &df, ir::StreamId s) {
  return "s" + std::to_string(s) + "_" + svIdentifier(df.stream(s).name);
}

int64_t instantiatedFifoDepth(const ir::Stream &stream) {
  return std::max<int64_t>(stream.fifoDepth, 2);
}

unsigned fifoCountBits(int64_t depth) {
  unsigned bits = 1;
  while ((int64_t{1} << bits) <= depth)
    ++bits; // $clog2(Depth + 1)
  return bits;
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
        {n, svIdentifier(node.name), isRead, offset, plan::hbmLayoutOf(type, kAxiDataBits)});
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

int64_t fifoSearchPhysicalDepth(const FifoSearchTop &search, int64_t sizedDepth) {
  return std::max<int64_t>({search.physicalDepth, sizedDepth, 2});
}

unsigned fifoLimitBits(int64_t physicalDepth) {
  return fifoCountBits(physicalDepth);
}

std::string emitTop(const ir::DataflowGraph &df, const TopInterface &top,
                    const FifoSearchTop *search) {
  std::ostringstream os;
  const size_t numDmas = top.dmas.size();
  // The control slave's arguments: NumArgs, which are pointers, and each DMA's argument.
  uint64_t argIs64 = 0;
  std::map<int, size_t> argOfDma;
  for (size_t a = 0; a < top.args.size(); ++a) {
    if (top.args[a].isPointer)
      argIs64 |= uint64_t{1} << a;
    if (top.args[a].dma >= 0)
      argOfDma[top.args[a].dma] = a;
  }
  if (top.args.empty() || top.args.size() > 32 || argOfDma.size() != numDmas)
    throw Error("emitter", "top '" + top.module + "'",
                "1 to 32 kernel arguments with one pointer per DMA");
  os << "// " << top.module << ": generated by streamtensor. Vitis RTL kernel top of a stream-\n"
     << "// scheduled dataflow design: s_axi_control (ap_ctrl_hs; one 64-bit pointer per DMA from\n"
     << "// 0x10, 12 bytes apart), one AXI4 master per DMA, kernels joined by FIFOs.\n"
     << "`default_nettype none\n\nmodule " << top.module << " (\n"
     << "    input  wire ap_clk,\n    input  wire ap_rst_n,\n";
  if (search) {
    size_t k = 0;
    for (ir::StreamId s : df.streams())
      os << "    input  wire ["
         << fifoLimitBits(fifoSearchPhysicalDepth(*search, df.stream(s).fifoDepth)) - 1
         << ":0] fifo_limit_" << k++ << ", // search build: run-time depth of " << df.stream(s).name
         << "\n";
  }
  const unsigned aw = top.controlAddrBits;
  os << "    input  wire [" << aw - 1 << ":0] s_axi_control_awaddr,\n"
     << "    input  wire        s_axi_control_awvalid,\n    output wire        "
        "s_axi_control_awready,\n"
     << "    input  wire [31:0] s_axi_control_wdata,\n    input  wire [3:0]  s_axi_control_wstrb,\n"
     << "    input  wire        s_axi_control_wvalid,\n    output wire        "
        "s_axi_control_wready,\n"
     << "    output wire [1:0]  s_axi_control_bresp,\n    output wire        "
        "s_axi_control_bvalid,\n"
     << "    input  wire        s_axi_control_bready,\n"
     << "    input  wire [" << aw - 1 << ":0] s_axi_control_araddr,\n"
     << "    input  wire        s_axi_control_arvalid,\n    output wire        "
        "s_axi_control_arready,\n"
     << "    output wire [31:0] s_axi_control_rdata,\n    output wire [1:0]  s_axi_control_rresp,\n"
     << "    output wire        s_axi_control_rvalid,\n    input  wire        "
        "s_axi_control_rready,\n";
  for (const auto &d : top.dmas)
    emitAxiMasterPorts(os, d.name, d.isRead);
  os << "    output wire interrupt\n);\n\n";

  // ---- control slave and DMA sequencing ----
  os << "  // ---- control: start every DMA on ap_start (a refill DMA once its spill is written);\n"
     << "  // ap_done once every DMA is done ----\n"
     << "  wire ap_start, ap_done, ap_idle;\n"
     << "  wire [" << top.args.size() * 64 - 1 << ":0] args;\n"
     << "  st_axi_lite_ctrl #(\n      .AddrWidth(" << aw << "),\n      .NumArgs(" << top.args.size()
     << "),\n      .ArgIs64(32'h" << std::hex << argIs64 << std::dec << ")\n"
     << "  ) u_control (\n      .clk_i(ap_clk), .rst_ni(ap_rst_n),\n";
  for (const char *sig :
       {"awaddr", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp", "bvalid",
        "bready", "araddr", "arvalid", "arready", "rdata", "rresp", "rvalid", "rready"})
    os << "      .s_axi_control_" << sig << "(s_axi_control_" << sig << "),\n";
  os << "      .interrupt(interrupt),\n      .ap_start_o(ap_start), .ap_done_i(ap_done),\n"
     << "      .ap_idle_i(ap_idle), .ap_ready_i(ap_done), .args_o(args)\n  );\n\n"
     << "  logic running_q;\n  logic [" << numDmas - 1 << ":0] started_q, done_q;\n"
     << "  wire [" << numDmas - 1 << ":0] dma_start, dma_start_ready, dma_done;\n"
     << "  wire all_done = &(done_q | dma_done);\n"
     << "  assign ap_done = running_q && all_done;\n  assign ap_idle = !running_q;\n"
     << "  always_ff @(posedge ap_clk) begin\n    if (!ap_rst_n) begin\n"
     << "      running_q <= 1'b0;\n      started_q <= '0;\n      done_q <= '0;\n"
     << "    end else if (!running_q) begin\n      if (ap_start) begin\n"
     << "        running_q <= 1'b1;\n        started_q <= '0;\n        done_q <= '0;\n      end\n"
     << "    end else if (all_done) begin\n      running_q <= 1'b0;\n    end else begin\n"
     << "      started_q <= started_q | (dma_start & dma_start_ready);\n"
     << "      done_q <= done_q | dma_done;\n    end\n  end\n";
  std::map<ir::NodeId, size_t> dmaIndex;
  for (size_t i = 0; i < numDmas; ++i)
    dmaIndex[top.dmas[i].node] = i;
  for (size_t i = 0; i < numDmas; ++i) {
    std::string cond = "running_q && !all_done && !started_q[" + std::to_string(i) + "]";
    for (ir::NodeId dep : df.node(top.dmas[i].node).startAfter)
      cond += " && done_q[" + std::to_string(dmaIndex.at(dep)) + "]";
    os << "  assign dma_start[" << i << "] = " << cond << ";\n";
  }

  // ---- streams and FIFOs ----
  os << "\n  // ---- streams: producer side (_in_*), FIFO, consumer side (_out_*) ----\n"
     << "  // Each FIFO's occupancy and high-water mark (<stream>_fifo_count/_max) are for the\n"
     << "  // testbench's probes and the waveform; synthesis removes them when unread.\n"
     << "  /* verilator lint_off UNUSEDSIGNAL */\n";
  emitStreamFifos(os, df, search);
  os << "  /* verilator lint_on UNUSEDSIGNAL */\n";
  // ---- nodes ----
  os << "\n  // ---- kernels, converters, forks, views and DMAs ----\n"
     << "  // A DMA's error_o (a non-OKAY AXI response) is left open: the testbench's AXI "
        "protocol\n"
     << "  // checker and HBM model report responses.\n  /* verilator lint_off PINCONNECTEMPTY "
        "*/\n";
  for (ir::NodeId n : df.topologicalOrder()) {
    const ir::DataflowNode &node = df.node(n);
    const std::string inst = "u_" + svIdentifier(node.name);
    switch (node.kind) {
    case ir::NodeKind::View: {
      const StreamSignals in = consumerSide(df, inputStream(df, n, 0));
      const StreamSignals out = producerSide(df, outputStream(df, n, 0));
      os << "  // view " << node.name << "\n  assign " << out.valid << " = " << in.valid
         << ";\n  assign " << in.ready << " = " << out.ready << ";\n";
      const bool isTranspose = node.op && df.source->op(*node.op).kind == ir::OpKind::Transpose;
      if (!isTranspose) {
        os << "  assign " << out.data << " = " << in.data << ";\n";
        break;
      }
      const unsigned eb = ir::elementBits(node.inputs[0].type.elementType);
      std::vector<int64_t> lanes = transposeLanes(df, node);
      os << "  assign " << out.data << " = {";
      for (size_t o = lanes.size(); o-- > 0;)
        os << in.data << "[" << lanes[o] * eb + eb - 1 << ":" << lanes[o] * eb << "]"
           << (o ? ", " : "");
      os << "};\n";
      break;
    }
    case ir::NodeKind::Fork:
      emitFork(os, df, n);
      break;
    case ir::NodeKind::ReadDma:
    case ir::NodeKind::WriteDma: {
      const size_t i = dmaIndex.at(n);
      const TopInterface::DmaPort &d = top.dmas[i];
      const plan::HbmTensorLayout &L = d.layout;
      std::vector<int64_t> trips;
      for (const plan::DmaLoop &l : L.loops)
        trips.push_back(l.tripCount);
      os << "  " << node.module << " #(\n      .NumLoops(" << L.loops.size() << "), .AddrWidth("
         << kAxiAddrBits << "), .DataWidth(" << kAxiDataBits << "),\n      .PaddedTokenBits("
         << L.paddedTokenBits << "), .TokenBits(" << L.tokenBits << "), .TokensPerRun("
         << L.tokensPerRun << ")\n  ) " << inst
         << " (\n      .clk_i(ap_clk), .rst_ni(ap_rst_n),\n      .start_valid_i(dma_start[" << i
         << "]), .start_ready_o(dma_start_ready[" << i << "]),\n      .base_addr_i(args["
         << argOfDma.at(static_cast<int>(i)) * 64 << " +: 64]),\n      .trip_counts_i("
         << packedList(trips, 32) << "),\n      .strides_i(" << stridesList(L.loops)
         << "),\n      .done_o(dma_done[" << i << "]), .error_o(),\n";
      if (d.isRead) {
        const StreamSignals out = producerSide(df, outputStream(df, n, 0));
        os << "      .valid_o(" << out.valid << "), .ready_i(" << out.ready << "), .data_o("
           << out.data << "),\n";
        emitAxiMasterConnections(os, d.name, true);
      } else {
        const StreamSignals in = consumerSide(df, inputStream(df, n, 0));
        os << "      .valid_i(" << in.valid << "), .ready_o(" << in.ready << "), .data_i("
           << in.data << "),\n";
        emitAxiMasterConnections(os, d.name, false);
      }
      os << "  );\n";
      break;
    }
    case ir::NodeKind::Kernel:
    case ir::NodeKind::Converter: {
      os << "  " << node.module;
      emitParams(os, node.params);
      os << inst << " (\n      .clk_i(ap_clk), .rst_ni(ap_rst_n)";
      emitKernelStreamPorts(os, df, n);
      os << "\n  );\n";
      break;
    }
    }
  }
  os << "  /* verilator lint_on PINCONNECTEMPTY */\n\nendmodule\n\n`default_nettype wire\n";
  return os.str();
}

} // namespace st::gen
