// Verilator test of st_activation (GELU erf, GELU tanh, SiLU): timing against
// activationTiming, then >= 1,000 random vectors with extreme codes and scale sets that
// saturate the Q.11 conversion and the output, bit-exact against st::numerics::gelu / silu
// under random backpressure. --compare-synth REPORT prints the resource estimate beside Yosys.
#include <cstring>

#include "activation_configs.h"
#include "config_dispatch.h"
#include "elementwise_bench.h"
#include "model/elementwise_model.h"
#include "numerics/golden_ops.h"
#include "sideband_ports.h"
#include "synth_compare.h"

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

namespace {

/// (input scale, output scale): Q.11 in and out (multipliers exactly 1: the function itself is
/// visible; the sweep set), multipliers exactly 0.5 (a rounding tie on every odd value), typical
/// s16 -> s8, unit, saturating the output, saturating the 32-bit Q.11 conversion (2^23 per
/// code), a tiny output multiplier, a huge output multiplier.
const double kScalePairs[][2] = {{1.0 / 2048, 1.0 / 2048},
                                 {1.0 / 4096, 1.0 / 1024},
                                 {8.0 / 32767, 4.0 / 127},
                                 {0.01, 0.01},
                                 {1.0, 0.001},
                                 {4096.0, 1.0},
                                 {0.05, 100.0},
                                 {1e-4, 1e-9}};

model::ActivationParams modelParams(const Params &params, int64_t n) {
  model::ActivationParams p;
  p.function = static_cast<model::ElementwiseFunction>(params["Function"]);
  p.lanes = params["Lanes"];
  p.inBits = params["InBits"];
  p.outBits = params["OutBits"];
  p.n = n;
  return p;
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned lanes = unsigned(params["Lanes"]), inBits = unsigned(params["InBits"]),
                 outBits = unsigned(params["OutBits"]);
  const int function = int(params["Function"]);
  std::vector<num::ActivationScales> sets;
  for (const auto &pair : kScalePairs)
    sets.push_back(num::activationScales(pair[0], pair[1], outBits));

  ElementwiseKernel k;
  k.lanes = lanes;
  k.inputs = {
      {SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, lanes * inBits)}};
  k.inputBits = {inBits};
  k.output = {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
              SignalRef(m.data_o, lanes * outBits)};
  k.outputBits = outBits;
  k.scaleSets = sets.size();
  k.describeScaleSet = [](size_t s) {
    return "(" + std::to_string(kScalePairs[s][0]) + "," + std::to_string(kScalePairs[s][1]) + ")";
  };
  // The LLM top's descriptor -> port mapping.
  SidebandPorts ports({{"in_mantissa_i", SignalRef(m.in_mantissa_i, 24)},
                       {"in_shift_i", SignalRef(m.in_shift_i, 6)},
                       {"out_mantissa_i", SignalRef(m.out_mantissa_i, 24)},
                       {"out_shift_i", SignalRef(m.out_shift_i, 6)}});
  k.applyScales = [ports, &sets](size_t s) { ports.write(st::plan::activationSidebands(sets[s])); };
  k.golden = [&sets, function](size_t s, const std::vector<std::vector<int64_t>> &in) {
    const std::vector<int32_t> x(in[0].begin(), in[0].end());
    const std::vector<int32_t> y =
        function == 2
            ? num::silu(x, sets[s])
            : num::gelu(x, sets[s], function == 0 ? num::GeluForm::Erf : num::GeluForm::Tanh);
    return std::vector<int64_t>(y.begin(), y.end());
  };
  k.timing = [&params](int64_t n) { return model::activationTiming(modelParams(params, n)); };
  runElementwiseTest(h, k, options.tokens);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_COMPARE(cfg, Model, params)                                                             \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::activationResources(modelParams(params, 0)));
    ST_CONFIGS(ST_COMPARE)
    return 2;
  }
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
