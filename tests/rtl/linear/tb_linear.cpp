// Verilator test of st_linear (quantized GEMV, decode batch 1):
//  1. timing: with ideal sources and no backpressure, three back-to-back invocations each show
//     exactly the first-output delay D, the II and the total latency L of
//     st::model::linearTiming, and every output k comes after the x and weight tokens
//     inputTokensNeeded says it needs;
//  2. bit-exactness: --tokens random x vectors (default 1200; a fresh random layer every 8
//     vectors, with random bias, group mantissas and output multipliers; one layer in 8 at the
//     code extremes so that outputs saturate, one in 8 with tiny codes so that small shifts and
//     shift 0 occur) under four traffic phases of random backpressure on all three streams,
//     every output token compared with st::numerics::linear.
// The weight stream comes from model/weight_stream (the layout of docs/weight-stream.md).
#include "config_dispatch.h"
#include "harness.h"
#include "linear_configs.h"
#include "model/linear_model.h"
#include "model/weight_stream.h"
#include "numerics/golden_ops.h"
#include "numerics/quantization.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "watchdog.h"

#include <algorithm>
#include <cstdio>
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

model::LinearParams paramsOf(const Params &params) {
  model::LinearParams p;
  p.k = params["K"];
  p.nOut = params["NOut"];
  p.rows = params["Rows"];
  p.kLanes = params["KLanes"];
  p.lanes = params["Lanes"];
  p.weightBits = params["WBits"];
  p.activationBits = params["ABits"];
  p.groupSize = params["GroupSize"];
  p.outputBits = params["OutBits"];
  p.wordBits = params["WordBits"];
  return p;
}

enum class LayerKind { Random, Extreme, Tiny };

int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// A random layer in hardware form (the golden reads only its integer fields).
num::QuantizedLinear randomLayer(const model::LinearParams &p, LayerKind kind,
                                 std::mt19937_64 &rng) {
  num::QuantizedLinear layer;
  layer.rows = size_t(p.nOut);
  layer.cols = size_t(p.k);
  layer.weightBits = unsigned(p.weightBits);
  layer.groupSize = size_t(p.groupSize == 0 ? p.k : p.groupSize);
  layer.activationBits = unsigned(p.activationBits);
  layer.outputBits = unsigned(p.outputBits);
  const int64_t wMin = num::minSigned(layer.weightBits), wMax = num::maxSigned(layer.weightBits);
  std::vector<int32_t> codes(size_t(p.nOut * p.k));
  const int extremeSign = int(uniform(rng, 0, 2)); // 0: all +, 1: all -, 2: random signs
  for (auto &c : codes) {
    if (kind == LayerKind::Random)
      c = int32_t(uniform(rng, wMin, wMax));
    else if (kind == LayerKind::Tiny)
      c = int32_t(uniform(rng, -1, 1));
    else {
      const bool negative = extremeSign == 1 || (extremeSign == 2 && uniform(rng, 0, 1));
      // -2^(b-1) as well as the symmetric -(2^(b-1)-1): the datapath accepts both.
      c = int32_t(negative ? (uniform(rng, 0, 3) == 0 ? wMin : -wMax) : wMax);
    }
  }
  if (layer.weightBits == 4)
    layer.packedWeights = num::packInt4(codes);
  else
    for (int32_t c : codes)
      layer.packedWeights.push_back(uint8_t(c & 0xff));
  const size_t groups = layer.groupsPerRow();
  for (size_t i = 0; i < layer.rows * groups; ++i)
    layer.groupScales.push_back(p.groupSize == 0 ? 1
                                : kind == LayerKind::Extreme
                                    ? uint16_t(uniform(rng, 0, 1) ? 0xffff : 0x8000)
                                : kind == LayerKind::Tiny ? uint16_t(uniform(rng, 0, 3))
                                                          : uint16_t(uniform(rng, 0, 0xffff)));
  // Bias in about half the layers, magnitudes spread over the whole s48 range.
  if (uniform(rng, 0, 1)) {
    for (size_t r = 0; r < layer.rows; ++r) {
      const int bits = int(uniform(rng, 0, 47));
      int64_t b = uniform(rng, -(int64_t(1) << bits), (int64_t(1) << bits) - 1);
      if (kind == LayerKind::Extreme && r % 3 == 0)
        b = r % 2 ? (int64_t(1) << 47) - 1 : -(int64_t(1) << 47);
      if (kind == LayerKind::Tiny)
        b = uniform(rng, -4, 4);
      layer.bias.push_back(b);
    }
  }
  layer.outputScales.assign(layer.rows, num::FixedScale{});
  return layer;
}

