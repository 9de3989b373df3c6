// Verilator test of st_layout_converter: for each producer/consumer itensor pair, the compiler's
// program (compiler/ir/converter_program.h) is written to the instance's $readmemh files and a
// fresh model is built on them, so one Verilated model runs many pairs. Per pair: one tensor
// with ideal streams, asserting the cycle of every output handshake against
// compiler/model/converter_model.h; then three tensors under random valid/ready gaps. Every
// output token must carry exactly the consumer's elements in the consumer's order (random
// element values, fresh per tensor), and the streams obey the valid/ready rules.
// Configs (tests/rtl/layout_converter/CMakeLists.txt):
//   b_to_c:  docs/itensor.md's b -> c over 8x8xf32, instance sized exactly to it.
//   random:  --tokens N random pairs over small tensors (tests/unit/ir/random_itensor.h), i16.
//   scalar:  one element per token (the RAM storage rule): 8x8 and 4x16 transposes, a 3-d
//            permutation and random scalar pairs, i16.
#include <algorithm>
#include <cstdio>
#include <random>

#include "config_dispatch.h"
#include "ir/converter_buffer.h"
#include "ir/converter_program.h"
#include "layout_converter_configs.h"
#include "model/converter_model.h"
#include "passthrough_test.h"
#include "random_itensor.h"

using namespace st::tb;
using namespace st::ir;

