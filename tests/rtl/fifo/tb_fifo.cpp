// Verilator test of st_fifo. Three parts, each on a fresh model:
//  1. Free flow from empty: one token per cycle in and out for Depth >= 2 (one every other cycle
//     for Depth 1), checked cycle by cycle, latency one cycle.
//  2. Full: with the consumer stalled the FIFO accepts exactly Depth tokens, one per cycle, and
//     stays full (ready_o low, count_o == Depth) for a while; released, it delivers one token
//     per cycle with no bubble (Depth >= 2) while the producer refills it.
//  3. >= 10,000 random tokens under random backpressure (runPassthroughTest): order and content.
// In every cycle of every part an OccupancyMonitor checks count_o against the testbench's own
// count of tokens inside (accepted minus delivered in earlier cycles), count_o <= Depth,
// ready_o == (count_o < Depth), and max_count_o against the largest count_o seen.
#include <algorithm>
#include <cstdio>
#include <string>

#include "config_dispatch.h"
#include "fifo_configs.h"
#include "passthrough_test.h"

using namespace st::tb;

namespace {

/// The FIFO's ports as the testbench sees them.
struct FifoPins {
  StreamPins in, out;
  SignalRef count, maxCount;
};

template <class Model> FifoPins fifoPins(Model &m, unsigned width, unsigned depth) {
  unsigned countWidth = 1;
  while ((1ull << countWidth) <= depth)
    ++countWidth; // $clog2(Depth + 1)
  return {{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, width)},
          {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, width)},
          SignalRef(m.count_o, countWidth),
          SignalRef(m.max_count_o, countWidth)};
}

/// Per-cycle check of the occupancy outputs against the handshakes seen on both ports.
class OccupancyMonitor : public Component {
public:
  OccupancyMonitor(FifoPins pins, uint64_t depth) : pins_(std::move(pins)), depth_(depth) {}

  void reset() override {
    accepted_ = delivered_ = maxSeen_ = 0;
    error_.clear();
  }

  void sample(uint64_t cycle) override {
    if (!error_.empty())
      return;
    const uint64_t inside = accepted_ - delivered_;
    const uint64_t count = pins_.count.readU64();
    const uint64_t maxCount = pins_.maxCount.readU64();
    const bool ready = pins_.in.ready.readBool();
    maxSeen_ = std::max(maxSeen_, count);
    if (count != inside)
      fail(cycle, "count_o " + std::to_string(count) + " but " + std::to_string(inside) +
                      " tokens inside (accepted " + std::to_string(accepted_) + ", delivered " +
                      std::to_string(delivered_) + ")");
    else if (count > depth_)
      fail(cycle, "count_o " + std::to_string(count) + " exceeds Depth " + std::to_string(depth_));
    else if (ready != (count < depth_))
      fail(cycle, "ready_o " + std::to_string(ready) + " with " + std::to_string(count) + " of " +
                      std::to_string(depth_) + " entries used");
    else if (maxCount != maxSeen_)
      fail(cycle, "max_count_o " + std::to_string(maxCount) + " but largest count_o seen is " +
                      std::to_string(maxSeen_));
    if (pins_.in.valid.readBool() && ready)
      ++accepted_;
    if (pins_.out.valid.readBool() && pins_.out.ready.readBool())
      ++delivered_;
  }

  std::string error() const override { return error_; }
  uint64_t accepted() const { return accepted_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t maxSeen() const { return maxSeen_; }

private:
  void fail(uint64_t cycle, const std::string &message) {
    error_ = "occupancy at cycle " + std::to_string(cycle) + ": " + message;
  }

  FifoPins pins_;
  uint64_t depth_;
  uint64_t accepted_ = 0, delivered_ = 0, maxSeen_ = 0;
  std::string error_;
};

template <class Model> ClockReset clockReset(Model &m) {
  return ClockReset{&m.clk_i, &m.rst_ni};
}

/// Fails unless the handshake counts after `k` cycles of a phase match the expected schedule.
template <class Model>
void expectCounts(Harness<Model> &h, const char *phase, uint64_t k, uint64_t accepted,
                  uint64_t wantAccepted, uint64_t delivered, uint64_t wantDelivered) {
  if (accepted != wantAccepted || delivered != wantDelivered)
    h.fail(std::string(phase) + ": after " + std::to_string(k) + " cycles accepted " +
           std::to_string(accepted) + " (expected " + std::to_string(wantAccepted) +
           "), delivered " + std::to_string(delivered) + " (expected " +
           std::to_string(wantDelivered) + ")");
}

/// Parts 1 and 2: exact throughput from empty, fill to full and hold, release at full rate.
template <class Model>
void runDirectedPhases(const TestOptions &options, unsigned width, uint64_t depth) {
  Harness<Model> h(options, clockReset<Model>);
  FifoPins pins = fifoPins(h.dut(), width, static_cast<unsigned>(depth));
  StreamDriver driver("in", pins.in, options.seed * 7 + 3);
  StreamSink sink("out", pins.out, options.seed * 11 + 4, 1.0);
  Scoreboard board("out");
  OccupancyMonitor monitor(pins, depth);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  h.add(monitor);
  h.add(driver);
  h.add(sink);
  h.add(board);
  h.reset();
  std::mt19937_64 rng(options.seed);
  auto pushTokens = [&](uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      Bits t = Bits::random(width, rng);
      driver.push(t);
      board.expect(t);
    }
  };
  const bool halfRate = depth == 1;