/// Output multipliers: per row a normalized mantissa and a shift that puts a typical
/// accumulator near the top of the output range (some saturate, most do not), never below the
/// shift that keeps round(A * M) inside 64 bits. Extreme layers get small shifts: they saturate.
/// Tiny layers give every fourth row a small unnormalized mantissa and a shift of 0..3.
void chooseOutputScales(num::QuantizedLinear &layer, const std::vector<int32_t> &x, LayerKind kind,
                        std::mt19937_64 &rng) {
  const std::vector<int64_t> acc = num::linearAccumulators(x, layer);
  for (size_t r = 0; r < layer.rows; ++r) {
    num::FixedScale s;
    s.mantissa = uint32_t(uniform(rng, 1 << 23, (1 << 24) - 1));
    const int accBits =
        acc[r] == 0 ? 0 : int(num::leadingOnePosition(uint64_t(std::llabs(acc[r])))) + 1;
    int shift = 24 + accBits - int(layer.outputBits) + int(uniform(rng, -1, 5));
    if (kind == LayerKind::Extreme)
      shift = int(uniform(rng, 12, 24));
    if (kind == LayerKind::Tiny && r % 4 == 0) {
      // Small (denormal) multipliers with shifts 0..3: the path without a rounding constant.
      s.mantissa = uint32_t(uniform(rng, 0, 300));
      shift = int(uniform(rng, 0, 3));
    }
    // |A| < 2^50 in every configuration here, so A * mantissa < 2^74: shift >= 12 stays in 64 bits.
    const int minShift = kind == LayerKind::Tiny ? 0 : 12;
    s.shift = uint8_t(std::clamp(shift, minShift, 63));
    layer.outputScales[r] = s;
  }
}

std::vector<int32_t> randomInput(const model::LinearParams &p, LayerKind kind,
                                 std::mt19937_64 &rng) {
  const int64_t aMin = num::minSigned(unsigned(p.activationBits));
  const int64_t aMax = num::maxSigned(unsigned(p.activationBits));
  std::vector<int32_t> x(size_t(p.k));
  const int extremeSign = int(uniform(rng, 0, 2));
  for (auto &v : x) {
    if (kind == LayerKind::Random)
      v = int32_t(uniform(rng, aMin, aMax));
    else if (kind == LayerKind::Tiny)
      v = int32_t(uniform(rng, -1, 1));
    else {
      const bool negative = extremeSign == 1 || (extremeSign == 2 && uniform(rng, 0, 1));
      v = int32_t(negative ? (uniform(rng, 0, 3) == 0 ? aMin : -aMax) : aMax);
    }
  }
  return x;
}

/// The x stream of one invocation: K/Lanes tokens of Lanes codes, element 0 in the low bits.
std::vector<Bits> xTokens(const model::LinearParams &p, const std::vector<int32_t> &x) {
  std::vector<Bits> tokens;
  const unsigned ab = unsigned(p.activationBits);
  for (int64_t t = 0; t < p.k / p.lanes; ++t) {
    Bits token(unsigned(p.lanes) * ab);
    for (int64_t i = 0; i < p.lanes; ++i)
      token.setSliceU64(unsigned(i) * ab, ab, uint64_t(int64_t(x[size_t(t * p.lanes + i)])));
    tokens.push_back(token);
  }
  return tokens;
}

/// The weight stream of one invocation (docs/weight-stream.md), built by the one implementation
/// of its layout, model::linearWeightStreamWords.
std::vector<Bits> weightWords(const model::LinearParams &p, const num::QuantizedLinear &layer) {
  std::vector<Bits> words;
  for (const num::StreamWord &w : model::linearWeightStreamWords(layer, p))
    words.push_back(Bits::fromWords(unsigned(p.wordBits), w.data()));
  return words;
}

