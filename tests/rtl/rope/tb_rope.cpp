// Verilator test of st_rope (rotate-half RoPE over NumHeads heads of one token):
//  1. timing: with ideal sources and no backpressure, three back-to-back vectors each show
//     exactly the first-output delay D, II and total latency L of st::model::ropeTiming, and
//     every output k comes after the input tokens inputTokensNeeded says it needs;
//  2. bit-exactness: --tokens random vectors (default 1200) under four traffic phases of random
//     backpressure, each with a random position (uniform over PosBits, or 0, the maximum, or
//     small), table select and output multiplier, codes of eight kinds (random, all at the
//     extremes, zero, tiny, one hot, ...), every output token compared with st::numerics::rope.
// --config NAME --compare-synth REPORT prints the resource estimate beside Yosys's counts.
#include "config_dispatch.h"
#include "harness.h"
#include "model/rope_model.h"
#include "numerics/golden_ops.h"
#include "rope_configs.h"
#include "rope_test_tables.h"
#include "scoreboard.h"
#include "sideband_ports.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "synth_compare.h"
#include "watchdog.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

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

/// The sideband of one vector.
struct VectorSideband {
  uint64_t position = 0;
  uint64_t table = 0;
  num::FixedScale multiplier;
};

/// Drives the sideband of the vector whose first token the kernel may accept this cycle
/// (vector = data tokens accepted so far / tokens per vector); garbage between vectors' first
/// tokens, which the kernel must not sample.
class SidebandDriver : public Component {
public:
  SidebandDriver(StreamPins dataIn, SidebandPorts ports, unsigned selBits, unsigned posBits,
                 uint64_t tokensPerVector, uint64_t seed)
      : dataIn_(std::move(dataIn)), ports_(std::move(ports)), selBits_(selBits), posBits_(posBits),
        tokensPerVector_(tokensPerVector), rng_(seed) {}
  void add(const VectorSideband &s) { vectors_.push_back(s); }
  void drive(uint64_t) override {
    const uint64_t vector = accepted_ / tokensPerVector_;
    if (accepted_ % tokensPerVector_ == 0 && vector < vectors_.size()) {
      // The LLM top's mapping; the position is the Position source's runtime value.
      const VectorSideband &s = vectors_[vector];
      st::plan::SidebandRuntime runtime;
      runtime.position = int64_t(s.position);
      ports_.write(st::plan::ropeSidebands(s.multiplier, s.table, selBits_, posBits_), runtime);
    } else {
      ports_.fill(rng_());
    }
  }
  void sample(uint64_t) override {
    if (dataIn_.valid.readBool() && dataIn_.ready.readBool())
      ++accepted_;
  }

private:
  StreamPins dataIn_;
  SidebandPorts ports_;
  unsigned selBits_, posBits_;
  uint64_t tokensPerVector_;
  std::mt19937_64 rng_;
  std::vector<VectorSideband> vectors_;
  uint64_t accepted_ = 0;
};

model::RopeParams paramsOf(const Params &params) {
  model::RopeParams p;
  p.numHeads = params["NumHeads"];
  p.headDim = params["HeadDim"];
  p.lanes = params["Lanes"];
  p.inBits = params["InBits"];
  p.outBits = params["OutBits"];
  p.posBits = params["PosBits"];
  p.numTables = params["NumTables"];
  return p;
}

int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// The codes of one vector (all heads), of kind index % 8.
std::vector<int32_t> randomVector(const model::RopeParams &p, uint64_t index,
                                  std::mt19937_64 &rng) {
  const int64_t lo = num::minSigned(unsigned(p.inBits)), hi = num::maxSigned(unsigned(p.inBits));
  std::vector<int32_t> x(size_t(p.numHeads * p.headDim));
  const unsigned kind = unsigned(index % 8);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t v = 0;
    switch (kind) {
    case 1:
      v = uniform(rng, 0, 1) ? hi : lo;
      break; // extremes, random signs
    case 2:
      v = lo;
      break; // all at the negative extreme
    case 3:
      v = 0;
      break; // zero
    case 4:
      v = uniform(rng, -1, 1);
      break; // tiny
    case 5:
      v = i % 7 == 0 ? hi : 0;
      break; // sparse
    case 6:
      v = hi;
      break; // all at the positive extreme
    default:
      v = uniform(rng, lo, hi);
      break; // random
    }
    x[i] = int32_t(v);
  }
  return x;
}

