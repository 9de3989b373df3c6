// Verilator test of st_block_replayer: random blocks of BlockLen tokens under random backpressure
// on both sides (>= 10,000 output tokens); the output must be every block Repeats times in a row,
// in order, and obey the valid/ready rules. The first phase runs free-flowing from empty and
// asserts its exact cycle count: BlockLen cycles to fill the first bank, one cycle of memory
// read, then one output token every cycle with no gap between blocks (double buffering).
#include <cstdio>
#include <random>

#include "block_replayer_configs.h"
#include "config_dispatch.h"
#include "passthrough_test.h"

using namespace st::tb;

namespace {

/// Records the cycles of the first and the last handshake on one stream.
class HandshakeTimes : public Component {
public:
  explicit HandshakeTimes(StreamPins pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    if (pins_.valid.readBool() && pins_.ready.readBool()) {
      if (count_ == 0)
        first_ = cycle;
      last_ = cycle;
      ++count_;
    }
  }
  void clear() { count_ = first_ = last_ = 0; }
  uint64_t count() const { return count_; }
  uint64_t first() const { return first_; }
  uint64_t last() const { return last_; }

private:
  StreamPins pins_;
  uint64_t count_ = 0, first_ = 0, last_ = 0;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned width = static_cast<unsigned>(params["Width"]);
  const uint64_t blockLen = static_cast<uint64_t>(params["BlockLen"]);
  const uint64_t repeats = static_cast<uint64_t>(params["Repeats"]);
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, width)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, width)};

  const uint64_t seed = options.seed;
  StreamDriver driver("in", in, seed * 3 + 1);
  StreamSink sink("out", out, seed * 5 + 2);
  Scoreboard board("out");
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch("in", in);
  watchdog.watch(sink.checker());
  HandshakeTimes inTimes(in), outTimes(out);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c :
       std::initializer_list<Component *>{&driver, &sink, &board, &watchdog, &inTimes, &outTimes})
    h.add(*c);
  h.reset();

  std::mt19937_64 rng(seed);
  const uint64_t outPerBlock = blockLen * repeats;
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  const uint64_t outPerPhase = options.tokens / phases;
  uint64_t tokensIn = 0, tokensOut = 0;
  for (size_t p = 0; p < phases; ++p) {
    const uint64_t blocks = (outPerPhase + outPerBlock - 1) / outPerBlock;
    driver.setValidProbability(kDefaultPhases[p].validProbability);
    sink.setReadyProbability(kDefaultPhases[p].readyProbability);
    inTimes.clear();
    outTimes.clear();
    // The software model: each block of input tokens, Repeats times over.
    for (uint64_t b = 0; b < blocks; ++b) {
      std::vector<Bits> block;
      for (uint64_t i = 0; i < blockLen; ++i) {
        block.push_back(Bits::random(width, rng));
        driver.push(block.back());
      }
      for (uint64_t r = 0; r < repeats; ++r)
        for (const Bits &t : block)
          board.expect(t);
    }
    h.runUntil([&] { return board.empty(); }, blocks * outPerBlock * 200 + 10000);
    tokensIn += blocks * blockLen;
    tokensOut += blocks * outPerBlock;
    std::printf("  phase %zu (valid %.1f, ready %.1f): %llu blocks, %llu tokens in, %llu out, "
                "first in at cycle %llu, last out at cycle %llu\n",
                p, kDefaultPhases[p].validProbability, kDefaultPhases[p].readyProbability,
                static_cast<unsigned long long>(blocks),
                static_cast<unsigned long long>(inTimes.count()),
                static_cast<unsigned long long>(outTimes.count()),
                static_cast<unsigned long long>(inTimes.first()),
                static_cast<unsigned long long>(outTimes.last()));
    if (p == 0) {
      // Free flow from empty: fill one bank, one cycle of read latency, then one token a cycle.
      const uint64_t expected = blockLen + 1 + blocks * outPerBlock;
      const uint64_t measured = outTimes.last() - inTimes.first() + 1;
      std::printf("  free flow: %llu cycles from first input to last output (expected BlockLen + "
                  "1 + blocks*BlockLen*Repeats = %llu)\n",
                  static_cast<unsigned long long>(measured),
                  static_cast<unsigned long long>(expected));
      if (measured != expected)
        h.fail("free-flowing run took " + std::to_string(measured) + " cycles from first input " +
               "to last output; double buffering promises " + std::to_string(expected));
    }
  }
  // Nothing more may come out.
  for (int i = 0; i < 64; ++i)
    h.step();
  std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu tokens in, %llu tokens out checked in order, %llu cycles\n",
              static_cast<unsigned long long>(tokensIn),
              static_cast<unsigned long long>(board.matched()),
              static_cast<unsigned long long>(h.cycle()));
  std::printf("%s", watchdog.stallReport().c_str());
  if (board.matched() != tokensOut)
    h.fail("matched " + std::to_string(board.matched()) + " tokens, expected " +
           std::to_string(tokensOut));
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
