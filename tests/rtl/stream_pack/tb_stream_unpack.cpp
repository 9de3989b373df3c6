// Verilator test of st_stream_unpack: >= 10,000 tokens in runs of TokensPerRun, sent as words
// whose padding slots (the upper slots of each run's last word) hold random bits, under random
// backpressure on both sides. The output must be exactly the runs' tokens in order with the
// padding dropped; the output obeys the valid/ready rules, and in free flow one token leaves per
// cycle.
#include "config_dispatch.h"
#include "multi_stream_bench.h"
#include "stream_unpack_configs.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned wordBits = static_cast<unsigned>(params["WordBits"]);
  const unsigned tokenBits = static_cast<unsigned>(params["TokenBits"]);
  const uint64_t tokensPerRun = static_cast<uint64_t>(params["TokensPerRun"]);
  const unsigned tokensPerWord = wordBits / tokenBits;
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, wordBits)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, tokenBits)};

  MultiStreamBench bench(options);
  StreamDriver &driver = bench.addDriver("words", in);
  Scoreboard &board = bench.addScoreboard("tokens");
  bench.addSink("tokens", out).onToken([&board](const Bits &t) { board.observe(t); });

  // The software model: a run is ceil(TokensPerRun / TokensPerWord) random words; its tokens
  // are the words' slots in order, low slot first, cut after TokensPerRun.
  std::mt19937_64 rng(options.seed);
  uint64_t padded = 0;
  bench.run(h, options.tokens, [&](uint64_t count) {
    const uint64_t runs = (count + tokensPerRun - 1) / tokensPerRun;
    for (uint64_t r = 0; r < runs; ++r) {
      uint64_t left = tokensPerRun;
      while (left > 0) {
        const Bits word = Bits::random(wordBits, rng);
        for (unsigned s = 0; s < tokensPerWord; ++s, left = left ? left - 1 : 0) {
          if (left > 0)
            board.expect(word.slice(s * tokenBits, tokenBits));
          else
            ++padded;
        }
        driver.push(word);
      }
    }
    return runs * tokensPerRun;
  });
  std::printf("%u-bit words -> %u-bit tokens, runs of %llu tokens: %llu padding slots dropped\n",
              wordBits, tokenBits, static_cast<unsigned long long>(tokensPerRun),
              static_cast<unsigned long long>(padded));
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
