// Verilator test of st_addr_gen on its own: random iteration spaces (1..NumLoops loops, trip
// counts including 0 and 1, zero, negative and wrapping byte strides, random bases) started one
// after another with random gaps, under random ready backpressure. Every address is compared,
// in order, with AddrPattern's C++ enumeration modulo 2^AddrWidth; last_o must mark exactly the
// final address; done_o must pulse once, one cycle after the final address was taken (one cycle
// after the start for an empty space); with ready always high one address leaves per cycle. The
// configuration inputs are scrambled after each start, so a generator that reads them after the
// start handshake is caught.
#include <algorithm>
#include <cinttypes>

#include "addr_gen_configs.h"
#include "addr_pattern.h"
#include "config_dispatch.h"
#include "stream_sink.h"
#include "watchdog.h"

using namespace st::tb;

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

/// Records the cycles of start handshakes and done_o pulses.
template <class Model> class StartDoneMonitor : public Component {
public:
  explicit StartDoneMonitor(Model &m) : m_(m) {}
  void sample(uint64_t cycle) override {
    if (m_.start_valid_i && m_.start_ready_o)
      starts.push_back(cycle);
    if (m_.done_o)
      dones.push_back(cycle);
  }
  std::vector<uint64_t> starts, dones;

private:
  Model &m_;
};

struct Taken {
  uint64_t addr;
  bool last;
  uint64_t cycle;
};

