// Verilator test of st_rr_demux: >= 10,000 random tokens under random backpressure on the input
// and on every output; input token k arrives on output k mod N, each output in order, each token
// exactly once; the outputs obey the valid/ready rules; one token per cycle in free flow.
#include "config_dispatch.h"
#include "multi_stream_bench.h"
#include "rr_demux_configs.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned outputs = static_cast<unsigned>(params["N"]);
  const unsigned width = static_cast<unsigned>(params["Width"]);
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, width)};
  StreamPins out{SignalRef(m.valid_o, outputs), SignalRef(m.ready_i, outputs),
                 SignalRef(m.data_o, outputs * width)};

  MultiStreamBench bench(options);
  StreamDriver &driver = bench.addDriver("in", in);
  std::vector<Scoreboard *> boards;
  for (unsigned o = 0; o < outputs; ++o) {
    std::string name = "out" + std::to_string(o);
    Scoreboard &board = bench.addScoreboard(name);
    bench.addSink(name, branchPins(out, o, width)).onToken([&board](const Bits &t) {
      board.observe(t);
    });
    boards.push_back(&board);
  }
  std::mt19937_64 rng(options.seed);
  uint64_t tokenIndex = 0; // global input token index k, across phases
  bench.run(h, options.tokens, [&](uint64_t count) {
    for (uint64_t i = 0; i < count; ++i, ++tokenIndex) {
      Bits token = Bits::random(width, rng);
      driver.push(token);
      boards[tokenIndex % outputs]->expect(token);
    }
    return count;
  });
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
