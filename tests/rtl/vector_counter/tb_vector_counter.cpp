// Verilator test of st_vector_counter: random beats (and rare clears, each with a random first
// step S, 0 half of the time) for --tokens cycles; in every cycle step_o, layer_o and sub_o equal
// a reference counter: token t of the stream since the last clear belongs to vector
// t / VecTokens, whose sub is v % Subs, layer (v / Subs) % Layers and step
// S + v / (Subs * Layers) (modulo 2^StepBits).
#include <random>

#include "config_dispatch.h"
#include "harness.h"
#include "vector_counter_configs.h"

using namespace st::tb;

namespace {

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const int64_t vecTokens = params.get("VecTokens", 1), subs = params.get("Subs", 1),
                layers = params.get("Layers", 1), stepBits = params.get("StepBits", 16);
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  Model &m = h.dut();
  m.clear_i = 0;
  m.beat_i = 0;
  m.first_step_i = 0;
  h.reset();
  std::mt19937_64 rng(options.seed);
  int64_t tokens = 0; // tokens since the last clear
  int64_t first = 0;  // the step the last clear started at
  uint64_t clears = 0;
  for (uint64_t cycle = 0; cycle < options.tokens; ++cycle) {
    const int64_t vector = tokens / vecTokens;
    const uint64_t step =
        static_cast<uint64_t>(first + vector / (subs * layers)) & ((1u << stepBits) - 1);
    if (m.step_o != step || m.layer_o != (vector / subs) % layers || m.sub_o != vector % subs)
      h.fail("after " + std::to_string(tokens) + " beats: got (step " + std::to_string(m.step_o) +
             ", layer " + std::to_string(m.layer_o) + ", sub " + std::to_string(m.sub_o) +
             "), expected (" + std::to_string(step) + ", " +
             std::to_string((vector / subs) % layers) + ", " + std::to_string(vector % subs) + ")");
    const bool clear = rng() % 997 == 0;
    const bool beat = rng() % 4 != 0;
    const int64_t start = rng() % 2 ? 0 : static_cast<int64_t>(rng() % (1u << stepBits));
    m.clear_i = clear;
    m.beat_i = beat;
    m.first_step_i = static_cast<decltype(+m.first_step_i)>(start);
    h.step();
    tokens = clear ? 0 : tokens + beat;
    first = clear ? start : first;
    clears += clear;
  }
  std::printf("st_vector_counter: %llu cycles, %llu clears, outputs equal the reference\n",
              static_cast<unsigned long long>(options.tokens),
              static_cast<unsigned long long>(clears));
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
