// Verilator test of st_softmax against the golden st::numerics::softmax.
//  1. Timing: with ideal sources and sink, isolated invocations of lengths 1, 2, Lanes,
//     Lanes+1, MaxLen and random ones must show exactly the model's D, L and ii = 1
//     (softmaxTiming: D and L are functions of n).
//  2. Bit-exactness: >= 1,000 vectors under random valid gaps on both inputs and random
//     backpressure, every probability equal to the golden one (lanes beyond n must be 0).
//     Vectors: random over the whole range, a narrow random spread (many non-zero terms), all
//     equal, one-hot, only INT_MIN/INT_MAX, all INT_MIN; scales from softmaxScales over six
//     decades plus raw extremes (shift 0 / shift 63); lengths 1, MaxLen, near multiples of
//     Lanes, random. The lanes beyond n in the last token carry random garbage.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "config_dispatch.h"
#include "model/softmax_model.h"
#include "numerics/golden_ops.h"
#include "passthrough_test.h"
#include "softmax_configs.h"

using namespace st::tb;
namespace num = st::numerics;

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

/// Expected probabilities strictly between 0 and 1: evidence that the exp/sum/normalize
/// arithmetic, not only the saturated cases, was compared.
uint64_t interiorProbabilities = 0;

struct Shape {
  unsigned lanes, inBits, lenBits, cfgBits;
  int64_t maxLen;
};

std::vector<int32_t> makeLogits(std::mt19937_64 &rng, const Shape &s, int64_t n, int kind) {
  const int64_t lo = -(int64_t(1) << (s.inBits - 1)), hi = (int64_t(1) << (s.inBits - 1)) - 1;
  std::uniform_int_distribution<int64_t> full(lo, hi);
  std::vector<int32_t> v(n);
  switch (kind) {
  case 0: // whole range
    for (auto &x : v)
      x = static_cast<int32_t>(full(rng));
    break;
  case 1: { // narrow spread around a random centre: many terms contribute
    const int64_t spread = int64_t(1) << (rng() % (s.inBits - 1));
    const int64_t centre = full(rng);
    for (auto &x : v)
      x = static_cast<int32_t>(std::clamp<int64_t>(
          centre + std::uniform_int_distribution<int64_t>(-spread, spread)(rng), lo, hi));
    break;
  }
  case 2: { // all equal
    const auto c = static_cast<int32_t>(full(rng));
    for (auto &x : v)
      x = c;
    break;
  }
  case 3: { // one-hot
    const int64_t base = rng() % 2 ? lo : full(rng);
    for (auto &x : v)
      x = static_cast<int32_t>(base);
    v[rng() % n] = static_cast<int32_t>(rng() % 2 ? hi : std::min<int64_t>(hi, base + 1));
    break;
  }
  case 4: // extremes only
    for (auto &x : v)
      x = static_cast<int32_t>(rng() % 2 ? lo : hi);
    break;
  default: // all at the minimum
    for (auto &x : v)
      x = static_cast<int32_t>(lo);
    break;
  }
  return v;
}

num::SoftmaxScales makeScales(std::mt19937_64 &rng) {
  switch (rng() % 8) {
  case 0: // raw: no scaling down at all (every non-maximum term vanishes)
    return {num::FixedScale{static_cast<uint32_t>((1u << 23) + rng() % (1u << 23)), 0}};
  case 1: // raw: the largest shift (t ~ 0: nearly uniform)
    return {num::FixedScale{static_cast<uint32_t>((1u << 23) + rng() % (1u << 23)), 63}};
  default: // a logit scale from 1e-7 to 1e-1
    return num::softmaxScales(std::pow(10.0, std::uniform_real_distribution<double>(-7, -1)(rng)));
  }
}