/// A random iteration space of 1..numLoops loops with at most about maxPoints points.
AddrPattern randomPattern(std::mt19937_64 &rng, unsigned numLoops, uint64_t maxPoints) {
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  AddrPattern p;
  p.base = uniform(0, 3) == 0 ? rng() : static_cast<uint64_t>(uniform(0, 1 << 20));
  const unsigned loops = static_cast<unsigned>(uniform(1, numLoops));
  for (unsigned i = 0; i < loops; ++i) {
    const int64_t kind = uniform(0, 19);
    uint32_t trip = kind == 0 ? 0 : kind < 5 ? 1 : kind < 15 ? uniform(2, 9) : uniform(10, 40);
    int64_t stride;
    // Zero (the loop re-reads its data), small of either sign, whole 512-bit words of either
    // sign, any 64-bit value (wraps), or a positive row/word pitch.
    const int64_t strideKind = uniform(0, 4);
    if (strideKind == 0)
      stride = 0;
    else if (strideKind == 1)
      stride = uniform(-256, 256);
    else if (strideKind == 2)
      stride = 64 * uniform(-4096, 4096);
    else if (strideKind == 3)
      stride = static_cast<int64_t>(rng());
    else
      stride = uniform(1, 8) * (i + 1 == loops ? 64 : 4096);
    p.tripCounts.push_back(trip);
    p.strides.push_back(stride);
  }
  while (p.points() > maxPoints) {
    auto it = std::max_element(p.tripCounts.begin(), p.tripCounts.end());
    *it /= 2;
  }
  return p;
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned numLoops = static_cast<unsigned>(params["NumLoops"]);
  const unsigned addrWidth = static_cast<unsigned>(params["AddrWidth"]);
  const uint64_t addrMask = addrWidth == 64 ? ~0ull : (1ull << addrWidth) - 1;

  StreamSink sink(
      "addr", {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.addr_o, addrWidth)},
      options.seed * 5 + 2);
  StartDoneMonitor<Model> monitor(m);
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch(sink.checker());
  std::vector<Taken> taken;
  sink.onToken([&](const Bits &a) { taken.push_back({a.toU64(), m.last_o != 0, h.cycle()}); });
  h.add(sink);
  h.add(monitor);
  h.add(watchdog);
  m.start_valid_i = 0;
  h.reset();

  SignalRef base(m.base_addr_i, addrWidth);
  SignalRef trips(m.trip_counts_i, 32 * numLoops);
  SignalRef strides(m.strides_i, 64 * numLoops);
  std::mt19937_64 rng(options.seed);

  // Edge cases first, then random spaces until options.tokens addresses were checked.
  std::vector<AddrPattern> fixed = {
      {0x1000, {0}, {64}},
      {0x40, {1}, {64}},
      {0xfffffffffffffff0ull, {4}, {8}},  // wraps past 2^64 (and 2^AddrWidth)
      {0x8000, {3, 0, 5}, {4096, 64, 8}}, // an empty middle loop
      {0x123456, {5}, {-64}},             // descending
      {0x9000, {2, 3, 2}, {0, 0, 0}},     // every point the same address
      {0x100, std::vector<uint32_t>(numLoops, 1), std::vector<int64_t>(numLoops, 7)},
      {0x200, std::vector<uint32_t>(numLoops, 3), std::vector<int64_t>(numLoops, -192)},
  };
  fixed.erase(std::remove_if(fixed.begin(), fixed.end(),
                             [&](const AddrPattern &p) { return p.tripCounts.size() > numLoops; }),
              fixed.end());
  uint64_t checked = 0, spaces = 0, empty = 0, fullRate = 0;
  for (size_t n = 0; checked < options.tokens; ++n) {
    const AddrPattern p =
        (n < fixed.size() ? fixed[n] : randomPattern(rng, numLoops, 600)).padded(numLoops);
    std::vector<uint64_t> expected = p.addresses();
    for (uint64_t &a : expected)
      a &= addrMask;
    const bool freeFlow = n % 4 == 0;
    sink.setReadyProbability(freeFlow ? 1.0 : std::uniform_real_distribution<double>(0.1, 1)(rng));

    // A random gap, then the start handshake; the configuration is scrambled once it is taken.
    for (int gap = std::uniform_int_distribution<int>(0, 3)(rng); gap > 0; --gap)
      h.step();
    taken.clear();
    const size_t startsBefore = monitor.starts.size(), donesBefore = monitor.dones.size();
    base.write(p.base & addrMask);
    trips.write(p.packedTripCounts(numLoops));
    strides.write(p.packedStrides(numLoops));
    m.start_valid_i = 1;
    h.runUntil([&] { return monitor.starts.size() > startsBefore; }, 100);
    m.start_valid_i = 0;
    base.write(rng() & addrMask);
    trips.write(Bits::random(32 * numLoops, rng));
    strides.write(Bits::random(64 * numLoops, rng));
    const uint64_t startCycle = monitor.starts.back();
    // Names the first wrong address too, if there is one.
    auto fail = [&](const std::string &what) {
      std::string first;
      for (size_t i = 0; i < std::min(taken.size(), expected.size()) && first.empty(); ++i)
        if (taken[i].addr != expected[i])
          first = "; address " + std::to_string(i) + " is " + hex(taken[i].addr) + ", expected " +
                  hex(expected[i]);
      h.fail(p.toString() + ": " + what + first);
    };
    for (uint64_t limit = expected.size() * 100 + 100; monitor.dones.size() == donesBefore;
         --limit) {
      if (limit == 0 || taken.size() > expected.size())
        fail("done_o did not pulse after " + std::to_string(taken.size()) + " addresses (" +
             std::to_string(expected.size()) + " expected)");
      h.step();
    }

    if (taken.size() != expected.size())
      fail("emitted " + std::to_string(taken.size()) + " addresses, expected " +
           std::to_string(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) {
      if (taken[i].addr != expected[i])
        fail("address " + std::to_string(i) + " is " + hex(taken[i].addr) + ", expected " +
             hex(expected[i]));
      if (taken[i].last != (i + 1 == expected.size()))
        fail("last_o is " + std::to_string(taken[i].last) + " at address " + std::to_string(i) +
             " of " + std::to_string(expected.size()));
      if (freeFlow && taken[i].cycle != startCycle + 1 + i)
        fail("with ready always high, address " + std::to_string(i) + " left in cycle " +
             std::to_string(taken[i].cycle - startCycle) + " after the start, expected " +
             std::to_string(i + 1));
    }
    const uint64_t doneCycle = monitor.dones.back();
    const uint64_t wantDone = (expected.empty() ? startCycle : taken.back().cycle) + 1;
    if (monitor.dones.size() != donesBefore + 1 || doneCycle != wantDone)
      fail("done_o pulsed in cycle " + std::to_string(doneCycle) + ", expected only in cycle " +
           std::to_string(wantDone));
    checked += expected.size();
    ++spaces;
    empty += expected.empty();
    fullRate += freeFlow;
  }
  // Idle after the last space: no address, no done pulse.
  const size_t donesAtEnd = monitor.dones.size();
  taken.clear();
  for (int i = 0; i < 32; ++i)
    h.step();
  if (!taken.empty() || monitor.dones.size() != donesAtEnd)
    h.fail("the generator emitted an address or a done pulse while idle");
  std::printf("%llu addresses of %llu iteration spaces (%llu empty, %llu at full rate) matched "
              "in %llu cycles\n",
              static_cast<unsigned long long>(checked), static_cast<unsigned long long>(spaces),
              static_cast<unsigned long long>(empty), static_cast<unsigned long long>(fullRate),
              static_cast<unsigned long long>(h.cycle()));
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