/// The expected output stream: per block one token of Rows codes.
std::vector<Bits> outputTokens(const model::LinearParams &p, const std::vector<int32_t> &y) {
  std::vector<Bits> tokens;
  const unsigned ob = unsigned(p.outputBits);
  for (int64_t b = 0; b < p.nOut / p.rows; ++b) {
    Bits token(unsigned(p.rows) * ob);
    for (int64_t r = 0; r < p.rows; ++r)
      token.setSliceU64(unsigned(r) * ob, ob, uint64_t(int64_t(y[size_t(b * p.rows + r)])));
    tokens.push_back(token);
  }
  return tokens;
}

struct TrafficPhase {
  const char *name;
  double xValid, wValid, outReady;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const model::LinearParams p = paramsOf(params);
  const model::KernelTiming timing = model::linearTiming(p);
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  StreamPins xPins{SignalRef(m.x_valid_i, 1), SignalRef(m.x_ready_o, 1),
                   SignalRef(m.x_data_i, unsigned(p.lanes * p.activationBits))};
  StreamPins wPins{SignalRef(m.w_valid_i, 1), SignalRef(m.w_ready_o, 1),
                   SignalRef(m.w_data_i, unsigned(p.wordBits))};
  StreamPins yPins{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                   SignalRef(m.data_o, unsigned(p.rows * p.outputBits))};
  const uint64_t seed = options.seed;
  StreamDriver xDriver("x", xPins, seed * 3 + 1);
  StreamDriver wDriver("w", wPins, seed * 7 + 2);
  StreamSink sink("y", yPins, seed * 5 + 3);
  Scoreboard board("y");
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch(sink.checker());
  watchdog.watch("x", xPins);
  watchdog.watch("w", wPins);
  HandshakeLog xLog(xPins), wLog(wPins), yLog(yPins);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c : std::initializer_list<Component *>{&xDriver, &wDriver, &sink, &board,
                                                         &watchdog, &xLog, &wLog, &yLog})
    h.add(*c);
  h.reset();
  std::mt19937_64 rng(seed);

  num::QuantizedLinear layer;
  LayerKind kind = LayerKind::Random;
  uint64_t vectorsDone = 0;
  uint64_t saturatedHigh = 0, saturatedLow = 0, inRange = 0, shiftZeroRows = 0;
  const int64_t outMax = num::maxSigned(unsigned(p.outputBits));
  const int64_t outMin = num::minSigned(unsigned(p.outputBits));
  // Queues one invocation: a fresh layer every 8 vectors, the golden output as expectation.
  auto enqueue = [&]() {
    if (vectorsDone % 8 == 0) {
      const uint64_t layerIndex = vectorsDone / 8;
      kind = layerIndex % 8 == 3   ? LayerKind::Extreme
             : layerIndex % 8 == 6 ? LayerKind::Tiny
                                   : LayerKind::Random;
      layer = randomLayer(p, kind, rng);
      chooseOutputScales(layer, randomInput(p, kind, rng), kind, rng);
    }
    const std::vector<int32_t> x = randomInput(p, kind, rng);
    for (const Bits &t : xTokens(p, x))
      xDriver.push(t);
    for (const Bits &w : weightWords(p, layer))
      wDriver.push(w);
    const std::vector<int32_t> y = num::linear(x, layer);
    for (const Bits &token : outputTokens(p, y))
      board.expect(token);
    for (size_t r = 0; r < y.size(); ++r) {
      saturatedHigh += y[r] == outMax;
      saturatedLow += y[r] == outMin;
      inRange += y[r] != outMax && y[r] != outMin;
      shiftZeroRows += layer.outputScales[r].shift == 0;
    }
    ++vectorsDone;
  };

  // ---- 1. exact timing under ideal sources ----------------------------------------------------
  const int timedInvocations = 3;
  for (int i = 0; i < timedInvocations; ++i)
    enqueue();
  h.runUntil([&] { return board.empty(); }, 100000);
  const size_t xPer = size_t(timing.inputTokens[model::kLinearInputX]);
  const size_t wPer = size_t(timing.inputTokens[model::kLinearInputWeights]);
  const size_t yPer = size_t(timing.outputTokens);
  if (xLog.cycles.size() != xPer * timedInvocations ||
      wLog.cycles.size() != wPer * timedInvocations ||
      yLog.cycles.size() != yPer * timedInvocations)
    h.fail("token counts differ from the model's (x " + std::to_string(xLog.cycles.size()) +
           ", w " + std::to_string(wLog.cycles.size()) + ", y " +
           std::to_string(yLog.cycles.size()) + ")");
  for (int i = 0; i < timedInvocations; ++i) {
    const int64_t start = int64_t(xLog.cycles[i * xPer]); // first input handshake: x
    if (wLog.cycles[i * wPer] < uint64_t(start))
      h.fail("a weight word was taken before the invocation's first x token");
    auto y = [&](size_t k) { return int64_t(yLog.cycles[i * yPer + k]) - start; };
    const int64_t d = y(0), l = y(yPer - 1);
    std::printf("invocation %d: D %lld (model %lld)  L %lld (model %lld)", i, (long long)d,
                (long long)timing.firstOutputDelay, (long long)l, (long long)timing.totalLatency);
    if (d != timing.firstOutputDelay || l != timing.totalLatency)
      h.fail("measured D/L differ from linearTiming");
    for (size_t k = 1; k < yPer; ++k)
      if (y(k) - y(k - 1) != timing.ii)
        h.fail("output " + std::to_string(k) + " of invocation " + std::to_string(i) + " came " +
               std::to_string(y(k) - y(k - 1)) + " cycles after the previous one; " + "model II " +
               std::to_string(timing.ii));
    std::printf("  II %lld (model %lld)\n", (long long)(yPer > 1 ? y(1) - y(0) : timing.ii),
                (long long)timing.ii);
    // inputTokensNeeded: output k comes after the needed tokens of each input were taken.
    for (size_t k = 0; k < yPer; ++k) {
      const uint64_t at = yLog.cycles[i * yPer + k];
      const std::vector<HandshakeLog *> logs{&xLog, &wLog};
      const size_t per[] = {xPer, wPer};
      for (size_t port = 0; port < 2; ++port) {
        const int64_t needed = timing.inputTokensNeeded[port](int64_t(k));
        if (needed > int64_t(per[port]) ||
            logs[port]->cycles[i * per[port] + size_t(needed) - 1] >= at)
          h.fail("output " + std::to_string(k) + " before input " + std::to_string(port) +
                 " token " + std::to_string(needed - 1) + " (inputTokensNeeded)");
      }
    }
  }

  // ---- 2. random vectors under random backpressure --------------------------------------------
  const TrafficPhase phases[] = {{"free flow", 1.0, 1.0, 1.0},
                                 {"slow consumer", 1.0, 1.0, 0.15},
                                 {"slow producers", 0.3, 0.5, 1.0},
                                 {"random", 0.7, 0.6, 0.5}};
  const uint64_t vectors = options.tokens;
  for (size_t ph = 0; ph < 4; ++ph) {
    xDriver.setValidProbability(phases[ph].xValid);
    wDriver.setValidProbability(phases[ph].wValid);
    sink.setReadyProbability(phases[ph].outReady);
    const uint64_t n = vectors / 4 + (ph == 3 ? vectors % 4 : 0);
    for (uint64_t i = 0; i < n; ++i)
      enqueue();
    h.runUntil([&] { return board.empty(); }, n * uint64_t(wPer + xPer) * 40 + 10000);
    std::printf("phase '%s': %llu vectors checked, cycle %llu\n", phases[ph].name,
                (unsigned long long)n, (unsigned long long)h.cycle());
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("outputs: %llu saturated high, %llu saturated low, %llu in range; %llu rows with "
              "shift 0\n",
              (unsigned long long)saturatedHigh, (unsigned long long)saturatedLow,
              (unsigned long long)inRange, (unsigned long long)shiftZeroRows);
  std::printf("%llu vectors (%llu output tokens) bit-exact against numerics::linear, %llu "
              "cycles\n",
              (unsigned long long)vectorsDone, (unsigned long long)board.matched(),
              (unsigned long long)h.cycle());
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