namespace {

/// Records the cycle of the first handshake on one stream, or of every handshake.
class HandshakeLog : public Component {
public:
  explicit HandshakeLog(StreamPins pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    if (pins_.valid.readBool() && pins_.ready.readBool())
      cycles_.push_back(cycle);
  }
  void clear() { cycles_.clear(); }
  const std::vector<uint64_t> &cycles() const { return cycles_; }

private:
  StreamPins pins_;
  std::vector<uint64_t> cycles_;
};

struct Pair {
  std::string name;
  ITensorType producer, consumer;
};

struct Totals {
  uint64_t pairs = 0, tokensIn = 0, tokensOut = 0, cycles = 0;
  /// Pairs with shared loops; with more producer / consumer element writes than buffer words
  /// per phase (a reuse loop inside the phase); with PT > CT, PT < CT.
  uint64_t shared = 0, producerReuse = 0, consumerReuse = 0, producerSlower = 0, consumerSlower = 0;
};

ConverterLimits limitsOf(const Params &params) {
  ConverterLimits l;
  l.elementBits = params["ElemBits"];
  l.maxProducerElements = params["MaxProdElems"];
  l.maxConsumerElements = params["MaxConsElems"];
  l.maxBufferElements = params["MaxBufferElems"];
  l.maxProducerTokens = params["MaxProdTokens"];
  l.maxConsumerTokens = params["MaxConsTokens"];
  return l;
}

bool fits(const ConverterProgram &p, const ConverterLimits &l) {
  return p.elementBits == l.elementBits && p.producerTokenElements <= l.maxProducerElements &&
         p.consumerTokenElements <= l.maxConsumerElements &&
         p.bufferElements <= l.maxBufferElements &&
         p.producerTokensPerPhase <= l.maxProducerTokens &&
         p.consumerTokensPerPhase <= l.maxConsumerTokens;
}

std::vector<std::vector<int64_t>> tokenLists(const ITensorType &t) {
  std::vector<std::vector<int64_t>> out;
  forEachToken(
      t, [&](int64_t, const std::vector<int64_t> &off) { out.push_back(tokenElements(t, off)); });
  return out;
}

Bits packToken(const std::vector<int64_t> &elements, const std::vector<uint64_t> &values,
               int64_t lanes, unsigned bits) {
  Bits token(static_cast<unsigned>(lanes) * bits, 0);
  for (size_t l = 0; l < elements.size(); ++l)
    token.setSliceU64(static_cast<unsigned>(l) * bits, bits,
                      values[static_cast<size_t>(elements[l])]);
  return token;
}

template <class Model>
void runPair(const TestOptions &options, const Params &params, const std::string &config,
             const Pair &pair, uint64_t seed, Totals &totals) {
  const ConverterLimits limits = limitsOf(params);
  const ConverterBufferShape buffer = inferConverterBuffer(pair.producer, pair.consumer);
  const ConverterProgram program = buildConverterProgram(pair.producer, pair.consumer, buffer);
  const std::string dir = ST_CONVERTER_TABLE_DIR "/" + config;
  writeConverterTables(program, limits, dir + ".counts.mem", dir + ".prod.mem", dir + ".cons.mem");

  TestOptions o = options;
  o.seed = seed;
  Harness<Model> h(o, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned bits = static_cast<unsigned>(limits.elementBits);
  const unsigned inWidth = static_cast<unsigned>(limits.maxProducerElements) * bits;
  const unsigned outWidth = static_cast<unsigned>(limits.maxConsumerElements) * bits;
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, inWidth)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, outWidth)};
  StreamDriver driver("in", in, seed * 3 + 1);
  StreamSink sink("out", out, seed * 5 + 2);
  Scoreboard board("out (" + pair.name + ")");
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch("in", in);
  watchdog.watch(sink.checker());
  HandshakeLog inLog(in), outLog(out);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c :
       std::initializer_list<Component *>{&driver, &sink, &board, &watchdog, &inLog, &outLog})
    h.add(*c);
  h.reset();

  const auto producerTokens = tokenLists(pair.producer);
  const auto consumerTokens = tokenLists(pair.consumer);
  int64_t numElements = 1;
  for (int64_t d : pair.producer.tensorShape())
    numElements *= d;
  std::mt19937_64 rng(seed);
  auto pushTensor = [&] {
    std::vector<uint64_t> values(static_cast<size_t>(numElements));
    for (auto &v : values)
      v = Bits::random(bits, rng).toU64();
    for (const auto &t : producerTokens)
      driver.push(packToken(t, values, limits.maxProducerElements, bits));
    for (const auto &t : consumerTokens)
      board.expect(packToken(t, values, limits.maxConsumerElements, bits));
  };
  const uint64_t limit = 200 * (producerTokens.size() + consumerTokens.size()) + 10000;

  // One tensor with ideal streams: every output handshake at the model's cycle.
  driver.setValidProbability(1.0);
  sink.setReadyProbability(1.0);
  pushTensor();
  h.runUntil([&] { return board.empty(); }, limit);
  const st::model::KernelTiming timing = st::model::layoutConverterTiming(program);
  if (outLog.cycles().size() != consumerTokens.size() || inLog.cycles().empty())
    h.fail(pair.name + ": " + std::to_string(outLog.cycles().size()) + " outputs, expected " +
           std::to_string(consumerTokens.size()));
  const uint64_t first = inLog.cycles().front();
  for (size_t k = 0; k < outLog.cycles().size(); ++k) {
    const int64_t measured = static_cast<int64_t>(outLog.cycles()[k] - first);
    const int64_t expected =
        st::model::layoutConverterOutputCycle(program, static_cast<int64_t>(k));
    if (measured != expected)
      h.fail(pair.name + ": ideal streams: output " + std::to_string(k) + " at cycle " +
             std::to_string(measured) + " after the first input, the model says " +
             std::to_string(expected));
  }
  // Output k never leaves before the model's inputTokensNeeded(k) inputs were taken.
  for (size_t k = 0; k < outLog.cycles().size(); ++k) {
    const auto taken =
        std::lower_bound(inLog.cycles().begin(), inLog.cycles().end(), outLog.cycles()[k]) -
        inLog.cycles().begin();
    const int64_t needed = timing.inputTokensNeeded[0](static_cast<int64_t>(k));
    if (taken < needed)
      h.fail(pair.name + ": output " + std::to_string(k) + " left after " + std::to_string(taken) +
             " inputs, the model says it needs " + std::to_string(needed));
  }
  const int64_t d = static_cast<int64_t>(outLog.cycles().front() - first);
  const int64_t l = static_cast<int64_t>(outLog.cycles().back() - first);
  if (d != timing.firstOutputDelay || l != timing.totalLatency)
    h.fail(pair.name + ": D " + std::to_string(d) + " L " + std::to_string(l) + ", model D " +
           std::to_string(timing.firstOutputDelay) + " L " + std::to_string(timing.totalLatency));

  // Three tensors under random gaps on both sides.
  for (size_t p = 1; p < sizeof kDefaultPhases / sizeof kDefaultPhases[0]; ++p) {
    driver.setValidProbability(kDefaultPhases[p].validProbability);
    sink.setReadyProbability(kDefaultPhases[p].readyProbability);
    pushTensor();
    h.runUntil([&] { return board.empty(); }, limit);
  }
  for (int i = 0; i < 16; ++i)
    h.step();
  std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(pair.name + ": " + e);
  if (totals.pairs < 6 || options.tokens <= 10)
    std::printf("  %s: buffer %lld, %lld phases, PT %lld CT %lld, D %lld L %lld (model %lld %lld)"
                "\n    %s\n -> %s\n",
                pair.name.c_str(), static_cast<long long>(program.bufferElements),
                static_cast<long long>(program.phases),
                static_cast<long long>(program.producerTokensPerPhase),
                static_cast<long long>(program.consumerTokensPerPhase), static_cast<long long>(d),
                static_cast<long long>(l), static_cast<long long>(timing.firstOutputDelay),
                static_cast<long long>(timing.totalLatency), pair.producer.toString().c_str(),
                pair.consumer.toString().c_str());
  ++totals.pairs;
  totals.shared += !buffer.sharedLoops.empty();
  totals.producerReuse +=
      program.producerTokensPerPhase * program.producerTokenElements > program.bufferElements;
  totals.consumerReuse +=
      program.consumerTokensPerPhase * program.consumerTokenElements > program.bufferElements;
  totals.producerSlower += program.producerTokensPerPhase > program.consumerTokensPerPhase;
  totals.consumerSlower += program.producerTokensPerPhase < program.consumerTokensPerPhase;
  totals.tokensIn += inLog.cycles().size();
  totals.tokensOut += board.matched();
  totals.cycles += h.cycle();
}