/// Pushes the config token and the logit tokens of one vector (garbage beyond n); returns the
/// expected output tokens.
std::vector<Bits> pushVector(StreamDriver &cfg, StreamDriver &data, std::mt19937_64 &rng,
                             const Shape &s, const std::vector<int32_t> &v,
                             const num::SoftmaxScales &scales) {
  const int64_t n = static_cast<int64_t>(v.size());
  Bits config(s.cfgBits);
  config.setSliceU64(0, s.lenBits, static_cast<uint64_t>(n));
  config.setSliceU64(s.lenBits, 24, scales.logitToLog2.mantissa);
  config.setSliceU64(s.lenBits + 24, 6, scales.logitToLog2.shift);
  cfg.push(config);
  const std::vector<uint32_t> p = num::softmax(v, scales);
  for (uint32_t x : p)
    interiorProbabilities += x > 0 && x < 32768;
  const int64_t tokens = (n + s.lanes - 1) / s.lanes;
  const uint64_t mask = s.inBits == 64 ? ~0ull : (uint64_t(1) << s.inBits) - 1;
  std::vector<Bits> expected;
  for (int64_t t = 0; t < tokens; ++t) {
    Bits in(s.lanes * s.inBits), out(s.lanes * 16);
    for (unsigned lane = 0; lane < s.lanes; ++lane) {
      const int64_t i = t * s.lanes + lane;
      in.setSliceU64(lane * s.inBits, s.inBits,
                     (i < n ? static_cast<uint64_t>(v[i]) : static_cast<uint64_t>(rng())) & mask);
      out.setSliceU64(lane * 16, 16, i < n ? p[i] : 0);
    }
    data.push(in);
    expected.push_back(out);
  }
  return expected;
}

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  st::model::SoftmaxParams mp;
  mp.lanes = params["Lanes"];
  mp.inBits = params["InBits"];
  mp.maxLen = params["MaxLen"];
  const Shape s{static_cast<unsigned>(mp.lanes), static_cast<unsigned>(mp.inBits),
                static_cast<unsigned>(st::model::softmaxLengthBits(mp)),
                static_cast<unsigned>(st::model::softmaxConfigBits(mp)), mp.maxLen};
  StreamPins cfgPins{SignalRef(m.cfg_valid_i, 1), SignalRef(m.cfg_ready_o, 1),
                     SignalRef(m.cfg_data_i, s.cfgBits)};
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1),
                SignalRef(m.data_i, s.lanes * s.inBits)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                 SignalRef(m.data_o, s.lanes * 16)};

  const uint64_t seed = options.seed;
  StreamDriver cfg("cfg", cfgPins, seed * 7 + 3);
  StreamDriver driver("in", in, seed * 3 + 1);
  StreamSink sink("out", out, seed * 5 + 2);
  Scoreboard board("probabilities");
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

  auto submit = [&](const std::vector<int32_t> &v, const num::SoftmaxScales &scales) {
    for (const Bits &t : pushVector(cfg, driver, rng, s, v, scales))
      board.expect(t);
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
    if (n > mp.maxLen)
      continue;
    mp.length = n;
    const st::model::KernelTiming model = st::model::softmaxTiming(mp);
    cfgLog.cycles.clear();
    outLog.cycles.clear();
    submit(makeLogits(rng, s, n, 1), makeScales(rng));
    drain(uint64_t(n) * 8 + 200);
    const int64_t d = int64_t(outLog.cycles.front() - cfgLog.cycles.at(0));
    const int64_t l = int64_t(outLog.cycles.back() - cfgLog.cycles.at(0));
    int64_t maxGap = 1;
    for (size_t k = 1; k < outLog.cycles.size(); ++k)
      maxGap = std::max<int64_t>(maxGap, int64_t(outLog.cycles[k] - outLog.cycles[k - 1]));
    std::printf("  timing n=%lld: D=%lld L=%lld ii=%lld tokens=%zu (model D=%lld L=%lld ii=%lld "
                "tokens=%lld)\n",
                static_cast<long long>(n), static_cast<long long>(d), static_cast<long long>(l),
                static_cast<long long>(maxGap), outLog.cycles.size(),
                static_cast<long long>(model.firstOutputDelay),
                static_cast<long long>(model.totalLatency), static_cast<long long>(model.ii),
                static_cast<long long>(model.outputTokens));
    if (d != model.firstOutputDelay || l != model.totalLatency || maxGap != model.ii ||
        int64_t(outLog.cycles.size()) != model.outputTokens)
      h.fail("n=" + std::to_string(n) + ": measured D/L/ii " + std::to_string(d) + "/" +
             std::to_string(l) + "/" + std::to_string(maxGap) + " differ from the model's " +
             std::to_string(model.firstOutputDelay) + "/" + std::to_string(model.totalLatency) +
             "/" + std::to_string(model.ii));
  }

  // ---- 2. bit-exact against the golden under random traffic ------------------------------------
  const uint64_t vectors = std::max<uint64_t>(options.tokens, 1000);
  uint64_t elements = 0;
  int fullLength = 0, single = 0;
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  for (uint64_t j = 0; j < vectors; ++j) {
    const TrafficPhase &phase = kDefaultPhases[(j * phases) / vectors];
    cfg.setValidProbability(phase.validProbability);
    driver.setValidProbability(phase.validProbability);
    sink.setReadyProbability(phase.readyProbability);
    int64_t n;
    switch (rng() % 8) {
    case 0:
      n = 1;
      break;
    case 1:
      n = mp.maxLen;
      break;
    case 2:
      n = std::clamp<int64_t>(mp.lanes * int64_t(1 + rng() % 4) + int64_t(rng() % 3) - 1, 1,
                              mp.maxLen);
      break;
    default:
      n = 1 + static_cast<int64_t>(rng() % mp.maxLen);
    }
    fullLength += n == mp.maxLen;
    single += n == 1;
    submit(makeLogits(rng, s, n, static_cast<int>(rng() % 6)), makeScales(rng));
    elements += n;
    if (j % 8 == 7 || j + 1 == vectors)
      drain(elements * 40 + 100000);
  }
  for (int i = 0; i < 32; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu vectors (%llu elements; %d of length 1, %d of MaxLen): %llu output tokens "
              "matched the golden softmax, %llu cycles\n",
              static_cast<unsigned long long>(vectors), static_cast<unsigned long long>(elements),
              single, fullLength, static_cast<unsigned long long>(board.matched()),
              static_cast<unsigned long long>(h.cycle()));
  std::printf("%llu expected probabilities were strictly between 0 and 1\n",
              static_cast<unsigned long long>(interiorProbabilities));
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