VectorSideband randomSideband(const model::RopeParams &p, uint64_t index, std::mt19937_64 &rng) {
  VectorSideband s;
  const uint64_t posMax = p.posBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << p.posBits) - 1;
  switch (index % 5) {
  case 0:
    s.position = 0;
    break;
  case 1:
    s.position = posMax;
    break;
  case 2:
    s.position = uint64_t(uniform(rng, 0, 64));
    break;
  default:
    s.position = std::uniform_int_distribution<uint64_t>(0, posMax)(rng);
    break;
  }
  s.table = uint64_t(uniform(rng, 0, p.numTables - 1));
  // s_in/s_out near 2^(OutBits - InBits): normalized mantissa, shift spread so that some outputs
  // saturate; every 6th vector a small shift (saturates), every 11th a huge one (rounds to 0),
  // every 13th a zero mantissa.
  s.multiplier.mantissa = uint32_t(uniform(rng, 1 << 23, (1 << 24) - 1));
  int shift = 23 + int(p.inBits - p.outBits) + int(uniform(rng, -2, 3));
  if (index % 6 == 5)
    shift = int(uniform(rng, 0, 8));
  if (index % 11 == 10)
    shift = int(uniform(rng, 40, 63));
  if (index % 13 == 12)
    s.multiplier.mantissa = 0;
  s.multiplier.shift = uint8_t(std::clamp(shift, 0, 63));
  return s;
}

/// Packs codes into tokens of Lanes elements of `bits` bits, element 0 in the low bits.
std::vector<Bits> toTokens(const std::vector<int32_t> &codes, int64_t lanes, int64_t bits) {
  std::vector<Bits> tokens;
  for (size_t t = 0; t < codes.size() / size_t(lanes); ++t) {
    Bits token(unsigned(lanes * bits));
    for (int64_t i = 0; i < lanes; ++i)
      token.setSliceU64(unsigned(i * bits), unsigned(bits),
                        uint64_t(int64_t(codes[t * size_t(lanes) + size_t(i)])));
    tokens.push_back(token);
  }
  return tokens;
}

