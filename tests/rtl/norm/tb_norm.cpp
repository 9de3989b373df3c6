// Verilator test of st_norm (LayerNorm / RMSNorm / Gemma RMSNorm). Per configuration:
//  1. timing: one vector with ideal streams; the measured D, II, L, token counts and the tokens
//     consumed before each output equal compiler/model/norm_model.h exactly; then vectors back
//     to back, whose start cycles equal normVectorStartCycle();
//  2. data: --tokens random vectors (>= 1,000; zero-variance, saturating, spiky, tiny, large-eps
//     and quantizeNorm-made ones among them, each with its own gamma/beta/epsilon/multiplier)
//     under phases of random backpressure on all three streams, every output bit-exact against
//     st::numerics::normalize.
// With --compare-synth <report.json> it instead prints the model's ResourceEstimate beside the
// Yosys counts of synth.norm.<config> with the ratio, and fails when a ratio is off by > 2x.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config_dispatch.h"
#include "model/norm_model.h"
#include "norm_configs.h"
#include "numerics/golden_ops.h"
#include "numerics/quantization.h"
#include "scoreboard.h"
#include "sideband_ports.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "synth_compare.h"
#include "watchdog.h"

using namespace st::tb;
namespace num = st::numerics;

namespace {

/// One test vector: the input codes and the norm descriptor (gamma, beta, epsilon, multiplier).
struct NormCase {
  std::vector<int32_t> x;
  num::QuantizedNorm norm;
};

/// Records the cycles of the handshakes of one stream.
class HandshakeRecorder : public Component {
public:
  explicit HandshakeRecorder(StreamPins pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    if (pins_.valid.readBool() && pins_.ready.readBool())
      cycles_.push_back(cycle);
  }
  const std::vector<uint64_t> &cycles() const { return cycles_; }
  void clear() { cycles_.clear(); }

private:
  StreamPins pins_;
  std::vector<uint64_t> cycles_;
};

/// Drives the per-vector scalars (epsilon, multiplier) of the vector whose first token the
/// kernel may accept this cycle: vector = (data tokens accepted so far) / tokens per vector.
class VectorScalarDriver : public Component {
public:
  VectorScalarDriver(StreamPins dataIn, SidebandPorts ports, uint64_t tokensPerVector)
      : dataIn_(std::move(dataIn)), ports_(std::move(ports)), tokensPerVector_(tokensPerVector) {}
  void add(const num::QuantizedNorm &norm) { norms_.push_back(norm); }
  void drive(uint64_t) override {
    const uint64_t vector = accepted_ / tokensPerVector_;
    if (vector < norms_.size())
      ports_.write(st::plan::normSidebands(norms_[vector])); // the LLM top's mapping
    else
      ports_.fill(0x5a5a5a5a5a5aull); // garbage: must not be sampled
  }
  void sample(uint64_t) override {
    if (dataIn_.valid.readBool() && dataIn_.ready.readBool())
      ++accepted_;
  }

private:
  StreamPins dataIn_;
  SidebandPorts ports_;
  uint64_t tokensPerVector_;
  std::vector<num::QuantizedNorm> norms_;
  uint64_t accepted_ = 0;
};

int32_t uniformInt(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return static_cast<int32_t>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
}

/// A random vector of one of eight kinds, cycling so that every kind is well represented.
NormCase makeCase(const st::model::NormParams &p, bool gemma, uint64_t index,
                  std::mt19937_64 &rng) {
  const size_t n = static_cast<size_t>(p.n);
  const int64_t betaMax = (int64_t(1) << (p.outBits + 7)) - 1;
  NormCase c;
  num::QuantizedNorm &norm = c.norm;
  norm.kind = p.layerNorm ? num::NormKind::LayerNorm : num::NormKind::RmsNorm;
  norm.size = n;
  norm.outputBits = p.outBits;
  c.x.resize(n);
  const unsigned kind = index % 8;
  if (kind == 5) {
    // Realistic: float weights through quantizeNorm (Gemma: w around 0, folded as 1 + w).
    std::normal_distribution<double> unit(0.0, 1.0);
    const double inputScale = std::ldexp(1.0, -uniformInt(rng, 6, 12));
    const double outputScale = std::ldexp(1.0, -uniformInt(rng, 1, 5)) / (1 << (p.outBits - 8));
    const double mean = p.layerNorm ? 2.0 * unit(rng) : 0.0;
    for (auto &v : c.x)
      v = static_cast<int32_t>(
          num::saturateSigned(std::lround((mean + unit(rng)) / inputScale), p.inBits));
    std::vector<float> gamma(n), beta;
    for (auto &g : gamma)
      g = static_cast<float>(gemma ? 0.3 * unit(rng) : 1.0 + 0.2 * unit(rng));
    if (p.layerNorm)
      for (size_t i = 0; i < n; ++i)
        beta.push_back(static_cast<float>(0.5 * unit(rng)));
    return {c.x, num::quantizeNorm(norm.kind, gamma, beta, 1e-5, inputScale, outputScale, p.outBits,
                                   gemma)};
  }
  const int64_t inMax = (int64_t(1) << (p.inBits - 1)) - 1, inMin = -inMax - 1;
  switch (kind) {
  case 0: // uniform over the whole code range
    for (auto &v : c.x)
      v = uniformInt(rng, inMin, inMax);
    break;
  case 1: { // zero variance: all equal (all zero for every other RMSNorm case)
    const int32_t value = (!p.layerNorm && index % 16 == 1) ? 0 : uniformInt(rng, inMin, inMax);
    for (auto &v : c.x)
      v = value;
    break;
  }
  case 2: // extremes only
    for (auto &v : c.x)
      v = static_cast<int32_t>((rng() & 1) ? inMax : inMin);
    break;
  case 3: { // small spread around a large mean
    const int32_t mean = uniformInt(rng, inMin / 2, inMax / 2);
    const int32_t spread = uniformInt(rng, 1, 200);
    for (auto &v : c.x)
      v = mean + uniformInt(rng, -spread, spread);
    break;
  }
  case 4: // one spike in zeros
    for (auto &v : c.x)
      v = 0;
    c.x[rng() % n] = static_cast<int32_t>((rng() & 1) ? inMax : inMin);
    break;
  case 6: // tiny values: D near 1, small k
    for (auto &v : c.x)
      v = uniformInt(rng, -1, 1);
    break;
  default: // 7: uniform with a moderate spread
    for (auto &v : c.x)
      v = uniformInt(rng, -3000, 3000);
    break;
  }
  // gamma over the full int16 range (extremes included), beta over its full range.
  const bool extremeWeights = kind == 2 || rng() % 8 == 0;
  for (size_t i = 0; i < n; ++i) {
    norm.gamma.push_back(extremeWeights ? ((rng() & 1) ? 32767 : -32768)
                                        : uniformInt(rng, -32768, 32767));
    if (p.layerNorm)
      norm.beta.push_back(extremeWeights ? ((rng() & 1) ? int32_t(betaMax) : int32_t(-betaMax - 1))
                                         : uniformInt(rng, -betaMax - 1, betaMax));
  }
  // epsilon: zero, small or up to the port's 48 bits.
  const unsigned epsKind = rng() % 4;
  norm.epsilonTerm = epsKind == 0   ? 0
                     : epsKind == 1 ? uniformInt(rng, 1, 1000)
                     : epsKind == 2 ? static_cast<int64_t>(rng() % (uint64_t(1) << 32))
                                    : static_cast<int64_t>(rng() % (uint64_t(1) << 48));
  // Multiplier: shift near the value that puts typical outputs in range (so rounding is
  // exercised), sometimes anywhere in 0..63 (saturation, all-zero outputs).
  const int center = 38 - static_cast<int>(p.outBits - 1) -
                     (p.layerNorm ? 0 : static_cast<int>(std::log2(double(p.n)) / 2));
  norm.outputMultiplier.mantissa = (rng() % 16 == 0)
                                       ? static_cast<uint32_t>(rng() % (1u << 24))
                                       : (1u << 23) + static_cast<uint32_t>(rng() % (1u << 23));
  norm.outputMultiplier.shift = static_cast<uint8_t>(
      (kind == 2 || rng() % 8 == 0) ? rng() % 64 : std::max(0, center + uniformInt(rng, -4, 6)));
  return c;
}

/// The tokens of a vector of `lanes` elements of `bits` bits each, element 0 in token 0.
std::vector<Bits> packTokens(const std::vector<int64_t> &elements, unsigned lanes, unsigned bits) {
  std::vector<Bits> tokens;
  for (size_t t = 0; t < elements.size() / lanes; ++t) {
    Bits token(lanes * bits);
    for (unsigned l = 0; l < lanes; ++l)
      token.setSliceU64(l * bits, bits, static_cast<uint64_t>(elements[t * lanes + l]));
    tokens.push_back(token);
  }
  return tokens;
}

void expectEqual(const char *what, int64_t measured, int64_t model) {
  std::printf("  %-34s measured %6lld  model %6lld\n", what, static_cast<long long>(measured),
              static_cast<long long>(model));
  if (measured != model)
    throw TestFailure(std::string("timing: ") + what + " measured " + std::to_string(measured) +
                      ", model " + std::to_string(model));
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  st::model::NormParams p;
  p.layerNorm = params["LayerNorm"] != 0;
  p.n = params["N"];
  p.lanes = params["Lanes"];
  p.inBits = static_cast<unsigned>(params.get("InBits", 16));
  p.outBits = static_cast<unsigned>(params.get("OutBits", 8));
  const bool gemma = options.config == "gemma";
  const unsigned lanes = static_cast<unsigned>(p.lanes);
  const uint64_t tokensPerVector = static_cast<uint64_t>(st::model::normTokens(p));
  const unsigned paramBits = 16 + (p.layerNorm ? p.outBits + 8 : 0);
  std::printf("st_norm %s (%s), %llu tokens per vector\n", params.toString().c_str(),
              gemma         ? "Gemma RMSNorm, gamma = 1 + w"
              : p.layerNorm ? "LayerNorm"
                            : "RMSNorm",
              static_cast<unsigned long long>(tokensPerVector));

  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1),
                SignalRef(m.data_i, lanes * p.inBits)};
  StreamPins param{SignalRef(m.param_valid_i, 1), SignalRef(m.param_ready_o, 1),
                   SignalRef(m.param_data_i, lanes * paramBits)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                 SignalRef(m.data_o, lanes * p.outBits)};
  const uint64_t seed = options.seed;
  StreamDriver dataDriver("data", in, seed * 3 + 1);
  StreamDriver paramDriver("param", param, seed * 7 + 3);
  VectorScalarDriver scalars(in,
                             SidebandPorts({{"epsilon_i", SignalRef(m.epsilon_i, 48)},
                                            {"mult_mantissa_i", SignalRef(m.mult_mantissa_i, 24)},
                                            {"mult_shift_i", SignalRef(m.mult_shift_i, 6)}}),
                             tokensPerVector);
  StreamSink sink("out", out, seed * 5 + 2);
  Scoreboard board("out");
  Watchdog watchdog(options.watchdogCycles);
  HandshakeRecorder inLog(in), paramLog(param), outLog(out);
  watchdog.watch(sink.checker());
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c :
       std::initializer_list<Component *>{&dataDriver, &paramDriver, &scalars, &sink, &board,
                                          &watchdog, &inLog, &paramLog, &outLog})
    h.add(*c);
  h.reset();

  std::mt19937_64 rng(seed);
  uint64_t vectorsQueued = 0, zeroVariance = 0, saturated = 0, outputs = 0;
  const int32_t outMax = (1 << (p.outBits - 1)) - 1;
  auto queueVector = [&](const NormCase &c) {
    const std::vector<int32_t> y = num::normalize(c.x, c.norm);
    if (std::all_of(c.x.begin(), c.x.end(), [&](int32_t v) { return v == c.x[0]; }))
      ++zeroVariance;
    for (int32_t v : y)
      saturated += v == outMax || v == -outMax - 1;
    outputs += y.size();
    std::vector<int64_t> x(c.x.begin(), c.x.end()), yy(y.begin(), y.end()), packed;
    for (size_t i = 0; i < c.x.size(); ++i) {
      const uint64_t gamma = static_cast<uint16_t>(c.norm.gamma[i]);
      const uint64_t beta = p.layerNorm ? static_cast<uint64_t>(c.norm.beta[i]) &
                                              ((uint64_t(1) << (p.outBits + 8)) - 1)
                                        : 0;
      packed.push_back(static_cast<int64_t>(gamma | (beta << 16)));
    }
    for (const Bits &t : packTokens(x, lanes, p.inBits))
      dataDriver.push(t);
    for (const Bits &t : packTokens(packed, lanes, paramBits))
      paramDriver.push(t);
    for (const Bits &t : packTokens(yy, lanes, p.outBits))
      board.expect(t);
    scalars.add(c.norm);
    ++vectorsQueued;
  };
  auto drain = [&](uint64_t limit) {
    h.runUntil([&] { return board.empty() && dataDriver.idle() && paramDriver.idle(); }, limit);
    for (int i = 0; i < 8; ++i)
      h.step();
  };

  // ---- 1. timing of one invocation with ideal streams ----------------------------------------
  const st::model::KernelTiming timing = st::model::normTiming(p);
  inLog.clear();
  paramLog.clear();
  outLog.clear();
  queueVector(makeCase(p, gemma, 0, rng));
  drain(10000);
  const int64_t start = static_cast<int64_t>(inLog.cycles().front());
  auto rel = [&](uint64_t cycle) { return static_cast<int64_t>(cycle) - start; };
  std::printf("timing of one vector (cycle 0 = first input handshake):\n");
  expectEqual("output tokens", static_cast<int64_t>(outLog.cycles().size()), timing.outputTokens);
  expectEqual("data tokens", static_cast<int64_t>(inLog.cycles().size()), timing.inputTokens[0]);
  expectEqual("param tokens", static_cast<int64_t>(paramLog.cycles().size()),
              timing.inputTokens[1]);
  expectEqual("D (first output)", rel(outLog.cycles().front()), timing.firstOutputDelay);
  expectEqual("L (last output)", rel(outLog.cycles().back()), timing.totalLatency);
  int64_t maxGap = 0;
  for (size_t k = 1; k < outLog.cycles().size(); ++k)
    maxGap = std::max<int64_t>(maxGap, outLog.cycles()[k] - outLog.cycles()[k - 1]);
  expectEqual("II (largest output gap)", maxGap, timing.ii);
  // Tokens consumed (handshakes completed before the output's cycle, or in it) per output.
  for (size_t k = 0; k < outLog.cycles().size(); ++k) {
    const uint64_t at = outLog.cycles()[k];
    const std::vector<uint64_t> *logs[2] = {&inLog.cycles(), &paramLog.cycles()};
    for (size_t port = 0; port < 2; ++port) {
      const int64_t consumed = std::count_if(logs[port]->begin(), logs[port]->end(),
                                             [&](uint64_t c) { return c <= at; });
      const int64_t needed = timing.inputTokensNeeded[port](static_cast<int64_t>(k));
      if (consumed < needed)
        throw TestFailure("output " + std::to_string(k) + " left with " + std::to_string(consumed) +
                          " tokens of input " + std::to_string(port) + ", model needs " +
                          std::to_string(needed));
    }
  }
  std::printf("  inputTokensNeeded holds at every output token\n");

  // Back to back: the start cycle of every vector.
  const int backToBack = 6;
  inLog.clear();
  for (int j = 0; j < backToBack; ++j)
    queueVector(makeCase(p, gemma, static_cast<uint64_t>(j + 1), rng));
  drain(20000);
  const int64_t first = static_cast<int64_t>(inLog.cycles().front());
  for (int j = 0; j < backToBack; ++j) {
    const std::string what = "vector " + std::to_string(j) + " start";
    expectEqual(what.c_str(), static_cast<int64_t>(inLog.cycles()[j * tokensPerVector]) - first,
                st::model::normVectorStartCycle(p, j));
  }

  // ---- 2. random vectors under backpressure --------------------------------------------------
  struct Phase {
    double dataValid, paramValid, outReady;
  };
  const Phase phases[] = {{1.0, 1.0, 1.0}, {1.0, 1.0, 0.2}, {0.2, 1.0, 1.0},
                          {1.0, 0.3, 1.0}, {0.6, 0.6, 0.6}, {0.9, 0.5, 0.4}};
  const uint64_t vectors = std::max<uint64_t>(options.tokens, 1000);
  const size_t nPhases = std::size(phases);
  uint64_t index = backToBack + 1;
  for (size_t ph = 0; ph < nPhases; ++ph) {
    dataDriver.setValidProbability(phases[ph].dataValid);
    paramDriver.setValidProbability(phases[ph].paramValid);
    sink.setReadyProbability(phases[ph].outReady);
    const uint64_t count = vectors / nPhases + (ph == nPhases - 1 ? vectors % nPhases : 0);
    for (uint64_t v = 0; v < count; ++v)
      queueVector(makeCase(p, gemma, index++, rng));
    drain(count * tokensPerVector * 40 + 10000);
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu vectors (%llu tokens) bit-exact against normalize() in %llu cycles\n",
              static_cast<unsigned long long>(vectorsQueued),
              static_cast<unsigned long long>(board.matched()),
              static_cast<unsigned long long>(h.cycle()));
  std::printf("  %llu zero-variance vectors; %llu of %llu outputs saturated\n",
              static_cast<unsigned long long>(zeroVariance),
              static_cast<unsigned long long>(saturated), static_cast<unsigned long long>(outputs));
}

/// Prints the model's resource estimate beside a Yosys report (tb/synth_compare.h); fails on a
/// ratio outside 0.5..2.
int compareSynth(const std::string &config, const std::string &reportPath) {
  st::model::NormParams p;
#define ST_PARAMS_OF(cfg, Model, params)                                                           \
  if (config == #cfg) {                                                                            \
    const ::st::tb::Params values params;                                                          \
    p.layerNorm = values["LayerNorm"] != 0;                                                        \
    p.n = values["N"];                                                                             \
    p.lanes = values["Lanes"];                                                                     \
    p.inBits = static_cast<unsigned>(values.get("InBits", 16));                                    \
    p.outBits = static_cast<unsigned>(values.get("OutBits", 8));                                   \
  }
  ST_CONFIGS(ST_PARAMS_OF)
  return compareSynthWithEstimate(reportPath, st::model::normResources(p), 2.0);
}

} // namespace

int main(int argc, char **argv) {
  // --compare-synth REPORT (with --config NAME) is handled here, not by the simulation.
  std::string config, report;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--compare-synth"))
      report = argv[i + 1];
    if (!std::strcmp(argv[i], "--config"))
      config = argv[i + 1];
  }
  if (!report.empty())
    return compareSynth(config, report);
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
