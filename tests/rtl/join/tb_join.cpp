// Verilator test of st_join: >= 10,000 output tokens under random backpressure on every input
// and on the output; output token k is the concatenation of token k of every input (input i at
// [i*Width +: Width]), in order; every input is consumed exactly once per output token (checked
// each cycle); the output obeys the valid/ready rules; one token per cycle in free flow.
#include "config_dispatch.h"
#include "join_configs.h"
#include "multi_stream_bench.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned inputs = static_cast<unsigned>(params["N"]);
  const unsigned width = static_cast<unsigned>(params["Width"]);
  StreamPins in{SignalRef(m.valid_i, inputs), SignalRef(m.ready_o, inputs),
                SignalRef(m.data_i, inputs * width)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                 SignalRef(m.data_o, inputs * width)};

  MultiStreamBench bench(options);
  std::vector<StreamDriver *> drivers;
  for (unsigned i = 0; i < inputs; ++i)
    drivers.push_back(&bench.addDriver("in" + std::to_string(i), branchPins(in, i, width)));
  Scoreboard &board = bench.addScoreboard("out");
  StreamSink &sink = bench.addSink("out", out);
  sink.onToken([&board](const Bits &t) { board.observe(t); });
  // The join is combinational: an input token leaves exactly when the output token does.
  bench.addCheck("consumption", [&]() -> std::string {
    for (unsigned i = 0; i < inputs; ++i)
      if (drivers[i]->sent() != sink.received())
        return "input " + std::to_string(i) + " consumed " + std::to_string(drivers[i]->sent()) +
               " tokens but " + std::to_string(sink.received()) + " output tokens were taken";
    return {};
  });

  std::mt19937_64 rng(options.seed);
  bench.run(h, options.tokens, [&](uint64_t count) {
    for (uint64_t k = 0; k < count; ++k) {
      Bits joined(inputs * width);
      for (unsigned i = 0; i < inputs; ++i) {
        Bits token = Bits::random(width, rng);
        drivers[i]->push(token);
        joined.setSlice(i * width, token);
      }
      board.expect(joined);
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
