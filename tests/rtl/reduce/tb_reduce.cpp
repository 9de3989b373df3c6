// Verilator test of st_reduce: timing against reduceTiming (D, II, L, tokens taken, tokens
// needed per output), then random outputs (input tiles with uniform, extreme, small and
// all-extreme codes, signed or unsigned per InSigned, so that sums and maxima saturate both
// ways) bit-exact against a C++ reference (exact 64-bit sum or max over the reduced dimension,
// then saturation to the signed or unsigned OutBits range) under random backpressure. Counts the
// saturated results and fails if none saturated.
// --compare-synth REPORT prints the resource estimate beside Yosys.
#include <cstring>

#include "config_dispatch.h"
#include "model/reduce_model.h"
#include "reduce_configs.h"
#include "synth_compare.h"
#include "tile_kernel_bench.h"

using namespace st::tb;
namespace model = st::model;

namespace {

model::ReduceParams modelParams(const Params &params, int64_t outputs) {
  model::ReduceParams p;
  p.outerLanes = params["OuterLanes"];
  p.reduceLanes = params["ReduceLanes"];
  p.innerLanes = params["InnerLanes"];
  p.tokens = params["Tokens"];
  p.inBits = params["InBits"];
  p.outBits = params["OutBits"];
  p.combiner = model::ReduceCombiner(params["Combiner"]);
  p.inSigned = params.get("InSigned", 1) != 0;
  p.outSigned = params.get("OutSigned", 1) != 0;
  p.outputTokens = outputs;
  return p;
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const model::ReduceParams p = modelParams(params, 1);
  const size_t outer = size_t(p.outerLanes), lanes = size_t(p.reduceLanes),
               inner = size_t(p.innerLanes), tokens = size_t(p.tokens);
  const unsigned inBits = unsigned(p.inBits), outBits = unsigned(p.outBits);
  const bool isMax = p.combiner == model::ReduceCombiner::Max;
  uint64_t saturated = 0, elements = 0;

  TileKernel k;
  k.inputs = {{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1),
               SignalRef(m.data_i, unsigned(outer * lanes * inner) * inBits)}};
  k.output = {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
              SignalRef(m.data_o, unsigned(outer * inner) * outBits)};
  k.invocation = [&](int64_t outputs, std::mt19937_64 &rng) {
    Invocation inv;
    inv.inputs.resize(1);
    for (int64_t o = 0; o < outputs; ++o) {
      // x[t][o][r][i]: the reduced dimension is (t, r) of extent tokens*lanes.
      const size_t perToken = outer * lanes * inner;
      const std::vector<int64_t> x =
          randomCodes(tokens * perToken, CodeRange::of(inBits, p.inSigned), rng);
      for (size_t t = 0; t < tokens; ++t)
        inv.inputs[0].push_back(packElements(x, t * perToken, perToken, inBits));
      std::vector<int64_t> y(outer * inner);
      for (size_t oi = 0; oi < outer; ++oi)
        for (size_t ii = 0; ii < inner; ++ii) {
          int64_t acc = isMax ? INT64_MIN : 0;
          for (size_t t = 0; t < tokens; ++t)
            for (size_t r = 0; r < lanes; ++r) {
              const int64_t v = x[t * perToken + (oi * lanes + r) * inner + ii];
              acc = isMax ? std::max(acc, v) : acc + v;
            }
          y[oi * inner + ii] = saturateCode(acc, outBits, p.outSigned);
          saturated += y[oi * inner + ii] != acc;
          ++elements;
        }
      inv.expected.push_back(packElements(y, 0, y.size(), outBits));
    }
    return inv;
  };
  k.timing = [&params](int64_t outputs) {
    return model::reduceTiming(modelParams(params, outputs));
  };
  runTileKernelTest(h, k, options.tokens);
  std::printf("%llu of %llu results saturated\n", (unsigned long long)saturated,
              (unsigned long long)elements);
  if (saturated == 0)
    h.fail("no result saturated: the saturation was not exercised");
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_COMPARE(cfg, Model, params)                                                             \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::reduceResources(modelParams(params, 1)));
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
