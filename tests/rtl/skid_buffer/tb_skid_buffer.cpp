// Verilator test of st_skid_buffer: >= 10,000 random tokens under random backpressure come out
// in order and unchanged; the output obeys the valid/ready rules; full throughput in free flow.
#include "config_dispatch.h"
#include "passthrough_test.h"
#include "skid_buffer_configs.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned width = static_cast<unsigned>(params["Width"]);
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, width)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, width)};
  runPassthroughTest(h, in, out, options.tokens);
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
