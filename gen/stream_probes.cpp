// Stream probes: the observable signals of a generated top, as manifest entries, a Verilator
// configuration file and a GTKWave save file.
#include "gen/stream_probes.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "gen/sv_top_emitter.h"
#include "support/error.h"

namespace st::gen {

namespace {

/// Dataflow order of the nodes: the topological order of an acyclic graph; in one with loops
/// (the LLM top's token and layer loops) Kahn's order that, when every remaining node waits on
/// a loop, takes the first of them in node order and goes on.
std::vector<ir::NodeId> dataflowOrder(const ir::DataflowGraph &df) {
  std::map<ir::NodeId, size_t> waiting;
  for (ir::NodeId n : df.nodes())
    waiting[n] = 0;
  for (ir::StreamId s : df.streams())
    ++waiting[df.stream(s).dst.node];
  bool cyclic = false;
  std::vector<ir::NodeId> order;
  std::map<ir::NodeId, bool> placed;
  while (order.size() < waiting.size()) {
    std::vector<ir::NodeId> ready;
    for (const auto &[n, w] : waiting)
      if (w == 0 && !placed[n])
        ready.push_back(n);
    if (ready.empty()) {
      cyclic = true;
      for (const auto &[n, w] : waiting)
        if (!placed[n]) {
          ready.push_back(n);
          break;
        }
    }
    const ir::NodeId n = ready.front();
    placed[n] = true;
    order.push_back(n);
    for (ir::StreamId s : df.streams())
      if (df.stream(s).src.node == n && waiting[df.stream(s).dst.node] > 0)
        --waiting[df.stream(s).dst.node];
  }
  return cyclic ? order : df.topologicalOrder();
}

} // namespace

std::vector<StreamProbe> streamProbesOf(const ir::DataflowGraph &df) {
  std::map<ir::NodeId, size_t> position;
  for (ir::NodeId n : dataflowOrder(df))
    position[n] = position.size();
  std::vector<std::pair<std::pair<size_t, unsigned>, StreamProbe>> ordered;
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    const ir::DataflowNode &src = df.node(st.src.node);
    const ir::DataflowNode &dst = df.node(st.dst.node);
    StreamProbe p;
    p.name = st.name;
    p.signal = streamSignalBase(df, s);
    p.producer = src.name;
    p.producerPort = df.srcPort(st).name;
    p.producerModule = src.module;
    p.consumer = dst.name;
    p.consumerPort = df.dstPort(st).name;
    p.consumerModule = dst.module;
    p.tokens = df.srcPort(st).type.numTokens();
    p.tokenBits = df.tokenBits(st);
    p.fifoDepth = instantiatedFifoDepth(st);
    p.countBits = fifoCountBits(p.fifoDepth);
    ordered.push_back({{position.at(st.src.node), st.src.port}, p});
  }
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<StreamProbe> probes;
  for (auto &[key, p] : ordered)
    probes.push_back(std::move(p));
  return probes;
}

nlohmann::json streamProbesJson(const std::vector<StreamProbe> &probes) {
  nlohmann::json out = nlohmann::json::array();
  for (const StreamProbe &p : probes)
    out.push_back({{"name", p.name},
                   {"signal", p.signal},
                   {"producer", p.producer},
                   {"producer_port", p.producerPort},
                   {"producer_module", p.producerModule},
                   {"consumer", p.consumer},
                   {"consumer_port", p.consumerPort},
                   {"consumer_module", p.consumerModule},
                   {"tokens", p.tokens},
                   {"token_bits", p.tokenBits},
                   {"fifo_depth", p.fifoDepth},
                   {"count_bits", p.countBits}});
  return out;
}

std::vector<StreamProbe> streamProbesFromJson(const nlohmann::json &streams,
                                              const std::string &where) {
  if (!streams.is_array())
    throw Error(where, "streams", "a list of stream probes");
  std::vector<StreamProbe> probes;
  for (size_t i = 0; i < streams.size(); ++i) {
    const nlohmann::json &s = streams[i];
    const std::string field = "streams[" + std::to_string(i) + "]";
    try {
      StreamProbe p;
      p.name = s.at("name").get<std::string>();
      p.signal = s.at("signal").get<std::string>();
      p.producer = s.at("producer").get<std::string>();
      p.producerPort = s.at("producer_port").get<std::string>();
      p.producerModule = s.at("producer_module").get<std::string>();
      p.consumer = s.at("consumer").get<std::string>();
      p.consumerPort = s.at("consumer_port").get<std::string>();
      p.consumerModule = s.at("consumer_module").get<std::string>();
      p.tokens = s.at("tokens").get<int64_t>();
      p.tokenBits = s.at("token_bits").get<int64_t>();
      p.fifoDepth = s.at("fifo_depth").get<int64_t>();
      p.countBits = s.at("count_bits").get<unsigned>();
      probes.push_back(p);
    } catch (const nlohmann::json::exception &e) {
      throw Error(where, field,
                  "name, signal, producer(_port, _module), consumer(_port, _module), tokens, "
                  "token_bits, fifo_depth and count_bits (" +
                      std::string(e.what()) + ")");
    }
  }
  return probes;
}

