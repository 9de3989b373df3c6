// Verilator test of st_width_converter: >= 10,000 random tokens on the narrow side under random
// backpressure on both sides. Upsizing must pack every InWidth/OutWidth group of input tokens
// into one output token (first token in the least significant bits); downsizing must split every
// input token into its parts, least significant first; equal widths pass tokens unchanged. The
// output obeys the valid/ready rules, and in free flow the narrow side moves one token per cycle.
#include <algorithm>

#include "config_dispatch.h"
#include "multi_stream_bench.h"
#include "width_converter_configs.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned inWidth = static_cast<unsigned>(params["InWidth"]);
  const unsigned outWidth = static_cast<unsigned>(params["OutWidth"]);
  const unsigned narrow = std::min(inWidth, outWidth);
  const unsigned ratio = std::max(inWidth, outWidth) / narrow;
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, inWidth)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, outWidth)};

  MultiStreamBench bench(options);
  StreamDriver &driver = bench.addDriver("in", in);
  Scoreboard &board = bench.addScoreboard("out");
  bench.addSink("out", out).onToken([&board](const Bits &t) { board.observe(t); });

  // The software model: one wide token is `ratio` narrow ones, the first in the low bits.
  std::mt19937_64 rng(options.seed);
  bench.run(h, options.tokens, [&](uint64_t count) {
    const uint64_t wideTokens = (count + ratio - 1) / ratio;
    for (uint64_t w = 0; w < wideTokens; ++w) {
      const Bits wide = Bits::random(narrow * ratio, rng);
      for (unsigned part = 0; part < ratio; ++part) {
        const Bits piece = wide.slice(part * narrow, narrow);
        if (inWidth < outWidth)
          driver.push(piece);
        else
          board.expect(piece);
      }
      if (inWidth < outWidth)
        board.expect(wide);
      else
        driver.push(wide);
    }
    return wideTokens * ratio; // counted on the narrow side
  });
  std::printf("%s %u -> %u bits: %u narrow tokens per wide token\n",
              inWidth < outWidth   ? "upsizing"
              : inWidth > outWidth ? "downsizing"
                                   : "pass-through",
              inWidth, outWidth, ratio);
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