struct TrafficPhase {
  const char *name;
  double inValid, outReady;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const model::RopeParams p = paramsOf(params);
  const model::KernelTiming timing = model::ropeTiming(p);
  const std::vector<num::RopeTable> tables = ropeTestTables(size_t(p.headDim), size_t(p.numTables));
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  StreamPins inPins{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1),
                    SignalRef(m.data_i, unsigned(p.lanes * p.inBits))};
  StreamPins outPins{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                     SignalRef(m.data_o, unsigned(p.lanes * p.outBits))};
  const unsigned selBits = st::plan::ropeTableSelectBits(p.numTables);
  const uint64_t seed = options.seed;
  const uint64_t tokensPerVector = uint64_t(timing.inputTokens[0]);
  StreamDriver driver("in", inPins, seed * 3 + 1);
  StreamSink sink("out", outPins, seed * 5 + 3);
  SidebandDriver sideband(inPins,
                          SidebandPorts({{"pos_i", SignalRef(m.pos_i, unsigned(p.posBits))},
                                         {"table_sel_i", SignalRef(m.table_sel_i, selBits)},
                                         {"mult_mantissa_i", SignalRef(m.mult_mantissa_i, 24)},
                                         {"mult_shift_i", SignalRef(m.mult_shift_i, 6)}}),
                          selBits, unsigned(p.posBits), tokensPerVector, seed * 11 + 5);
  Scoreboard board("out");
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch(sink.checker());
  watchdog.watch("in", inPins);
  HandshakeLog inLog(inPins), outLog(outPins);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c : std::initializer_list<Component *>{&sideband, &driver, &sink, &board,
                                                         &watchdog, &inLog, &outLog})
    h.add(*c);
  h.reset();
  std::mt19937_64 rng(seed);

  uint64_t vectorsDone = 0, saturated = 0, outputs = 0;
  const int64_t outMax = num::maxSigned(unsigned(p.outBits));
  const int64_t outMin = num::minSigned(unsigned(p.outBits));
  auto enqueue = [&]() {
    const std::vector<int32_t> x = randomVector(p, vectorsDone, rng);
    const VectorSideband s = randomSideband(p, vectorsDone, rng);
    sideband.add(s);
    for (const Bits &t : toTokens(x, p.lanes, p.inBits))
      driver.push(t);
    std::vector<int32_t> y;
    for (int64_t head = 0; head < p.numHeads; ++head) {
      const std::vector<int32_t> xh(x.begin() + head * p.headDim,
                                    x.begin() + (head + 1) * p.headDim);
      const std::vector<int32_t> yh =
          num::rope(xh, s.position, tables[s.table], s.multiplier, unsigned(p.outBits));
      y.insert(y.end(), yh.begin(), yh.end());
    }
    for (const Bits &t : toTokens(y, p.lanes, p.outBits))
      board.expect(t);
    for (int32_t v : y) {
      saturated += v == outMax || v == outMin;
      ++outputs;
    }
    ++vectorsDone;
  };

  // ---- 1. exact timing under ideal sources ----------------------------------------------------
  const int timedVectors = 3;
  for (int i = 0; i < timedVectors; ++i)
    enqueue();
  h.runUntil([&] { return board.empty(); }, 100000);
  const size_t inPer = size_t(timing.inputTokens[0]), outPer = size_t(timing.outputTokens);
  if (inLog.cycles.size() != inPer * timedVectors || outLog.cycles.size() != outPer * timedVectors)
    h.fail("token counts differ from the model's (in " + std::to_string(inLog.cycles.size()) +
           ", out " + std::to_string(outLog.cycles.size()) + ")");
  for (int i = 0; i < timedVectors; ++i) {
    const int64_t start = int64_t(inLog.cycles[i * inPer]);
    if (i > 0 && start != int64_t(inLog.cycles[i * inPer - 1]) + 1)
      h.fail("vector " + std::to_string(i) + " did not follow the previous one back to back");
    auto y = [&](size_t k) { return int64_t(outLog.cycles[i * outPer + k]) - start; };
    const int64_t d = y(0), l = y(outPer - 1);
    std::printf("vector %d: D %lld (model %lld)  L %lld (model %lld)  II 1 (model %lld)\n", i,
                (long long)d, (long long)timing.firstOutputDelay, (long long)l,
                (long long)timing.totalLatency, (long long)timing.ii);
    if (d != timing.firstOutputDelay || l != timing.totalLatency)
      h.fail("measured D/L differ from ropeTiming");
    for (size_t k = 1; k < outPer; ++k)
      if (y(k) - y(k - 1) != timing.ii)
        h.fail("output " + std::to_string(k) + " of vector " + std::to_string(i) + " came " +
               std::to_string(y(k) - y(k - 1)) + " cycles after the previous one");
    for (size_t k = 0; k < outPer; ++k) {
      const int64_t needed = timing.inputTokensNeeded[0](int64_t(k));
      if (needed > int64_t(inPer) ||
          inLog.cycles[i * inPer + size_t(needed) - 1] >= outLog.cycles[i * outPer + k])
        h.fail("output " + std::to_string(k) + " before input token " + std::to_string(needed - 1) +
               " (inputTokensNeeded)");
    }
  }

  // ---- 2. random vectors under random backpressure --------------------------------------------
  const TrafficPhase phases[] = {{"free flow", 1.0, 1.0},
                                 {"slow consumer", 1.0, 0.15},
                                 {"slow producer", 0.3, 1.0},
                                 {"random", 0.6, 0.5}};
  const uint64_t vectors = options.tokens;
  for (size_t ph = 0; ph < 4; ++ph) {
    driver.setValidProbability(phases[ph].inValid);
    sink.setReadyProbability(phases[ph].outReady);
    const uint64_t n = vectors / 4 + (ph == 3 ? vectors % 4 : 0);
    for (uint64_t i = 0; i < n; ++i)
      enqueue();
    h.runUntil([&] { return board.empty(); }, n * inPer * 40 + 10000);
    std::printf("phase '%s': %llu vectors checked, cycle %llu\n", phases[ph].name,
                (unsigned long long)n, (unsigned long long)h.cycle());
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu of %llu output codes saturated\n", (unsigned long long)saturated,
              (unsigned long long)outputs);
  std::printf("%llu vectors (%llu output tokens) bit-exact against numerics::rope, %llu cycles\n",
              (unsigned long long)vectorsDone, (unsigned long long)board.matched(),
              (unsigned long long)h.cycle());
}

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_ESTIMATE(cfg, Model, params)                                                            \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::ropeResources(paramsOf(params)));
    ST_CONFIGS(ST_ESTIMATE)
    std::fprintf(stderr, "unknown --config '%s'\n", argv[2]);
    return 2;
  }
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
