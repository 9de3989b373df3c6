// ElementwiseBench: the shared test of the element-wise kernels (st_activation,
// st_gated_activation, st_requantize, st_residual_add). A kernel is described by its input and
// output streams, a list of scale sets (each written to the DUT's scale ports) and its golden
// function from st::numerics. The bench
//   1. times one invocation of kTimedTokens tokens with ideal streams (valid always high, ready
//      always high) and asserts that the measured first-output delay D, interval II and total
//      latency L equal the model's KernelTiming exactly;
//   2. for inputs of at most 16 bits, sweeps every code of input 0 (other inputs random) with
//      scale set 0 (the kernels' tests make it the identity-like set, e.g. Q.11 in and out for
//      the activations, so every table segment and rounding of the function is checked);
//   3. streams `vectors` random vectors (1 .. 8 tokens each; elements uniform, extreme (min, max,
//      0, +-1), small, or all equal; a random scale set per vector, applied with every token of
//      it) through the traffic phases of runPassthroughTest (free flow, slow consumer, slow
//      producer, random both ways), checks the output protocol, and compares every output token
//      bit for bit with the golden function in order.
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

/// One element-wise kernel as the bench drives it.
struct ElementwiseKernel {
  unsigned lanes = 1;
  std::vector<StreamPins> inputs; ///< joined inputs: token k of each belongs together
  std::vector<unsigned> inputBits;
  StreamPins output;
  unsigned outputBits = 8;
  size_t scaleSets = 1;
  std::function<std::string(size_t)> describeScaleSet;
  /// Writes scale set `set` to the DUT's scale ports.
  std::function<void(size_t set)> applyScales;
  /// The golden output elements of one vector (one element vector per input).
  std::function<std::vector<int64_t>(size_t set, const std::vector<std::vector<int64_t>> &)> golden;
  /// The model's timing of one invocation of `elements` elements.
  std::function<model::KernelTiming(int64_t elements)> timing;
};

/// Per cycle, writes the scale set of the next token to be handed over on `pins` (the token
/// whose handshake may happen this cycle): the bench's way of sampling scales with each token.
class ScaleFollower : public Component {
public:
  ScaleFollower(StreamPins pins, std::function<void(size_t)> apply)
      : pins_(std::move(pins)), apply_(std::move(apply)) {}
  void append(size_t set, uint64_t tokens) { tokenSets_.insert(tokenSets_.end(), tokens, set); }
  void drive(uint64_t) override {
    apply_(handshakes_ < tokenSets_.size() ? tokenSets_[handshakes_] : 0);
  }
  void sample(uint64_t) override {
    if (pins_.valid.readBool() && pins_.ready.readBool())
      ++handshakes_;
  }

private:
  StreamPins pins_;
  std::function<void(size_t)> apply_;
  std::vector<size_t> tokenSets_; ///< scale set of every token ever queued, in order
  uint64_t handshakes_ = 0;
};

/// Records the cycles of the handshakes on one stream.
class HandshakeLog : public Component {
public:
  explicit HandshakeLog(StreamPins pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    if (pins_.valid.readBool() && pins_.ready.readBool())
      cycles.push_back(cycle);
  }
  std::vector<uint64_t> cycles;

private:
  StreamPins pins_;
};

inline int64_t signExtend(uint64_t value, unsigned bits) {
  const uint64_t sign = uint64_t(1) << (bits - 1);
  value &= bits >= 64 ? ~uint64_t(0) : (sign << 1) - 1;
  return static_cast<int64_t>((value ^ sign) - sign);
}

/// Random elements of `bits` bits in one of four shapes.
inline std::vector<int64_t> randomElements(size_t count, unsigned bits, std::mt19937_64 &rng) {
  const int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
  std::uniform_int_distribution<int64_t> full(lo, hi);
  const int64_t smallLimit = int64_t(1) << (bits / 2);
  std::uniform_int_distribution<int64_t> small(-smallLimit, smallLimit);
  const int64_t extremes[] = {lo, hi, lo + 1, hi - 1, 0, 1, -1};
  std::uniform_int_distribution<size_t> pickExtreme(0, 6);
  std::vector<int64_t> v(count);
  switch (rng() % 4) {
  case 0:
    for (auto &e : v)
      e = full(rng);
    break;
  case 1:
    for (auto &e : v)
      e = extremes[pickExtreme(rng)];
    break;
  case 2:
    for (auto &e : v)
      e = small(rng);
    break;
  default:
    std::fill(v.begin(), v.end(), full(rng));
    break;
  }
  return v;
}

/// Packs elements [token*lanes, (token+1)*lanes) into one token.
inline Bits packToken(const std::vector<int64_t> &elements, size_t token, unsigned lanes,
                      unsigned bits) {
  Bits t(lanes * bits);
  for (unsigned i = 0; i < lanes; ++i)
    t.setSliceU64(i * bits, bits, static_cast<uint64_t>(elements[token * lanes + i]));
  return t;
}

