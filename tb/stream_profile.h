// StreamProfiler: the stall report of a generated design. Reads, every cycle, both handshakes of
// every stream of the top (producer side into its FIFO, consumer side out of it) and the FIFO's
// occupancy, through the signals the compiler made public_flat_rd (tb/probes.vlt, named in the
// manifest's "streams": gen/stream_probes.h). Per stream it counts transfers, cycles the
// producer was stalled on ready (valid && !ready: the FIFO was full, back-pressure from the
// consumer), cycles the consumer was starved (ready && !valid: the FIFO was empty, waiting on
// the producer), and the FIFO's high-water mark (st_fifo's max_count_o, checked against the
// sampled occupancy). When the design stops moving it names what is blocked (blocked()):
// "kernel X blocked writing stream S into kernel Y", the consumers waiting on empty FIFOs, and
// the full FIFOs, and a cycle of kernels each waiting for the next (the deadlock itself); the
// Watchdog reports it (watchProgress).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "component.h"
#include "verilated.h"
#include "watchdog.h"

namespace st::tb {

/// One entry of the manifest's "streams" (gen::streamProbesJson).
struct ProbedStream {
  std::string name, signal;
  std::string producer, producerPort, consumer, consumerPort;
  uint64_t tokens = 0;
  uint64_t fifoDepth = 2;
};
/// The manifest's "streams" (empty when it has none). Throws TestFailure on a malformed entry.
std::vector<ProbedStream> loadProbedStreams(const nlohmann::json &manifest,
                                            const std::string &where);

/// A read-only view of one public signal of a Verilated scope (up to 64 bits). Read straight
/// from the model's storage: the profiler reads six per stream every cycle, and SignalRef's
/// std::function and Bits would cost more than the model's eval() on a small design.
class ScopeSignal {
public:
  ScopeSignal(const void *data, VerilatedVarType type) : data_(data), type_(type) {}
  uint64_t read() const {
    switch (type_) {
    case VLVT_UINT8:
      return *static_cast<const CData *>(data_);
    case VLVT_UINT16:
      return *static_cast<const SData *>(data_);
    case VLVT_UINT32:
      return *static_cast<const IData *>(data_);
    default:
      return *static_cast<const QData *>(data_);
    }
  }

private:
  const void *data_;
  VerilatedVarType type_;
};

/// The public signal `name` of a Verilated scope, e.g. scope "dut.<top>". Throws TestFailure
/// naming the scope and signal when the model does not expose it or it is wider than 64 bits.
ScopeSignal scopeSignal(const VerilatedContext &context, const std::string &scope,
                        const std::string &name);

class StreamProfiler : public Component {
public:
  /// Binds every stream's six signals (<signal>_in_valid, _in_ready, _out_valid, _out_ready,
  /// _fifo_count, _fifo_max_count) in `scope` of the model's context.
  StreamProfiler(std::vector<ProbedStream> streams, const VerilatedContext &context,
                 const std::string &scope);

  /// Counting starts here (call it when the kernel is started) and runs until stop().
  void start() { active_ = true; }
  void stop() { active_ = false; }
  void sample(uint64_t cycle) override;
  std::string error() const override { return error_; }

  /// Handshakes so far on both sides of every stream: the watchdog's progress measure.
  uint64_t handshakes() const { return handshakes_; }
  /// Per stream: name, producer, consumer, tokens, transfers, stalled_on_ready,
  /// starved_on_valid, producer_idle, consumer_busy, fifo_depth, fifo_high_water, fifo_count.
  nlohmann::json report() const;
  /// What is blocked now: {"blocked_writers": [...], "waiting_readers": [...], "full_fifos":
  /// [...], "wait_cycle": [...], "summary": "..."}. The wait-for graph has an edge X -> Y when
  /// kernel X is blocked writing into a full FIFO towards Y, or X waits on an empty FIFO from
  /// Y; "wait_cycle" is a cycle in it ({"kernel", "waits_for", "stream", "because"} per step):
  /// the kernels of a deadlock, each waiting for the next.
  nlohmann::json blocked() const;
  /// The cycles counted (from start()).
  uint64_t cycles() const { return cycles_; }

private:
  struct Pins {
    ScopeSignal inValid, inReady, outValid, outReady, count, maxCount;
  };
  struct Counters {
    uint64_t transfersIn = 0, transfersOut = 0;
    uint64_t stalledOnReady = 0, producerIdle = 0; ///< producer side
    uint64_t starvedOnValid = 0, consumerBusy = 0; ///< consumer side
    uint64_t highWater = 0, maxCount = 0, count = 0;
    bool inValid = false, inReady = false, outValid = false, outReady = false;
  };
  std::vector<ProbedStream> streams_;
  std::vector<Pins> pins_;
  std::vector<Counters> counters_;
  bool active_ = false;
  uint64_t cycles_ = 0;
  uint64_t handshakes_ = 0;
  std::string error_;
};

/// A watchdog that fires after `cycles` cycles without a handshake on `profiler`'s streams and
/// says what is blocked (its blocked() summary). `profiler` must outlive it.
std::unique_ptr<Watchdog> progressWatchdog(const StreamProfiler &profiler, uint64_t cycles);

} // namespace st::tb