std::string probeVerilatorConfig(const std::vector<StreamProbe> &probes,
                                 const std::string &topModule) {
  std::ostringstream os;
  os << "// Generated by streamtensor: makes the stream handshakes and FIFO occupancies of "
     << topModule << "\n"
     << "// readable by the testbench (public_flat_rd) for the stall report and the watchdog.\n"
     << "// Testbench only: the RTL in ../rtl is unchanged.\n`verilator_config\n";
  for (const StreamProbe &p : probes)
    for (const std::string &sig :
         {p.inValid(), p.inReady(), p.outValid(), p.outReady(), p.fifoCount(), p.fifoMaxCount()})
      os << "public_flat_rd -module \"" << topModule << "\" -var \"" << sig << "\"\n";
  // The kernel's own start and done (tb/kernel_span.h: the kernel's cycles without the host's).
  for (const char *sig : {kKernelStartSignal, kKernelDoneSignal})
    os << "public_flat_rd -module \"" << topModule << "\" -var \"" << sig << "\"\n";
  return os.str();
}

namespace {

/// A GTKWave trace line: scope.name, with [msb:0] for vectors (as GTKWave writes them).
std::string traceName(const std::string &scope, const std::string &name, int64_t bits) {
  return scope + "." + name + (bits > 1 ? "[" + std::to_string(bits - 1) + ":0]" : "");
}

// GTKWave trace flags: binary, hexadecimal, decimal; group open and close.
constexpr const char *kBinary = "@28";
constexpr const char *kHex = "@22";
constexpr const char *kDecimal = "@24";
constexpr const char *kGroupOpen = "@800200";
constexpr const char *kGroupClose = "@1000200";

} // namespace

std::string gtkwaveSaveFile(const std::vector<StreamProbe> &probes, const std::string &scope,
                            const std::string &dumpFile, const std::string &saveFile) {
  std::ostringstream os;
  os << "[*]\n[*] Generated by streamtensor: per producer node, its output streams (producer side\n"
     << "[*] valid/ready/data) and their FIFOs' occupancy (count) and high-water mark (max).\n"
     << "[*]\n"
     << "[dumpfile] \"" << dumpFile << "\"\n"
     << "[savefile] \"" << saveFile << "\"\n"
     << "[timestart] 0\n[size] 1600 1000\n[pos] -1 -1\n"
     << "[treeopen] " << scope.substr(0, scope.find('.') + 1) << "\n"
     << "[treeopen] " << scope << ".\n"
     << "[sst_width] 250\n[signals_width] 420\n[sst_expanded] 1\n[sst_vpaned_height] 300\n";
  os << kBinary << "\n"
     << traceName(scope, "ap_clk", 1) << "\n"
     << traceName(scope, "ap_start", 1) << "\n"
     << traceName(scope, "ap_done", 1) << "\n";
  size_t i = 0;
  while (i < probes.size()) {
    const std::string node = probes[i].producer;
    const std::string title = node + " (" + probes[i].producerModule + ")";
    os << kGroupOpen << "\n-" << title << "\n";
    for (; i < probes.size() && probes[i].producer == node; ++i) {
      const StreamProbe &p = probes[i];
      os << kBinary << "\n"
         << traceName(scope, p.inValid(), 1) << "\n"
         << traceName(scope, p.inReady(), 1) << "\n"
         << kHex << "\n"
         << traceName(scope, p.inData(), p.tokenBits) << "\n"
         << kDecimal << "\n"
         << traceName(scope, p.fifoCount(), p.countBits) << "\n"
         << traceName(scope, p.fifoMaxCount(), p.countBits) << "\n";
    }
    os << kGroupClose << "\n-" << title << "\n";
  }
  os << "[pattern_trace] 1\n[pattern_trace] 0\n";
  return os.str();
}

} // namespace st::gen