template <class Model>
void runElementwiseTest(Harness<Model> &h, ElementwiseKernel &k, uint64_t vectors) {
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
  ScaleFollower scales(k.inputs[0], k.applyScales);
  HandshakeLog inputLog(k.inputs[0]), outputLog(k.output);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  h.add(scales); // drives the scale ports before the drivers' data: order does not matter
  for (auto &d : drivers)
    h.add(*d);
  h.add(sink);
  h.add(board);
  h.add(watchdog);
  h.add(inputLog);
  h.add(outputLog);
  h.reset();

  std::mt19937_64 rng(seed);
  uint64_t elementsChecked = 0;
  // Queues one vector of `tokens` tokens with scale set `set`, and its expected output.
  auto queueVector = [&](size_t tokens, size_t set) {
    const size_t n = tokens * k.lanes;
    std::vector<std::vector<int64_t>> in;
    for (size_t p = 0; p < ports; ++p)
      in.push_back(randomElements(n, k.inputBits[p], rng));
    const std::vector<int64_t> expected = k.golden(set, in);
    for (size_t t = 0; t < tokens; ++t) {
      for (size_t p = 0; p < ports; ++p)
        drivers[p]->push(packToken(in[p], t, k.lanes, k.inputBits[p]));
      board.expect(packToken(expected, t, k.lanes, k.outputBits));
    }
    scales.append(set, tokens);
    elementsChecked += n;
  };

  // ---- 1. timing of one invocation with ideal streams ------------------------------------
  constexpr size_t kTimedTokens = 16;
  for (auto &d : drivers)
    d->setValidProbability(1.0);
  sink.setReadyProbability(1.0);
  queueVector(kTimedTokens, 0);
  h.runUntil([&] { return board.empty(); }, 10000);
  const model::KernelTiming want = k.timing(int64_t(kTimedTokens * k.lanes));
  const auto &in = inputLog.cycles, &out = outputLog.cycles;
  if (out.size() != kTimedTokens || in.size() != kTimedTokens)
    h.fail("timing run: " + std::to_string(in.size()) + " input and " + std::to_string(out.size()) +
           " output handshakes, expected " + std::to_string(kTimedTokens));
  int64_t ii = 0;
  for (size_t i = 1; i < out.size(); ++i)
    ii = std::max<int64_t>(ii, int64_t(out[i] - out[i - 1]));
  const int64_t d = int64_t(out.front() - in.front()), l = int64_t(out.back() - in.front());
  std::printf("timing (%zu tokens, ideal streams): measured D %lld II %lld L %lld; model D %lld "
              "II %lld L %lld, %lld output tokens\n",
              kTimedTokens, (long long)d, (long long)ii, (long long)l,
              (long long)want.firstOutputDelay, (long long)want.ii, (long long)want.totalLatency,
              (long long)want.outputTokens);
  if (d != want.firstOutputDelay || ii != want.ii || l != want.totalLatency ||
      want.outputTokens != int64_t(kTimedTokens))
    h.fail("measured timing differs from the model");

  // ---- 2. every code of input 0 with scale set 0 ---------------------------------------
  if (k.inputBits[0] <= 16) {
    const size_t codes = size_t(1) << k.inputBits[0];
    const size_t sweepTokens = (codes + k.lanes - 1) / k.lanes, n = sweepTokens * k.lanes;
    std::vector<std::vector<int64_t>> in;
    std::vector<int64_t> sweep(n);
    for (size_t i = 0; i < n; ++i)
      sweep[i] = signExtend(i % codes, k.inputBits[0]);
    in.push_back(sweep);
    for (size_t p = 1; p < ports; ++p)
      in.push_back(randomElements(n, k.inputBits[p], rng));
    const std::vector<int64_t> expected = k.golden(0, in);
    for (size_t t = 0; t < sweepTokens; ++t) {
      for (size_t p = 0; p < ports; ++p)
        drivers[p]->push(packToken(in[p], t, k.lanes, k.inputBits[p]));
      board.expect(packToken(expected, t, k.lanes, k.outputBits));
    }
    scales.append(0, sweepTokens);
    h.runUntil([&] { return board.empty(); }, sweepTokens * 4 + 1000);
    std::printf("all %zu codes of input 0 bit-exact with scale set 0\n", codes);
  }

  // ---- 3. random vectors under random backpressure ---------------------------------------
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  std::vector<uint64_t> setUse(k.scaleSets, 0);
  const uint64_t start = h.cycle();
  uint64_t tokens = 0;
  for (size_t p = 0; p < phases; ++p) {
    for (auto &drv : drivers)
      drv->setValidProbability(kDefaultPhases[p].validProbability);
    sink.setReadyProbability(kDefaultPhases[p].readyProbability);
    const uint64_t count = vectors / phases + (p == phases - 1 ? vectors % phases : 0);
    uint64_t queued = 0;
    for (uint64_t v = 0; v < count; ++v) {
      const size_t vectorTokens = 1 + rng() % 8, set = rng() % k.scaleSets;
      ++setUse[set];
      queueVector(vectorTokens, set);
      queued += vectorTokens;
    }
    tokens += queued;
    h.runUntil([&] { return board.empty(); }, queued * 200 + 10000);
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu vectors (%llu tokens, %llu elements) bit-exact against the golden model in "
              "%llu cycles; scale sets used:",
              (unsigned long long)vectors, (unsigned long long)tokens,
              (unsigned long long)elementsChecked, (unsigned long long)(h.cycle() - start));
  for (size_t s = 0; s < k.scaleSets; ++s)
    std::printf(" %s x%llu", k.describeScaleSet ? k.describeScaleSet(s).c_str() : "",
                (unsigned long long)setUse[s]);
  std::printf("\n");
}

} // namespace st::tb
