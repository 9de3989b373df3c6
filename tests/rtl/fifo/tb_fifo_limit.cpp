// Verilator test of st_fifo's run-time depth limit (LimitPort = 1): for each reference depth D
// of st_fifo_limit_pairs, a FIFO of Depth = D and a deep FIFO limited to D get the same random
// traffic (a producer offering tokens with random gaps and holding each until accepted, a
// consumer with random ready), and their ready_o, valid_o, count_o and, when valid, data_o must
// agree in every cycle. The limited FIFO must therefore reproduce the small FIFO's timing cycle
// for cycle: what the compiler's FIFO-depth search build relies on (docs/fifo-sizing.md).
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "config_dispatch.h"
#include "fifo_limit_configs.h"
#include "harness.h"
#include "signal_ref.h"

using namespace st::tb;

namespace {

/// Must match depth(k) in st_fifo_limit_pairs.sv.
const std::vector<uint64_t> kDepths = {1, 2, 3, 4, 5, 17, 64};

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const unsigned width = static_cast<unsigned>(params["Width"]);
  const size_t pairs = kDepths.size();
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  Model &m = h.dut();
  const unsigned n = static_cast<unsigned>(pairs);
  SignalRef validIn(m.valid_i, n), dataIn(m.data_i, n * width), readyIn(m.ready_i, n),
      limits(m.limits_i, n * 16);
  SignalRef refReady(m.ref_ready_o, n), refValid(m.ref_valid_o, n),
      refData(m.ref_data_o, n * width), refCount(m.ref_count_o, n * 16);
  SignalRef limReady(m.lim_ready_o, n), limValid(m.lim_valid_o, n),
      limData(m.lim_data_o, n * width), limCount(m.lim_count_o, n * 16);
  for (size_t k = 0; k < pairs; ++k)
    limits.slice(static_cast<unsigned>(16 * k), 16).write(kDepths[k]);
  validIn.write(0);
  readyIn.write(0);
  h.reset();

  std::mt19937_64 rng(options.seed);
  std::vector<bool> offering(pairs, false);
  std::vector<uint64_t> payload(pairs, 0), accepted(pairs, 0), delivered(pairs, 0);
  std::vector<uint64_t> fullCycles(pairs, 0);
  // Phases of different pressure: a fast producer and a slow consumer fill the FIFOs, a slow
  // producer and a fast consumer drain them, random otherwise.
  const uint64_t cycles = std::max<uint64_t>(options.tokens, 4000);
  for (uint64_t c = 0; c < cycles; ++c) {
    const int phase = static_cast<int>((c / 500) % 3);
    const double pValid = phase == 0 ? 0.95 : phase == 1 ? 0.3 : 0.6;
    const double pReady = phase == 0 ? 0.3 : phase == 1 ? 0.95 : 0.6;
    std::uniform_real_distribution<double> u(0, 1);
    for (size_t k = 0; k < pairs; ++k) {
      const unsigned ku = static_cast<unsigned>(k);
      if (!offering[k] && u(rng) < pValid) {
        offering[k] = true;
        payload[k] = rng() & ((uint64_t{1} << width) - 1);
      }
      validIn.slice(ku, 1).write(offering[k] ? 1 : 0);
      dataIn.slice(ku * width, width).write(payload[k]);
      readyIn.slice(ku, 1).write(u(rng) < pReady ? 1 : 0);
    }
    m.eval();
    for (size_t k = 0; k < pairs; ++k) {
      const unsigned ku = static_cast<unsigned>(k);
      const bool rr = refReady.slice(ku, 1).readBool(), lr = limReady.slice(ku, 1).readBool();
      const bool rv = refValid.slice(ku, 1).readBool(), lv = limValid.slice(ku, 1).readBool();
      const uint64_t rc = refCount.slice(ku * 16, 16).readU64();
      const uint64_t lc = limCount.slice(ku * 16, 16).readU64();
      const uint64_t rd = refData.slice(ku * width, width).readU64();
      const uint64_t ld = limData.slice(ku * width, width).readU64();
      if (rr != lr || rv != lv || rc != lc || (rv && rd != ld))
        h.fail("depth " + std::to_string(kDepths[k]) + ": Depth=D FIFO ready " +
               std::to_string(rr) + " valid " + std::to_string(rv) + " count " +
               std::to_string(rc) + " data " + std::to_string(rd) + ", limited deep FIFO ready " +
               std::to_string(lr) + " valid " + std::to_string(lv) + " count " +
               std::to_string(lc) + " data " + std::to_string(ld));
      if (offering[k] && rr) {
        offering[k] = false;
        ++accepted[k];
      }
      if (rv && readyIn.slice(ku, 1).readBool())
        ++delivered[k];
      if (rc == kDepths[k])
        ++fullCycles[k];
    }
    h.step();
  }
  for (size_t k = 0; k < pairs; ++k) {
    std::printf("depth %llu: %llu tokens in, %llu out, full in %llu cycles: identical\n",
                static_cast<unsigned long long>(kDepths[k]),
                static_cast<unsigned long long>(accepted[k]),
                static_cast<unsigned long long>(delivered[k]),
                static_cast<unsigned long long>(fullCycles[k]));
    // The traffic must have filled every FIFO, or the limit was never exercised.
    if (fullCycles[k] == 0 || delivered[k] < 500)
      h.fail("depth " + std::to_string(kDepths[k]) + ": the traffic never filled the FIFO");
  }
}

} // namespace

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
