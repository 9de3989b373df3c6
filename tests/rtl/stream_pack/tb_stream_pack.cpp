// Verilator test of st_stream_pack: >= 10,000 random tokens in runs of TokensPerRun under random
// backpressure on both sides. Every run must fill ceil(TokensPerRun / TokensPerWord) words, low
// slot first, with the upper slots of its last word zero, and the next run must start a new
// word; the output obeys the valid/ready rules, and in free flow one token enters per cycle.
#include "config_dispatch.h"
#include "multi_stream_bench.h"
#include "stream_pack_configs.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned wordBits = static_cast<unsigned>(params["WordBits"]);
  const unsigned tokenBits = static_cast<unsigned>(params["TokenBits"]);
  const uint64_t tokensPerRun = static_cast<uint64_t>(params["TokensPerRun"]);
  const unsigned tokensPerWord = wordBits / tokenBits;
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, tokenBits)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, wordBits)};

  MultiStreamBench bench(options);
  StreamDriver &driver = bench.addDriver("tokens", in);
  Scoreboard &board = bench.addScoreboard("words");
  bench.addSink("words", out).onToken([&board](const Bits &t) { board.observe(t); });

  // The software model: a word starts zero and takes the run's tokens slot by slot; it is
  // complete when full or when the run ends.
  std::mt19937_64 rng(options.seed);
  uint64_t words = 0;
  bench.run(h, options.tokens, [&](uint64_t count) {
    const uint64_t runs = (count + tokensPerRun - 1) / tokensPerRun;
    for (uint64_t r = 0; r < runs; ++r) {
      Bits word(wordBits);
      unsigned slot = 0;
      for (uint64_t i = 0; i < tokensPerRun; ++i) {
        const Bits token = Bits::random(tokenBits, rng);
        driver.push(token);
        word.setSlice(slot * tokenBits, token);
        if (++slot == tokensPerWord || i + 1 == tokensPerRun) {
          board.expect(word);
          ++words;
          word = Bits(wordBits);
          slot = 0;
        }
      }
    }
    return runs * tokensPerRun;
  });
  std::printf("%u-bit tokens -> %u-bit words, runs of %llu tokens: %llu words\n", tokenBits,
              wordBits, static_cast<unsigned long long>(tokensPerRun),
              static_cast<unsigned long long>(words));
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