/// Random pairs over small tensors (as the unit tests draw them) that need a converter and
/// fit the instance; `scalarOnly` keeps pairs with one element per token on both sides.
std::vector<Pair> randomPairs(uint64_t seed, uint64_t count, const ConverterLimits &limits,
                              const std::string &dtype, bool scalarOnly) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::vector<Pair> pairs;
  for (uint64_t draw = 0; pairs.size() < count && draw < 200000; ++draw) {
    std::vector<int64_t> shape = random_types::randomTensorShape(rng);
    ITensorType p = random_types::randomTypeOver(rng, shape, dtype);
    unsigned prefix = random_types::chance(rng, 0.6)
                          ? static_cast<unsigned>(random_types::pick(rng, 0, p.numLoops()))
                          : 0;
    ITensorType c = random_types::randomTypeOver(rng, shape, dtype, &p, prefix);
    if (scalarOnly && (p.elementsPerToken() != 1 || c.elementsPerToken() != 1))
      continue;
    ConverterBufferShape b = inferConverterBuffer(p, c);
    if (!b.converterNeeded || !fits(buildConverterProgram(p, c, b), limits))
      continue;
    pairs.push_back({"random pair " + std::to_string(pairs.size()), p, c});
  }
  if (pairs.size() < count)
    throw TestFailure("drew only " + std::to_string(pairs.size()) + " fitting pairs of " +
                      std::to_string(count));
  return pairs;
}

