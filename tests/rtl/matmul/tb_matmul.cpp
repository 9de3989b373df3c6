// Verilator test of st_matmul: timing against matmulTiming (D, II, L, tokens per port, tokens
// needed per output), then random C tiles (A and B tiles with uniform, extreme, small and
// all-extreme codes, signed or unsigned per ASigned/BSigned, so that C saturates both ways)
// bit-exact against a C++ reference (exact 64-bit sum over K, then saturation to the signed or
// unsigned OutBits range) under random backpressure on A, B and C.
// Counts the saturated C elements and fails if none saturated, so the saturation is exercised.
// --compare-synth REPORT prints the resource estimate beside Yosys.
#include <cstring>

#include "config_dispatch.h"
#include "matmul_configs.h"
#include "model/matmul_model.h"
#include "synth_compare.h"
#include "tile_kernel_bench.h"

using namespace st::tb;
namespace model = st::model;

namespace {

model::MatmulParams modelParams(const Params &params, int64_t outputTiles) {
  model::MatmulParams p;
  p.tm = params["TM"];
  p.tn = params["TN"];
  p.tk = params["TK"];
  p.kTiles = params["KTiles"];
  p.aBits = params["ABits"];
  p.bBits = params["BBits"];
  p.outBits = params["OutBits"];
  p.aSigned = params.get("ASigned", 1) != 0;
  p.bSigned = params.get("BSigned", 1) != 0;
  p.outSigned = params.get("OutSigned", 1) != 0;
  p.outputTiles = outputTiles;
  return p;
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const model::MatmulParams p = modelParams(params, 1);
  const size_t tm = size_t(p.tm), tn = size_t(p.tn), tk = size_t(p.tk), kt = size_t(p.kTiles);
  const unsigned aBits = unsigned(p.aBits), bBits = unsigned(p.bBits),
                 outBits = unsigned(p.outBits);
  uint64_t saturated = 0, elements = 0;

  TileKernel k;
  k.inputs = {{SignalRef(m.a_valid_i, 1), SignalRef(m.a_ready_o, 1),
               SignalRef(m.a_data_i, unsigned(tm * tk) * aBits)},
              {SignalRef(m.b_valid_i, 1), SignalRef(m.b_ready_o, 1),
               SignalRef(m.b_data_i, unsigned(tk * tn) * bBits)}};
  k.output = {SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
              SignalRef(m.data_o, unsigned(tm * tn) * outBits)};
  k.invocation = [&](int64_t outputs, std::mt19937_64 &rng) {
    Invocation inv;
    inv.inputs.resize(2);
    for (int64_t o = 0; o < outputs; ++o) {
      // A is tm x (kt*tk), B is (kt*tk) x tn, both row-major; pair j takes K columns j*tk..
      const std::vector<int64_t> a =
          randomCodes(tm * kt * tk, CodeRange::of(aBits, p.aSigned), rng);
      const std::vector<int64_t> b =
          randomCodes(kt * tk * tn, CodeRange::of(bBits, p.bSigned), rng);
      for (size_t j = 0; j < kt; ++j) {
        std::vector<int64_t> aTile, bTile;
        for (size_t mi = 0; mi < tm; ++mi)
          for (size_t ki = 0; ki < tk; ++ki)
            aTile.push_back(a[mi * kt * tk + j * tk + ki]);
        for (size_t ki = 0; ki < tk; ++ki)
          for (size_t ni = 0; ni < tn; ++ni)
            bTile.push_back(b[(j * tk + ki) * tn + ni]);
        inv.inputs[0].push_back(packElements(aTile, 0, aTile.size(), aBits));
        inv.inputs[1].push_back(packElements(bTile, 0, bTile.size(), bBits));
      }
      std::vector<int64_t> c(tm * tn);
      for (size_t mi = 0; mi < tm; ++mi)
        for (size_t ni = 0; ni < tn; ++ni) {
          int64_t sum = 0;
          for (size_t ki = 0; ki < kt * tk; ++ki)
            sum += a[mi * kt * tk + ki] * b[ki * tn + ni];
          c[mi * tn + ni] = saturateCode(sum, outBits, p.outSigned);
          saturated += c[mi * tn + ni] != sum;
          ++elements;
        }
      inv.expected.push_back(packElements(c, 0, c.size(), outBits));
    }
    return inv;
  };
  k.timing = [&params](int64_t outputs) {
    return model::matmulTiming(modelParams(params, outputs));
  };
  runTileKernelTest(h, k, options.tokens);
  std::printf("%llu of %llu C elements saturated\n", (unsigned long long)saturated,
              (unsigned long long)elements);
  if (saturated == 0)
    h.fail("no C element saturated: the saturation was not exercised");
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_COMPARE(cfg, Model, params)                                                             \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::matmulResources(modelParams(params, 1)));
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
