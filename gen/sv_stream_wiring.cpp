// Stream wiring shared by the SystemVerilog top emitters (see sv_stream_wiring.h).
#include "gen/sv_stream_wiring.h"

#include <algorithm>
#include <iterator>
#include <sstream>

#include "gen/sv_top_emitter.h"
#include "support/error.h"

namespace st::gen {

StreamSignals producerSide(const ir::DataflowGraph &df, ir::StreamId s) {
  std::string b = streamSignalBase(df, s);
  return {b + "_in_valid", b + "_in_ready", b + "_in_data"};
}

StreamSignals consumerSide(const ir::DataflowGraph &df, ir::StreamId s) {
  std::string b = streamSignalBase(df, s);
  return {b + "_out_valid", b + "_out_ready", b + "_out_data"};
}

ir::StreamId inputStream(const ir::DataflowGraph &df, ir::NodeId n, unsigned port) {
  auto s = df.streamInto({n, port});
  if (!s)
    throw Error("emitter", "node '" + df.node(n).name + "'", "a stream into every input port");
  return *s;
}

ir::StreamId outputStream(const ir::DataflowGraph &df, ir::NodeId n, unsigned port) {
  auto s = df.streamsFrom({n, port});
  if (s.size() != 1)
    throw Error("emitter", "node '" + df.node(n).name + "'",
                "exactly one stream out of every output port (run insert-forks)");
  return s[0];
}

std::string portPrefix(const ir::DataflowNode &node, unsigned port, bool input) {
  if (!input)
    return "";
  if (node.module.rfind("st_ew_", 0) == 0)
    return "in" + std::to_string(port) + "_";
  const std::string &name = node.inputs[port].name;
  if (node.inputs.size() > 1 || node.module == "st_embedding_gather")
    return name == "in" ? "" : name + "_";
  return "";
}

void emitParams(std::ostream &os, const std::vector<ir::NodeParam> &params) {
  if (params.empty()) {
    os << " ";
    return;
  }
  os << " #(\n";
  for (size_t i = 0; i < params.size(); ++i) {
    const ir::NodeParam &p = params[i];
    os << "      ." << p.name << "(";
    if (p.text)
      os << '"' << *p.text << '"';
    else
      os << p.value;
    os << ")" << (i + 1 < params.size() ? "," : "") << "\n";
  }
  os << "  ) ";
}

void emitStreamFifos(std::ostream &os, const ir::DataflowGraph &df, const FifoSearchTop *search) {
  size_t fifoIndex = 0;
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    const int64_t w = df.tokenBits(st);
    const int64_t depth = instantiatedFifoDepth(st);
    const std::string stem = streamSignalBase(df, s);
    const StreamSignals a = producerSide(df, s), b = consumerSide(df, s);
    const unsigned countBits =
        fifoLimitBits(search ? fifoSearchPhysicalDepth(*search, depth) : depth);
    os << "  // " << st.name << ": " << df.srcPort(st).type.toString() << "\n"
       << "  wire " << a.valid << ", " << a.ready << ", " << b.valid << ", " << b.ready << ";\n"
       << "  wire [" << w - 1 << ":0] " << a.data << ", " << b.data << ";\n"
       << "  wire [" << countBits - 1 << ":0] " << stem << "_fifo_count, " << stem
       << "_fifo_max_count;\n";
    std::string limit = "'0";
    if (search) {
      // Deep, limited at run time, with the memory "auto" picks at the sized depth.
      os << "  st_fifo #(.Width(" << w << "), .Depth(" << fifoSearchPhysicalDepth(*search, depth)
         << "), .RamStyle(\"" << (depth <= 64 ? "distributed" : "block")
         << "\"), .LimitPort(1)) fifo_";
      limit = "fifo_limit_" + std::to_string(fifoIndex);
    } else {
      os << "  st_fifo #(.Width(" << w << "), .Depth(" << depth << ")) fifo_";
    }
    ++fifoIndex;
    os << stem << " (\n      .clk_i(ap_clk), .rst_ni(ap_rst_n),\n"
       << "      .valid_i(" << a.valid << "), .ready_o(" << a.ready << "), .data_i(" << a.data
       << "),\n      .valid_o(" << b.valid << "), .ready_i(" << b.ready << "), .data_o(" << b.data
       << "),\n      .count_o(" << stem << "_fifo_count), .max_count_o(" << stem
       << "_fifo_max_count), .limit_i(" << limit << ")\n  );\n";
  }
}