std::vector<Pair> pairsOf(const std::string &config, const TestOptions &options,
                          const ConverterLimits &limits) {
  auto pair = [](const char *name, const char *p, const char *c) {
    return Pair{name, parseITensorType(p), parseITensorType(c)};
  };
  if (config == "b_to_c")
    return {pair("itensor example b->c",
                 "itensor<4x2xf32, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>",
                 "itensor<4x2xf32, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>")};
  if (config == "scalar") {
    std::vector<Pair> pairs{
        pair("transpose 8x8",
             "itensor<1x1xi16, iter_space: [8,8]*[1,1], iter_map: (d0,d1)->(d0,d1)>",
             "itensor<1x1xi16, iter_space: [8,8]*[1,1], iter_map: (d0,d1)->(d1,d0)>"),
        pair("transpose 4x16, consumer twice",
             "itensor<1x1xi16, iter_space: [4,16]*[1,1], iter_map: (d0,d1)->(d0,d1)>",
             "itensor<1x1xi16, iter_space: [16,2,4]*[1,1,1], iter_map: (d0,d1,d2)->(d2,d0)>"),
        pair("permute 2x4x8 -> (d1, d2, d0), shared outer loop",
             "itensor<1x1x1xi16, iter_space: [2,4,8]*[1,1,1], iter_map: (d0,d1,d2)->(d0,d1,d2)>",
             "itensor<1x1x1xi16, iter_space: [2,8,4]*[1,1,1], iter_map: (d0,d1,d2)->(d0,d2,d1)>")};
    for (Pair &p : randomPairs(options.seed * 7 + 3, 20, limits, "i16", true))
      pairs.push_back(std::move(p));
    return pairs;
  }
  std::vector<Pair> pairs{
      pair("transpose of 2x2 tiles over 6x8",
           "itensor<2x2xi16, iter_space: [3,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>",
           "itensor<2x2xi16, iter_space: [4,3]*[2,2], iter_map: (d0,d1)->(d1,d0)>"),
      pair("itensor example b->c over i16",
           "itensor<4x2xi16, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>",
           "itensor<4x2xi16, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>"),
      pair("producer re-streams each band",
           "itensor<2x2xi16, iter_space: [2,2,2]*[2,1,2], iter_map: (d0,d1,d2)->(d0,d2)>",
           "itensor<2x1xi16, iter_space: [2,4]*[2,1], iter_map: (d0,d1)->(d0,d1)>")};
  for (Pair &p : randomPairs(options.seed * 7 + 3, options.tokens, limits, "i16", false))
    pairs.push_back(std::move(p));
  return pairs;
}

} // namespace

template <class Model>
void runConfig(const TestOptions &options, const Params &params, const std::string &config) {
  const ConverterLimits limits = limitsOf(params);
  Totals totals;
  const std::vector<Pair> pairs = pairsOf(config, options, limits);
  for (size_t i = 0; i < pairs.size(); ++i)
    runPair<Model>(options, params, config, pairs[i], options.seed * 1000 + i, totals);
  std::printf("%llu pairs: %llu tokens in, %llu tokens out checked in order, %llu cycles; every "
              "output of the ideal tensor at the model's cycle\n",
              static_cast<unsigned long long>(totals.pairs),
              static_cast<unsigned long long>(totals.tokensIn),
              static_cast<unsigned long long>(totals.tokensOut),
              static_cast<unsigned long long>(totals.cycles));
  std::printf("  %llu with shared loops, %llu with a producer reuse loop inside the phase, %llu "
              "with a consumer one; PT > CT in %llu, PT < CT in %llu\n",
              static_cast<unsigned long long>(totals.shared),
              static_cast<unsigned long long>(totals.producerReuse),
              static_cast<unsigned long long>(totals.consumerReuse),
              static_cast<unsigned long long>(totals.producerSlower),
              static_cast<unsigned long long>(totals.consumerSlower));
}

int main(int argc, char **argv) {
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params, #cfg);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
