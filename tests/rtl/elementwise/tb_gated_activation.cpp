// Verilator test of st_gated_activation (SwiGLU, GeGLU erf/tanh): timing against
// gatedActivationTiming, then >= 1,000 random vector pairs (gate, up) with extreme codes and
// scale sets that saturate the Q.11 conversions and the output, bit-exact against
// st::numerics::swiglu / geglu under random backpressure on both inputs and the output.
// --compare-synth REPORT prints the resource estimate beside Yosys.
#include <cstring>

#include "config_dispatch.h"
#include "elementwise_bench.h"
#include "gated_activation_configs.h"
#include "model/elementwise_model.h"
#include "numerics/golden_ops.h"
#include "sideband_ports.h"
#include "synth_compare.h"

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

namespace {

/// (gate scale, up scale, output scale): Q.11 in and Q.22 out (multipliers exactly 1; the sweep
/// set), multipliers exactly 0.5 (rounding ties), typical, unit, saturating the output, saturating
/// both Q.11 conversions (2^23 per code), a tiny output multiplier.
const double kScaleTriples[][3] = {{1.0 / 2048, 1.0 / 2048, 1.0 / 4194304},
                                   {1.0 / 4096, 1.0 / 4096, 1.0 / 2097152},
                                   {8.0 / 32767, 6.0 / 32767, 2.0 / 127},
                                   {0.01, 0.02, 0.01},
                                   {1.0, 1.0, 0.001},
                                   {4096.0, 4096.0, 1e-5},
                                   {0.05, 0.05, 1000.0}};

model::GatedActivationParams modelParams(const Params &params, int64_t n) {
  model::GatedActivationParams p;
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
  std::vector<num::GatedScales> sets;
  for (const auto &t : kScaleTriples)
    sets.push_back(num::gatedScales(t[0], t[1], t[2], outBits));

  ElementwiseKernel k;
  k.lanes = lanes;
  k.inputs = {{SignalRef(m.gate_valid_i, 1), SignalRef(m.gate_ready_o, 1),
               SignalRef(m.gate_data_i, lanes * inBits)},
              {SignalRef(m.up_valid_i, 1), SignalRef(m.up_ready_o, 1),
               SignalRef(m.up_data_i, lanes * inBits)}};
  k.inputBits = {inBits, inBits};
  k.output = {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
              SignalRef(m.data_o, lanes * outBits)};
  k.outputBits = outBits;
  k.scaleSets = sets.size();
  k.describeScaleSet = [](size_t s) {
    return "(" + std::to_string(kScaleTriples[s][0]) + "," + std::to_string(kScaleTriples[s][1]) +
           "," + std::to_string(kScaleTriples[s][2]) + ")";
  };
  // The LLM top's descriptor -> port mapping.
  SidebandPorts ports({{"gate_mantissa_i", SignalRef(m.gate_mantissa_i, 24)},
                       {"gate_shift_i", SignalRef(m.gate_shift_i, 6)},
                       {"up_mantissa_i", SignalRef(m.up_mantissa_i, 24)},
                       {"up_shift_i", SignalRef(m.up_shift_i, 6)},
                       {"product_mantissa_i", SignalRef(m.product_mantissa_i, 24)},
                       {"product_shift_i", SignalRef(m.product_shift_i, 6)}});
  k.applyScales = [ports, &sets](size_t s) { ports.write(st::plan::gatedSidebands(sets[s])); };
  k.golden = [&sets, function](size_t s, const std::vector<std::vector<int64_t>> &in) {
    const std::vector<int32_t> gate(in[0].begin(), in[0].end()), up(in[1].begin(), in[1].end());
    const std::vector<int32_t> y =
        function == 2 ? num::swiglu(gate, up, sets[s])
                      : num::geglu(gate, up, sets[s],
                                   function == 0 ? num::GeluForm::Erf : num::GeluForm::Tanh);
    return std::vector<int64_t>(y.begin(), y.end());
  };
  k.timing = [&params](int64_t n) { return model::gatedActivationTiming(modelParams(params, n)); };
  runElementwiseTest(h, k, options.tokens);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_COMPARE(cfg, Model, params)                                                             \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4],                                                       \
                                    model::gatedActivationResources(modelParams(params, 0)));
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
