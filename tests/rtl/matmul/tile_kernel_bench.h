// TileKernelBench: the shared test of the synthetic-graph kernels (st_matmul, st_reduce and the
// generated element-wise modules; tests/rtl/{matmul,reduce,generated_elementwise}). A kernel is
// described by its joined input streams, its output stream, a generator of invocations (input
// tokens per port and the expected output tokens, from a C++ reference) and its model timing.
// The bench
//   1. times one invocation of kTimedOutputs output tokens with ideal streams and asserts that
//      the measured first-output delay D, interval II and total latency L equal the model's
//      KernelTiming exactly, that every port took the model's number of input tokens, and that
//      before output token k every port had taken at least inputTokensNeeded(k) tokens;
//   2. streams random invocations (elements uniform, extreme, small, or all one extreme, so sums
//      saturate) through the traffic phases of kDefaultPhases (free flow, slow consumer, slow
//      producers, random both ways) and compares every output token bit for bit, in order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness.h"
#include "model/kernel_timing.h"
#include "passthrough_test.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "watchdog.h"

namespace st::tb {

/// The tokens of one invocation and what the kernel must emit for them.
struct Invocation {
  std::vector<std::vector<Bits>> inputs; ///< per input port, in stream order
  std::vector<Bits> expected;            ///< output tokens, in order
};

struct TileKernel {
  std::vector<StreamPins> inputs; ///< joined inputs
  StreamPins output;
  /// A random invocation of `outputs` output tokens.
  std::function<Invocation(int64_t outputs, std::mt19937_64 &rng)> invocation;
  /// The model's timing of an invocation of `outputs` output tokens.
  std::function<model::KernelTiming(int64_t outputs)> timing;
};

/// Records the cycles of the handshakes on one stream.
class HandshakeCycles : public Component {
public:
  explicit HandshakeCycles(StreamPins pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    if (pins_.valid.readBool() && pins_.ready.readBool())
      cycles.push_back(cycle);
  }
  std::vector<uint64_t> cycles;

private:
  StreamPins pins_;
};

/// A signed or unsigned value range of `bits` bits.
struct CodeRange {
  int64_t lo, hi;
  static CodeRange signedBits(unsigned bits) {
    return {-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1};
  }
  static CodeRange unsignedBits(unsigned bits) { return {0, (int64_t(1) << bits) - 1}; }
  static CodeRange of(unsigned bits, bool isSigned) {
    return isSigned ? signedBits(bits) : unsignedBits(bits);
  }
};

/// Random elements within `range` in one of four shapes: uniform, extremes (lo, hi, lo+1,
/// hi-1, 0, +-1), small, or all the same extreme (drives sums into saturation).
inline std::vector<int64_t> randomCodes(size_t count, CodeRange range, std::mt19937_64 &rng) {
  std::uniform_int_distribution<int64_t> full(range.lo, range.hi);
  const int64_t extremes[] = {range.lo, range.hi, range.lo + 1, range.hi - 1, 0, 1, -1};
  std::vector<int64_t> v(count);
  auto clampToRange = [&](int64_t x) { return std::clamp(x, range.lo, range.hi); };
  switch (rng() % 4) {
  case 0:
    for (auto &e : v)
      e = full(rng);
    break;
  case 1:
    for (auto &e : v)
      e = clampToRange(extremes[rng() % 7]);
    break;
  case 2:
    for (auto &e : v)
      e = clampToRange(int64_t(rng() % 9) - 4);
    break;
  default: {
    const int64_t x = rng() % 2 ? range.hi : range.lo;
    std::fill(v.begin(), v.end(), x);
    break;
  }
  }
  return v;
}

/// Packs `count` elements starting at `first` into one token, element i at [i*bits +: bits].
inline Bits packElements(const std::vector<int64_t> &elements, size_t first, size_t count,
                         unsigned bits) {
  Bits t(unsigned(count * bits));
  for (size_t i = 0; i < count; ++i)
    t.setSliceU64(unsigned(i * bits), bits, static_cast<uint64_t>(elements[first + i]));
  return t;
}

/// Saturates to the signed or unsigned range of `bits` bits (signed 64 bits: unchanged).
inline int64_t saturateCode(int64_t v, unsigned bits, bool isSigned = true) {
  if (bits >= 64 && isSigned)
    return v;
  if (bits >= 64)
    return std::max<int64_t>(v, 0);
  const CodeRange r = CodeRange::of(bits, isSigned);
  return std::clamp(v, r.lo, r.hi);
}

template <class Model>
void runTileKernelTest(Harness<Model> &h, TileKernel &k, uint64_t invocations) {
  const uint64_t seed = h.options().seed;
  const size_t ports = k.inputs.size();
  std::vector<std::unique_ptr<StreamDriver>> drivers;
  for (size_t p = 0; p < ports; ++p)
    drivers.push_back(
        std::make_unique<StreamDriver>("in" + std::to_string(p), k.inputs[p], seed * 3 + 1 + p));
  StreamSink sink("out", k.output, seed * 5 + 2);
  Scoreboard board("out");
  Watchdog watchdog(h.options().watchdogCycles);
  watchdog.watch(sink.checker());
  std::vector<std::unique_ptr<HandshakeCycles>> inputLogs;
  for (size_t p = 0; p < ports; ++p)
    inputLogs.push_back(std::make_unique<HandshakeCycles>(k.inputs[p]));
  HandshakeCycles outputLog(k.output);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (auto &d : drivers)
    h.add(*d);
  h.add(sink);
  h.add(board);
  h.add(watchdog);
  for (auto &l : inputLogs)
    h.add(*l);
  h.add(outputLog);
  h.reset();

  std::mt19937_64 rng(seed);
  auto queue = [&](const Invocation &inv) {
    for (size_t p = 0; p < ports; ++p)
      for (const Bits &t : inv.inputs[p])
        drivers[p]->push(t);
    for (const Bits &t : inv.expected)
      board.expect(t);
    return inv.expected.size();
  };

  // ---- 1. timing of one invocation with ideal streams ------------------------------------
  constexpr int64_t kTimedOutputs = 4;
  for (auto &d : drivers)
    d->setValidProbability(1.0);
  sink.setReadyProbability(1.0);
  queue(k.invocation(kTimedOutputs, rng));
  h.runUntil([&] { return board.empty(); }, 100000);
  for (int i = 0; i < 8; ++i)
    h.step();
  const model::KernelTiming want = k.timing(kTimedOutputs);
  const auto &out = outputLog.cycles;
  if (int64_t(out.size()) != kTimedOutputs || want.outputTokens != kTimedOutputs)
    h.fail("timing run: " + std::to_string(out.size()) + " output handshakes, model " +
           std::to_string(want.outputTokens) + ", expected " + std::to_string(kTimedOutputs));
  uint64_t first = ~uint64_t(0);
  for (size_t p = 0; p < ports; ++p) {
    const auto &in = inputLogs[p]->cycles;
    if (int64_t(in.size()) != want.inputTokens.at(p))
      h.fail("timing run: port " + std::to_string(p) + " took " + std::to_string(in.size()) +
             " tokens, model says " + std::to_string(want.inputTokens[p]));
    first = std::min(first, in.front());
    for (int64_t o = 0; o < kTimedOutputs; ++o) {
      const int64_t before =
          std::count_if(in.begin(), in.end(), [&](uint64_t c) { return c < out[o]; });
      if (before < want.inputTokensNeeded.at(p)(o))
        h.fail("timing run: output " + std::to_string(o) + " left after " + std::to_string(before) +
               " tokens of port " + std::to_string(p) + ", model needs " +
               std::to_string(want.inputTokensNeeded[p](o)));
    }
  }
  int64_t ii = 0;
  for (size_t i = 1; i < out.size(); ++i)
    ii = std::max<int64_t>(ii, int64_t(out[i] - out[i - 1]));
  const int64_t d = int64_t(out.front() - first), l = int64_t(out.back() - first);
  std::printf("timing (%lld output tokens, ideal streams): measured D %lld II %lld L %lld; model "
              "D %lld II %lld L %lld\n",
              (long long)kTimedOutputs, (long long)d, (long long)ii, (long long)l,
              (long long)want.firstOutputDelay, (long long)want.ii, (long long)want.totalLatency);
  if (d != want.firstOutputDelay || ii != want.ii || l != want.totalLatency)
    h.fail("measured timing differs from the model");

  // ---- 2. random invocations under random backpressure -----------------------------------
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  const uint64_t start = h.cycle();
  uint64_t outputs = 0;
  for (size_t p = 0; p < phases; ++p) {
    for (auto &drv : drivers)
      drv->setValidProbability(kDefaultPhases[p].validProbability);
    sink.setReadyProbability(kDefaultPhases[p].readyProbability);
    const uint64_t count = invocations / phases + (p == phases - 1 ? invocations % phases : 0);
    uint64_t queued = 0;
    for (uint64_t v = 0; v < count; ++v)
      queued += queue(k.invocation(1 + int64_t(rng() % 3), rng));
    outputs += queued;
    h.runUntil([&] { return board.empty(); }, queued * 2000 + 10000);
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu invocations (%llu output tokens) bit-exact against the C++ reference in %llu "
              "cycles\n",
              (unsigned long long)invocations, (unsigned long long)outputs,
              (unsigned long long)(h.cycle() - start));
}

} // namespace st::tb