  // 1. Free flow from empty. Depth >= 2: accepted in cycles 0..n-1, delivered in 1..n.
  //    Depth 1: accepted in even cycles, delivered in odd ones.
  const uint64_t flowTokens = 2 * depth + 100;
  pushTokens(flowTokens);
  const uint64_t flowCycles = halfRate ? 2 * flowTokens : flowTokens + 1;
  for (uint64_t k = 1; k <= flowCycles; ++k) {
    h.step();
    uint64_t wantIn = halfRate ? (k + 1) / 2 : std::min(k, flowTokens);
    uint64_t wantOut = halfRate ? k / 2 : k - 1;
    expectCounts(h, "free flow", k, monitor.accepted(), wantIn, monitor.delivered(), wantOut);
  }
  std::printf("free flow: %llu tokens in %llu cycles\n",
              static_cast<unsigned long long>(flowTokens),
              static_cast<unsigned long long>(flowCycles));

  // 2a. Consumer stalled: exactly Depth tokens accepted, one per cycle; then held full.
  const uint64_t holdCycles = 64;
  const uint64_t overOffer = 16;
  sink.setReadyProbability(0.0);
  pushTokens(depth + overOffer);
  const uint64_t acceptedBefore = monitor.accepted();
  for (uint64_t k = 1; k <= depth + holdCycles; ++k) {
    h.step();
    expectCounts(h, "fill", k, monitor.accepted() - acceptedBefore, std::min(k, depth),
                 monitor.delivered() - flowTokens, 0);
  }
  if (pins.count.readU64() != depth || pins.in.ready.readBool() || !pins.out.valid.readBool() ||
      pins.maxCount.readU64() != depth)
    h.fail("full FIFO: count_o " + std::to_string(pins.count.readU64()) + ", max_count_o " +
           std::to_string(pins.maxCount.readU64()) + ", ready_o " +
           std::to_string(pins.in.ready.readBool()) + ", valid_o " +
           std::to_string(pins.out.valid.readBool()) + "; expected Depth, Depth, 0, 1");
  std::printf("full: accepted exactly %llu tokens, held full for %llu cycles\n",
              static_cast<unsigned long long>(depth), static_cast<unsigned long long>(holdCycles));

  // 2b. Release with the producer still offering. Depth >= 2: one token out every cycle, one
  //     in every cycle but the first (ready_o is registered and the FIFO was full).
  //     Depth 1: out in even cycles, in in odd ones.
  const uint64_t refill = depth + 64;
  pushTokens(refill);
  sink.setReadyProbability(1.0);
  const uint64_t queued = overOffer + refill;
  const uint64_t remaining = depth + queued;
  const uint64_t inBase = monitor.accepted(), outBase = monitor.delivered();
  const uint64_t drainCycles = halfRate ? 2 * remaining - 1 : remaining;
  for (uint64_t k = 1; k <= drainCycles; ++k) {
    h.step();
    uint64_t wantOut = halfRate ? (k + 1) / 2 : k;
    uint64_t wantIn = std::min(halfRate ? k / 2 : k - 1, queued);
    expectCounts(h, "release", k, monitor.accepted() - inBase, wantIn,
                 monitor.delivered() - outBase, wantOut);
  }
  for (int i = 0; i < 16; ++i)
    h.step();
  std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("release: %llu tokens out in %llu cycles; %llu tokens in order in total\n",
              static_cast<unsigned long long>(remaining),
              static_cast<unsigned long long>(drainCycles),
              static_cast<unsigned long long>(board.matched()));
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const unsigned width = static_cast<unsigned>(params["Width"]);
  const uint64_t depth = static_cast<uint64_t>(params["Depth"]);
  runDirectedPhases<Model>(options, width, depth);

  // 3. Random traffic; the monitor checks the occupancy outputs in every cycle.
  Harness<Model> h(options, clockReset<Model>);
  FifoPins pins = fifoPins(h.dut(), width, static_cast<unsigned>(depth));
  OccupancyMonitor monitor(pins, depth);
  h.add(monitor);
  runPassthroughTest(h, pins.in, pins.out, options.tokens);
  std::printf("random traffic: high-water mark %llu of %llu\n",
              static_cast<unsigned long long>(monitor.maxSeen()),
              static_cast<unsigned long long>(depth));
}

} // namespace

int main(int argc, char **argv) {
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
