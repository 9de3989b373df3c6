// Verilator test of st_argmax against the golden st::numerics::argmax.
//  1. Timing: with ideal sources and sink, isolated invocations of lengths 1, Lanes, Lanes+1,
//     MaxLen and random ones must show exactly the model's D and L (argmaxTiming), and pairs of
//     back-to-back invocations exactly its ii.
//  2. Bit-exactness: >= 1,000 vectors under random valid gaps on both inputs and random
//     backpressure, each index equal to the golden one. Vectors: random, all equal, one-hot,
//     only the two extremes, three-value (many ties), maximum in the last element; lengths 1,
//     MaxLen, near multiples of Lanes and log-uniform. The lanes beyond n in the last token
//     carry random garbage (often the largest value), which must be ignored.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "argmax_configs.h"
#include "config_dispatch.h"
#include "model/argmax_model.h"
#include "numerics/golden_ops.h"
#include "passthrough_test.h"

using namespace st::tb;

namespace {

/// Records the cycle of every handshake on one stream.
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

struct Shape {
  unsigned lanes, elemBits, lenBits, indexBits;
  int64_t maxLen;
};

/// Random vector of one of the test's kinds; values fit elemBits signed bits.
std::vector<int32_t> makeVector(std::mt19937_64 &rng, const Shape &s, int64_t n, int kind) {
  const int64_t lo = -(int64_t(1) << (s.elemBits - 1)), hi = (int64_t(1) << (s.elemBits - 1)) - 1;
  std::uniform_int_distribution<int64_t> full(lo, hi);
  std::uniform_int_distribution<int64_t> position(0, n - 1);
  std::vector<int32_t> v(n);
  switch (kind) {
  case 0: // random over the whole range
    for (auto &x : v)
      x = static_cast<int32_t>(full(rng));
    break;
  case 1: { // all equal
    const auto c = static_cast<int32_t>(full(rng));
    for (auto &x : v)
      x = c;
    break;
  }
  case 2: { // one-hot: all at the minimum (or a random base), one larger element
    const int64_t base = rng() % 2 ? lo : full(rng);
    for (auto &x : v)
      x = static_cast<int32_t>(base);
    v[position(rng)] = static_cast<int32_t>(rng() % 2 ? hi : std::min<int64_t>(hi, base + 1));
    break;
  }
  case 3: // only the two extremes
    for (auto &x : v)
      x = static_cast<int32_t>(rng() % 2 ? lo : hi);
    break;
  case 4: // three values: many ties
    for (auto &x : v)
      x = static_cast<int32_t>(int64_t(rng() % 3) - 1);
    break;
  default: // maximum only in the last element
    for (auto &x : v)
      x = static_cast<int32_t>(std::uniform_int_distribution<int64_t>(lo, hi - 1)(rng));
    v.back() = static_cast<int32_t>(hi);
    break;
  }
  return v;
}

/// Pushes one vector: its config token and its data tokens (garbage in the lanes beyond n).
void pushVector(StreamDriver &cfg, StreamDriver &data, std::mt19937_64 &rng, const Shape &s,
                const std::vector<int32_t> &v) {
  const int64_t n = static_cast<int64_t>(v.size());
  cfg.push(Bits(s.lenBits, static_cast<uint64_t>(n)));
  const int64_t tokens = (n + s.lanes - 1) / s.lanes;
  const uint64_t mask = (uint64_t(1) << s.elemBits) - 1;
  for (int64_t t = 0; t < tokens; ++t) {
    Bits token(s.lanes * s.elemBits);
    for (unsigned lane = 0; lane < s.lanes; ++lane) {
      const int64_t i = t * s.lanes + lane;
      // Beyond n: the largest value half of the time, else random bits.
      const uint64_t raw = i < n ? static_cast<uint64_t>(v[i])
                                 : (rng() % 2 ? (mask >> 1) : static_cast<uint64_t>(rng()));
      token.setSliceU64(lane * s.elemBits, s.elemBits, raw & mask);
    }
    data.push(token);
  }
}

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  st::model::ArgmaxParams mp;
  mp.lanes = params["Lanes"];
  mp.elemBits = params["ElemBits"];
  mp.maxLen = params["MaxLen"];
  const Shape s{static_cast<unsigned>(mp.lanes), static_cast<unsigned>(mp.elemBits),
                static_cast<unsigned>(st::model::argmaxLengthBits(mp)),
                static_cast<unsigned>(st::model::argmaxIndexBits(mp)), mp.maxLen};
  StreamPins cfgPins{SignalRef(m.cfg_valid_i, 1), SignalRef(m.cfg_ready_o, 1),
                     SignalRef(m.cfg_data_i, s.lenBits)};
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1),
                SignalRef(m.data_i, s.lanes * s.elemBits)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                 SignalRef(m.data_o, s.indexBits)};

  const uint64_t seed = options.seed;
  StreamDriver cfg("cfg", cfgPins, seed * 7 + 3);
  StreamDriver driver("in", in, seed * 3 + 1);
  StreamSink sink("out", out, seed * 5 + 2);
  Scoreboard board("index");
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch("cfg", cfgPins);
  watchdog.watch("in", in);
  watchdog.watch(sink.checker());
  HandshakeLog cfgLog(cfgPins), outLog(out);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c : std::initializer_list<Component *>{&cfg, &driver, &sink, &board, &watchdog,
                                                         &cfgLog, &outLog})
    h.add(*c);
  h.reset();
  std::mt19937_64 rng(seed);

  auto expectIndex = [&](const std::vector<int32_t> &v) {
    board.expect(Bits(s.indexBits, st::numerics::argmax(v)));
  };
  auto drain = [&](uint64_t limit) {
    h.runUntil([&] { return board.empty() && cfg.idle() && driver.idle(); }, limit);
    for (int i = 0; i < 4; ++i)
      h.step();
  };

  // ---- 1. exact timing with ideal sources and sink --------------------------------------------
  std::vector<int64_t> timingLengths = {1, 2, mp.lanes, mp.lanes + 1, mp.maxLen};
  for (int i = 0; i < 4; ++i)
    timingLengths.push_back(1 + static_cast<int64_t>(rng() % mp.maxLen));
  for (int64_t n : timingLengths) {
    if (n < 1 || n > mp.maxLen)
      continue;
    mp.length = n;
    const st::model::KernelTiming model = st::model::argmaxTiming(mp);
    for (int pair = 0; pair < 2; ++pair) { // one isolated invocation, then two back to back
      cfgLog.cycles.clear();
      outLog.cycles.clear();
      const int count = pair ? 2 : 1;
      for (int k = 0; k < count; ++k) {
        auto v = makeVector(rng, s, n, 0);
        pushVector(cfg, driver, rng, s, v);
        expectIndex(v);
      }
      drain(uint64_t(n) * 4 + 100);
      const int64_t d = int64_t(outLog.cycles.at(0) - cfgLog.cycles.at(0));
      std::printf("  timing n=%lld: D=L=%lld (model %lld)", static_cast<long long>(n),
                  static_cast<long long>(d), static_cast<long long>(model.firstOutputDelay));
      if (d != model.firstOutputDelay || d != model.totalLatency)
        h.fail("n=" + std::to_string(n) + ": measured D = L = " + std::to_string(d) +
               ", model D = " + std::to_string(model.firstOutputDelay) +
               ", L = " + std::to_string(model.totalLatency));
      if (pair) {
        const int64_t ii = int64_t(outLog.cycles.at(1) - outLog.cycles.at(0));
        std::printf(", back-to-back ii=%lld (model %lld)", static_cast<long long>(ii),
                    static_cast<long long>(model.ii));
        if (ii != model.ii)
          h.fail("n=" + std::to_string(n) + ": measured ii " + std::to_string(ii) + ", model " +
                 std::to_string(model.ii));
      }
      std::printf("\n");
    }
  }

  // ---- 2. bit-exact against the golden under random traffic ------------------------------------
  const uint64_t vectors = std::max<uint64_t>(options.tokens, 1000);
  uint64_t elements = 0;
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  int fullLength = 0;
  for (uint64_t j = 0; j < vectors; ++j) {
    const TrafficPhase &phase = kDefaultPhases[(j * phases) / vectors];
    cfg.setValidProbability(phase.validProbability);
    driver.setValidProbability(phase.validProbability);
    sink.setReadyProbability(phase.readyProbability);
    int64_t n;
    const unsigned pick = static_cast<unsigned>(rng() % 10);
    if (pick == 0)
      n = 1;
    else if (pick == 1 && (mp.maxLen <= 4096 || fullLength < 4)) {
      n = mp.maxLen;
      ++fullLength;
    } else if (pick == 2)
      n = std::clamp<int64_t>(mp.lanes * int64_t(1 + rng() % 4) + int64_t(rng() % 3) - 1, 1,
                              mp.maxLen);
    else // log-uniform over 1 .. MaxLen
      n = std::clamp<int64_t>(static_cast<int64_t>(std::exp(std::uniform_real_distribution<double>(
                                  0.0, std::log(double(mp.maxLen) + 1))(rng))),
                              1, mp.maxLen);
    auto v = makeVector(rng, s, n, static_cast<int>(rng() % 6));
    pushVector(cfg, driver, rng, s, v);
    expectIndex(v);
    elements += v.size();
    // Keep the queues short so that the traffic phase applies to the vectors it was set for.
    if (j % 8 == 7 || j + 1 == vectors)
      drain(elements * 20 + 100000);
  }
  for (int i = 0; i < 32; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu vectors (%llu elements, %d at MaxLen) matched the golden argmax, %llu "
              "cycles\n",
              static_cast<unsigned long long>(board.matched()),
              static_cast<unsigned long long>(elements), fullLength,
              static_cast<unsigned long long>(h.cycle()));
  std::printf("%s", watchdog.stallReport().c_str());
}

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
