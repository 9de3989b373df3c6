// Verilator test of st_requantize: timing against requantizeTiming, then >= 1,000 random
// vectors with extreme values and scale sets from tiny (shift 63) to shift 0, bit-exact against
// st::numerics::requantize under random backpressure. Where the golden model throws because
// the result leaves int64 (wide inputs, shift 0) the kernel must saturate, and the test expects
// that. --compare-synth REPORT prints the resource estimate beside Yosys.
#include <cstring>
#include <stdexcept>

#include "config_dispatch.h"
#include "elementwise_bench.h"
#include "model/elementwise_model.h"
#include "numerics/golden_ops.h"
#include "requantize_configs.h"
#include "synth_compare.h"

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

namespace {

/// Real multipliers: 0.5 and 2^-10 (a rounding tie on every other value), typical s32 -> s8, 1/3,
/// unity, shift 0 (>= 2^23), below 2^-40 (mantissa
/// loses normalization, shift 63), 2^-30.
const double kMultipliers[] = {0.5, 1.0 / 1024, 1.0 / 4096, 1.0 / 3, 1.0, 1.0e7, 1.0e-15, 9.3e-10};

model::RequantizeParams modelParams(const Params &params, int64_t n) {
  model::RequantizeParams p;
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
  std::vector<num::FixedScale> sets;
  for (double multiplier : kMultipliers)
    sets.push_back(num::fixedScaleFromReal(multiplier));

  ElementwiseKernel k;
  k.lanes = lanes;
  k.inputs = {
      {SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1), SignalRef(m.data_i, lanes * inBits)}};
  k.inputBits = {inBits};
  k.output = {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
              SignalRef(m.data_o, lanes * outBits)};
  k.outputBits = outBits;
  k.scaleSets = sets.size();
  k.describeScaleSet = [](size_t s) { return std::to_string(kMultipliers[s]); };
  k.applyScales = [&m, &sets](size_t s) {
    m.mantissa_i = sets[s].mantissa;
    m.shift_i = sets[s].shift;
  };
  k.golden = [&sets, outBits](size_t s, const std::vector<std::vector<int64_t>> &in) {
    std::vector<int64_t> y;
    for (int64_t x : in[0]) {
      try {
        y.push_back(num::requantize(std::vector<int64_t>{x}, sets[s], outBits).at(0));
      } catch (const std::overflow_error &) {
        // Beyond int64: the kernel saturates (st_requantize.sv).
        y.push_back(x < 0 ? num::minSigned(outBits) : num::maxSigned(outBits));
      }
    }
    return y;
  };
  k.timing = [&params](int64_t n) { return model::requantizeTiming(modelParams(params, n)); };
  runElementwiseTest(h, k, options.tokens);
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_COMPARE(cfg, Model, params)                                                             \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::requantizeResources(modelParams(params, 0)));
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
