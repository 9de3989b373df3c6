// StreamProfiler: per-stream handshake statistics, FIFO high-water marks and the "what is
// blocked" diagnosis of a generated design's testbench.
#include "stream_profile.h"

#include <algorithm>

#include "harness.h"
#include "verilated_syms.h"

namespace st::tb {

std::vector<ProbedStream> loadProbedStreams(const nlohmann::json &manifest,
                                            const std::string &where) {
  std::vector<ProbedStream> out;
  if (!manifest.contains("streams"))
    return out;
  for (const auto &s : manifest.at("streams")) {
    try {
      out.push_back({s.at("name").get<std::string>(), s.at("signal").get<std::string>(),
                     s.at("producer").get<std::string>(), s.at("producer_port").get<std::string>(),
                     s.at("consumer").get<std::string>(), s.at("consumer_port").get<std::string>(),
                     s.at("tokens").get<uint64_t>(), s.at("fifo_depth").get<uint64_t>()});
    } catch (const nlohmann::json::exception &e) {
      throw TestFailure(where +
                        ": streams: expected name, signal, producer, producer_port, "
                        "consumer, consumer_port, tokens and fifo_depth (" +
                        e.what() + ")");
    }
  }
  return out;
}

SignalRef scopeSignal(const VerilatedContext &context, const std::string &scope,
                      const std::string &name) {
  const VerilatedScope *sc = context.scopeFind(scope.c_str());
  if (!sc)
    throw TestFailure("the model has no scope '" + scope +
                      "' (was the testbench verilated with tb/probes.vlt?)");
  VerilatedVar *var = sc->varFind(name.c_str());
  if (!var)
    throw TestFailure("scope '" + scope + "' has no public signal '" + name +
                      "' (tb/probes.vlt marks the probed signals public_flat_rd)");
  const unsigned width = static_cast<unsigned>(std::max(var->packed().elements(), 1));
  switch (var->vltype()) {
  case VLVT_UINT8:
    return SignalRef(*static_cast<CData *>(var->datap()), width);
  case VLVT_UINT16:
    return SignalRef(*static_cast<SData *>(var->datap()), width);
  case VLVT_UINT32:
    return SignalRef(*static_cast<IData *>(var->datap()), width);
  case VLVT_UINT64:
    return SignalRef(*static_cast<QData *>(var->datap()), width);
  default:
    throw TestFailure("signal '" + scope + "." + name + "': expected at most 64 bits");
  }
}

StreamProfiler::StreamProfiler(std::vector<ProbedStream> streams, const VerilatedContext &context,
                               const std::string &scope)
    : streams_(std::move(streams)), counters_(streams_.size()) {
  for (const ProbedStream &s : streams_)
    pins_.push_back({scopeSignal(context, scope, s.signal + "_in_valid"),
                     scopeSignal(context, scope, s.signal + "_in_ready"),
                     scopeSignal(context, scope, s.signal + "_out_valid"),
                     scopeSignal(context, scope, s.signal + "_out_ready"),
                     scopeSignal(context, scope, s.signal + "_fifo_count"),
                     scopeSignal(context, scope, s.signal + "_fifo_max_count")});
}

void StreamProfiler::sample(uint64_t cycle) {
  (void)cycle;
  if (!active_)
    return;
  ++cycles_;
  for (size_t i = 0; i < streams_.size(); ++i) {
    const Pins &p = pins_[i];
    Counters &c = counters_[i];
    c.inValid = p.inValid.readBool();
    c.inReady = p.inReady.readBool();
    c.outValid = p.outValid.readBool();
    c.outReady = p.outReady.readBool();
    c.count = p.count.readU64();
    c.maxCount = p.maxCount.readU64();
    if (c.inValid && c.inReady)
      ++c.transfersIn;
    else if (c.inValid)
      ++c.stalledOnReady;
    else if (c.inReady)
      ++c.producerIdle;
    if (c.outValid && c.outReady)
      ++c.transfersOut;
    else if (c.outReady)
      ++c.starvedOnValid;
    else if (c.outValid)
      ++c.consumerBusy;
    handshakes_ += (c.inValid && c.inReady) + (c.outValid && c.outReady);
    c.highWater = std::max(c.highWater, c.count);
    // max_count_o includes this cycle's count_o: it can never be below what was sampled.
    if (error_.empty() && (c.maxCount < c.highWater || c.count > streams_[i].fifoDepth))
      error_ = "stream profile: FIFO of " + streams_[i].name + " reports count " +
               std::to_string(c.count) + " and high-water mark " + std::to_string(c.maxCount) +
               " after a sampled occupancy of " + std::to_string(c.highWater) + " (depth " +
               std::to_string(streams_[i].fifoDepth) + ")";
  }
}

nlohmann::json StreamProfiler::report() const {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < streams_.size(); ++i) {
    const ProbedStream &s = streams_[i];
    const Counters &c = counters_[i];
    out.push_back({{"name", s.name},
                   {"producer", s.producer + "." + s.producerPort},
                   {"consumer", s.consumer + "." + s.consumerPort},
                   {"tokens", s.tokens},
                   {"transfers", c.transfersIn},
                   {"transfers_out", c.transfersOut},
                   {"stalled_on_ready", c.stalledOnReady},
                   {"starved_on_valid", c.starvedOnValid},
                   {"producer_idle", c.producerIdle},
                   {"consumer_busy", c.consumerBusy},
                   {"fifo_depth", s.fifoDepth},
                   {"fifo_high_water", c.maxCount},
                   {"fifo_count", c.count}});
  }
  return out;
}

nlohmann::json StreamProfiler::blocked() const {
  nlohmann::json writers = nlohmann::json::array(), readers = nlohmann::json::array(),
                 full = nlohmann::json::array();
  std::string summary;
  auto add = [&](const std::string &line) { summary += (summary.empty() ? "" : "; ") + line; };
  for (size_t i = 0; i < streams_.size(); ++i) {
    const ProbedStream &s = streams_[i];
    const Counters &c = counters_[i];
    const std::string fill = "FIFO " + std::to_string(c.count) + "/" + std::to_string(s.fifoDepth);
    if (c.inValid && !c.inReady) {
      writers.push_back({{"kernel", s.producer},
                         {"stream", s.name},
                         {"consumer", s.consumer},
                         {"fifo_count", c.count},
                         {"fifo_depth", s.fifoDepth}});
      add("kernel " + s.producer + " blocked writing stream " + s.name + " into kernel " +
          s.consumer + " (" + fill + ")");
    }
    if (c.outReady && !c.outValid && c.transfersOut < s.tokens) {
      readers.push_back({{"kernel", s.consumer},
                         {"stream", s.name},
                         {"producer", s.producer},
                         {"received", c.transfersOut},
                         {"tokens", s.tokens}});
      add("kernel " + s.consumer + " waiting on stream " + s.name + " from kernel " + s.producer +
          " (FIFO empty, " + std::to_string(c.transfersOut) + " of " + std::to_string(s.tokens) +
          " tokens received)");
    }
    if (c.count >= s.fifoDepth)
      full.push_back(s.name);
  }
  if (!full.empty()) {
    std::string names;
    for (const auto &n : full)
      names += (names.empty() ? "" : ", ") + n.get<std::string>();
    add("full FIFOs: " + names);
  }
  if (summary.empty())
    summary = "no stream has a stalled handshake";
  return {{"blocked_writers", writers},
          {"waiting_readers", readers},
          {"full_fifos", full},
          {"summary", summary}};
}

} // namespace st::tb
