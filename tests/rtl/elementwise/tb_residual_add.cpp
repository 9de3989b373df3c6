// Verilator test of st_residual_add: timing against residualAddTiming, then >= 1,000 random
// vector pairs with extreme codes and scale pairs covering equal shifts, shift 0 on both, one
// shift 0 with the other large, shift differences up to 63, exact ties at the last rounding
// and saturating outputs, bit-exact against st::numerics::residualAdd under random backpressure
// on both inputs and the output.
// --compare-synth REPORT prints the resource estimate beside Yosys.
#include <cstring>

#include "config_dispatch.h"
#include "elementwise_bench.h"
#include "model/elementwise_model.h"
#include "numerics/golden_ops.h"
#include "residual_add_configs.h"
#include "sideband_ports.h"
#include "synth_compare.h"

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

namespace {

/// (s_a, s_b, s_out): multipliers 0.5 and 0.25, and 0.5 and 1 (rounding ties), typical
/// residual s16 + s8, equal scales (d = 0), b far finer than a (large
/// d), a below 2^-40 of the output (shift 63), both >= 2^23 (s = 0), a >= 2^23 with b small
/// (sq = 0, d > 0), outputs saturating, and b's shift 1 beside a's 25 (sq = 1, d = 24): there a
/// negative sum whose fraction is zero or above one half reaches the last rounding
/// (st_scale_output) as an exact tie, where only round half up gives the golden result (b = 0
/// keeps the output in range). The first two sets' ties never reach it: the sign correction
/// X = P - 1 moves a negative tie off the half.
const double kScaleTriples[][3] = {{0.5, 0.25, 1.0},    {0.5, 1.0, 1.0},   {0.01, 0.5, 0.02},
                                   {1.0, 1.0, 1.0},     {1e-3, 10.0, 1.0}, {1e-13, 1.0, 1.0},
                                   {1.0e7, 1.5e7, 1.0}, {1.0e7, 0.3, 1.0}, {0.3, 0.7, 0.001},
                                   {0.3, 5.0e6, 1.0}};

model::ResidualAddParams modelParams(const Params &params, int64_t n) {
  model::ResidualAddParams p;
  p.lanes = params["Lanes"];
  p.aBits = params["ABits"];
  p.bBits = params["BBits"];
  p.outBits = params["OutBits"];
  p.n = n;
  return p;
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned lanes = unsigned(params["Lanes"]), aBits = unsigned(params["ABits"]),
                 bBits = unsigned(params["BBits"]), outBits = unsigned(params["OutBits"]);
  std::vector<num::ResidualAddScales> sets;
  for (const auto &t : kScaleTriples)
    sets.push_back(num::residualAddScales(t[0], t[1], t[2]));

  ElementwiseKernel k;
  k.lanes = lanes;
  k.inputs = {
      {SignalRef(m.a_valid_i, 1), SignalRef(m.a_ready_o, 1), SignalRef(m.a_data_i, lanes * aBits)},
      {SignalRef(m.b_valid_i, 1), SignalRef(m.b_ready_o, 1), SignalRef(m.b_data_i, lanes * bBits)}};
  k.inputBits = {aBits, bBits};
  k.output = {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
              SignalRef(m.data_o, lanes * outBits)};
  k.outputBits = outBits;
  k.scaleSets = sets.size();
  k.describeScaleSet = [&sets](size_t s) {
    return "(a " + std::to_string(sets[s].a.mantissa) + ">>" + std::to_string(sets[s].a.shift) +
           ", b " + std::to_string(sets[s].b.mantissa) + ">>" + std::to_string(sets[s].b.shift) +
           ")";
  };
  // The LLM top's descriptor -> port mapping.
  SidebandPorts ports({{"a_mantissa_i", SignalRef(m.a_mantissa_i, 24)},
                       {"a_shift_i", SignalRef(m.a_shift_i, 6)},
                       {"b_mantissa_i", SignalRef(m.b_mantissa_i, 24)},
                       {"b_shift_i", SignalRef(m.b_shift_i, 6)}});
  k.applyScales = [ports, &sets](size_t s) {
    ports.write(st::plan::residualAddSidebands(sets[s]));
  };
  k.golden = [&sets, outBits](size_t s, const std::vector<std::vector<int64_t>> &in) {
    const std::vector<int32_t> a(in[0].begin(), in[0].end()), b(in[1].begin(), in[1].end());
    const std::vector<int32_t> y = num::residualAdd(a, b, sets[s], outBits);
    return std::vector<int64_t>(y.begin(), y.end());
  };
  k.timing = [&params](int64_t n) { return model::residualAddTiming(modelParams(params, n)); };
  runElementwiseTest(h, k, options.tokens);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_COMPARE(cfg, Model, params)                                                             \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::residualAddResources(modelParams(params, 0)));
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
