// Verilator test of st_fork: >= 10,000 random tokens under random backpressure on the input and
// on every branch; every branch receives the whole input stream, in order, each token exactly
// once; the branches obey the valid/ready rules; one token per cycle when all branches are ready.
#include "config_dispatch.h"
#include "fork_configs.h"
#include "multi_stream_bench.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned branches = static_cast<unsigned>(params["N"]);
  const unsigned width = static_cast<unsigned>(params["Width"]);
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, width)};
  StreamPins out{SignalRef(m.valid_o, branches), SignalRef(m.ready_i, branches),
                 SignalRef(m.data_o, branches * width)};

  MultiStreamBench bench(options);
  StreamDriver &driver = bench.addDriver("in", in);
  std::vector<Scoreboard *> boards;
  for (unsigned b = 0; b < branches; ++b) {
    std::string name = "out" + std::to_string(b);
    Scoreboard &board = bench.addScoreboard(name);
    bench.addSink(name, branchPins(out, b, width)).onToken([&board](const Bits &t) {
      board.observe(t);
    });
    boards.push_back(&board);
  }
  std::mt19937_64 rng(options.seed);
  bench.run(h, options.tokens, [&](uint64_t count) {
    for (uint64_t i = 0; i < count; ++i) {
      Bits token = Bits::random(width, rng);
      driver.push(token);
      for (Scoreboard *board : boards)
        board->expect(token);
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
