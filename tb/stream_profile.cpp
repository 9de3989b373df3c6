// StreamProfiler: per-stream handshake statistics, FIFO high-water marks and the "what is
// blocked" diagnosis of a generated design's testbench.
#include "stream_profile.h"

#include <algorithm>
#include <functional>
#include <map>

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

ScopeSignal scopeSignal(const VerilatedContext &context, const std::string &scope,
                        const std::string &name) {
  const VerilatedScope *sc = context.scopeFind(scope.c_str());
  if (!sc)
    throw TestFailure("the model has no scope '" + scope +
                      "' (was the testbench verilated with tb/probes.vlt?)");
  VerilatedVar *var = sc->varFind(name.c_str());
  if (!var)
    throw TestFailure("scope '" + scope + "' has no public signal '" + name +
                      "' (tb/probes.vlt marks the probed signals public_flat_rd)");
  switch (var->vltype()) {
  case VLVT_UINT8:
  case VLVT_UINT16:
  case VLVT_UINT32:
  case VLVT_UINT64:
    return ScopeSignal(var->datap(), var->vltype());
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
    c.inValid = p.inValid.read() != 0;
    c.inReady = p.inReady.read() != 0;
    c.outValid = p.outValid.read() != 0;
    c.outReady = p.outReady.read() != 0;
    c.count = p.count.read();
    c.maxCount = p.maxCount.read();
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

namespace {

/// One edge of the wait-for graph: `from` cannot go on until `to` moves `stream`.
struct WaitEdge {
  std::string from, to, stream, why;
};

/// A cycle of kernels each waiting for the next (a deadlock), or empty. Depth-first search in
/// the order the edges were found, so the answer is deterministic.
std::vector<WaitEdge> findWaitCycle(const std::vector<WaitEdge> &edges) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const WaitEdge *>> out;
  for (const WaitEdge &e : edges) {
    for (const std::string *n : {&e.from, &e.to})
      if (!out.count(*n)) {
        out[*n];
        order.push_back(*n);
      }
    out[e.from].push_back(&e);
  }
  std::map<std::string, int> state; // 0 new, 1 on the path, 2 done
  std::vector<const WaitEdge *> path;
  std::vector<WaitEdge> cycle;
  std::function<bool(const std::string &)> visit = [&](const std::string &n) {
    state[n] = 1;
    for (const WaitEdge *e : out[n]) {
      path.push_back(e);
      if (state[e->to] == 1) {
        size_t k = 0;
        while (path[k]->from != e->to)
          ++k;
        for (; k < path.size(); ++k)
          cycle.push_back(*path[k]);
        return true;
      }
      if (state[e->to] == 0 && visit(e->to))
        return true;
      path.pop_back();
    }
    state[n] = 2;
    return false;
  };
  for (const std::string &n : order)
    if (state[n] == 0 && visit(n))
      break;
  return cycle;
}

} // namespace

nlohmann::json StreamProfiler::blocked() const {
  nlohmann::json writers = nlohmann::json::array(), readers = nlohmann::json::array(),
                 full = nlohmann::json::array();
  std::string summary;
  std::vector<WaitEdge> edges;
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
      edges.push_back({s.producer, s.consumer, s.name, "FIFO full"});
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
      edges.push_back({s.consumer, s.producer, s.name, "FIFO empty"});
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
  // A cycle of kernels each waiting for the next is the deadlock itself: say it first.
  nlohmann::json cycle = nlohmann::json::array();
  const std::vector<WaitEdge> waits = findWaitCycle(edges);
  if (!waits.empty()) {
    std::string text = "wait-for cycle: " + waits.front().from;
    for (const WaitEdge &e : waits) {
      cycle.push_back(
          {{"kernel", e.from}, {"waits_for", e.to}, {"stream", e.stream}, {"because", e.why}});
      text += " -> " + e.to + " (" + e.stream + ", " + e.why + ")";
    }
    summary = text + "; " + summary;
  }
  return {{"blocked_writers", writers},
          {"waiting_readers", readers},
          {"full_fifos", full},
          {"wait_cycle", cycle},
          {"summary", summary}};
}

std::unique_ptr<Watchdog> progressWatchdog(const StreamProfiler &profiler, uint64_t cycles) {
  auto watchdog = std::make_unique<Watchdog>(cycles);
  const StreamProfiler *p = &profiler;
  watchdog->watchProgress([p] { return p->handshakes(); },
                          [p] { return p->blocked().at("summary").get<std::string>(); });
  return watchdog;
}

} // namespace st::tb