void emitAxiLiteControl(std::ostream &os, unsigned addrBits, size_t numArgs, uint64_t argIs64) {
  os << "  st_axi_lite_ctrl #(\n      .AddrWidth(" << addrBits << "),\n      .NumArgs(" << numArgs
     << "),\n      .ArgIs64(32'h" << std::hex << (argIs64 & 0xffffffffu);
  if (numArgs > 32)
    os << "),\n      .ArgIs64Hi(32'h" << (argIs64 >> 32);
  os << std::dec << ")\n  ) u_control (\n      .clk_i(ap_clk), .rst_ni(ap_rst_n),\n";
  for (const char *sig :
       {"awaddr", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp", "bvalid",
        "bready", "araddr", "arvalid", "arready", "rdata", "rresp", "rvalid", "rready"})
    os << "      .s_axi_control_" << sig << "(s_axi_control_" << sig << "),\n";
  os << "      .interrupt(interrupt),\n      .ap_start_o(ap_start), .ap_done_i(ap_done),\n"
     << "      .ap_idle_i(ap_idle), .ap_ready_i(ap_done), .args_o(args)\n  );\n";
}

void emitFork(std::ostream &os, const ir::DataflowGraph &df, ir::NodeId n) {
  const ir::DataflowNode &node = df.node(n);
  const StreamSignals in = consumerSide(df, inputStream(df, n, 0));
  std::string v, r, d;
  for (unsigned b = static_cast<unsigned>(node.outputs.size()); b-- > 0;) {
    const StreamSignals out = producerSide(df, outputStream(df, n, b));
    const std::string sep = b ? ", " : "";
    v += out.valid + sep;
    r += out.ready + sep;
    d += out.data + sep;
  }
  os << "  st_fork";
  emitParams(os, node.params);
  os << "u_" << plan::svIdentifier(node.name) << " (\n      .clk_i(ap_clk), .rst_ni(ap_rst_n),\n"
     << "      .valid_i(" << in.valid << "), .ready_o(" << in.ready << "), .data_i(" << in.data
     << "),\n      .valid_o({" << v << "}), .ready_i({" << r << "}), .data_o({" << d
     << "})\n  );\n";
}

void emitKernelStreamPorts(std::ostream &os, const ir::DataflowGraph &df, ir::NodeId n) {
  const ir::DataflowNode &node = df.node(n);
  for (unsigned p = 0; p < node.inputs.size(); ++p) {
    const StreamSignals in = consumerSide(df, inputStream(df, n, p));
    const std::string pre = portPrefix(node, p, true);
    os << ",\n      ." << pre << "valid_i(" << in.valid << "), ." << pre << "ready_o(" << in.ready
       << "), ." << pre << "data_i(" << in.data << ")";
  }
  for (unsigned p = 0; p < node.outputs.size(); ++p) {
    const StreamSignals out = producerSide(df, outputStream(df, n, p));
    const std::string pre = portPrefix(node, p, false);
    os << ",\n      ." << pre << "valid_o(" << out.valid << "), ." << pre << "ready_i(" << out.ready
       << "), ." << pre << "data_o(" << out.data << ")";
  }
}

namespace {

struct AxiSignal {
  const char *name;
  bool isOutput; ///< from the master
  unsigned bits;
};

const AxiSignal kReadSignals[] = {
    {"arid", true, 1},    {"araddr", true, 64},  {"arlen", true, 8},   {"arsize", true, 3},
    {"arburst", true, 2}, {"arlock", true, 1},   {"arcache", true, 4}, {"arprot", true, 3},
    {"arvalid", true, 1}, {"arready", false, 1}, {"rid", false, 1},    {"rdata", false, 512},
    {"rresp", false, 2},  {"rlast", false, 1},   {"rvalid", false, 1}, {"rready", true, 1}};
const AxiSignal kWriteSignals[] = {
    {"awid", true, 1},    {"awaddr", true, 64},  {"awlen", true, 8},   {"awsize", true, 3},
    {"awburst", true, 2}, {"awlock", true, 1},   {"awcache", true, 4}, {"awprot", true, 3},
    {"awvalid", true, 1}, {"awready", false, 1}, {"wdata", true, 512}, {"wstrb", true, 64},
    {"wlast", true, 1},   {"wvalid", true, 1},   {"wready", false, 1}, {"bid", false, 1},
    {"bresp", false, 2},  {"bvalid", false, 1},  {"bready", true, 1}};

template <typename F> void forEachAxiSignal(bool isRead, F f) {
  if (isRead)
    for (const AxiSignal &s : kReadSignals)
      f(s, &s == std::end(kReadSignals) - 1);
  else
    for (const AxiSignal &s : kWriteSignals)
      f(s, &s == std::end(kWriteSignals) - 1);
}

} // namespace

void emitAxiMasterPorts(std::ostream &os, const std::string &name, bool isRead) {
  forEachAxiSignal(isRead, [&](const AxiSignal &s, bool) {
    std::string range = "[" + std::to_string(s.bits - 1) + ":0]";
    range.resize(9, ' ');
    os << "    " << (s.isOutput ? "output" : "input ") << " wire " << range << " m_axi_" << name
       << "_" << s.name << ",\n";
  });
}

void emitAxiMasterConnections(std::ostream &os, const std::string &name, bool isRead) {
  forEachAxiSignal(isRead, [&](const AxiSignal &s, bool last) {
    os << "      .m_axi_" << s.name << "(m_axi_" << name << "_" << s.name << ")"
       << (last ? "\n" : ",\n");
  });
}

} // namespace st::gen
