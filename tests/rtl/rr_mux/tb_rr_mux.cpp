// Verilator test of st_rr_mux: >= 10,000 output tokens under random backpressure on every input
// and on the output.
//   Strict=1: the output is the interleave in0[0], in1[0], ..., inN-1[0], in0[1], ...
//   Strict=0: tokens are spread unevenly over the inputs; every token arrives exactly once, the
//             order of each input is kept, valid_o is high whenever any input has a token
//             (work conserving), and an input holding a token is passed over at most N-1 times.
// Both: each output token is exactly one input handshake, on input idx_o (checked each cycle);
// the output obeys the valid/ready rules; one token per cycle in free flow.
#include "config_dispatch.h"
#include "multi_stream_bench.h"
#include "rr_mux_configs.h"

using namespace st::tb;

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned inputs = static_cast<unsigned>(params["N"]);
  const unsigned width = static_cast<unsigned>(params["Width"]);
  const bool strict = params.get("Strict", 1) != 0;
  const unsigned idxWidth = inputs > 1 ? 32 - __builtin_clz(inputs - 1) : 1;
  StreamPins in{SignalRef(m.valid_i, inputs), SignalRef(m.ready_o, inputs),
                SignalRef(m.data_i, inputs * width)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.data_o, width)};
  SignalRef idx(m.idx_o, idxWidth);

  MultiStreamBench bench(options);
  std::vector<StreamDriver *> drivers;
  for (unsigned i = 0; i < inputs; ++i)
    drivers.push_back(&bench.addDriver("in" + std::to_string(i), branchPins(in, i, width)));
  // Strict: one scoreboard holding the interleave. Arbiter: one per input, selected by idx_o.
  std::vector<Scoreboard *> boards;
  if (strict)
    boards.push_back(&bench.addScoreboard("out"));
  else
    for (unsigned i = 0; i < inputs; ++i)
      boards.push_back(&bench.addScoreboard("out(from in" + std::to_string(i) + ")"));
  StreamSink &sink = bench.addSink("out", out);
  sink.onToken([&](const Bits &t) {
    uint64_t source = strict ? 0 : idx.readU64();
    if (source < boards.size())
      boards[source]->observe(t); // an out-of-range idx_o is reported by the handshake check
  });

  std::vector<uint64_t> passedOver(inputs, 0);
  uint64_t outputTokens = 0;
  bench.addCheck("handshakes", [&]() -> std::string {
    const Bits valid = in.valid.read(), ready = in.ready.read();
    const bool outFire = out.valid.readBool() && out.ready.readBool();
    unsigned fired = 0, firedInput = 0;
    bool anyValid = false;
    for (unsigned i = 0; i < inputs; ++i) {
      anyValid |= valid.bit(i);
      if (valid.bit(i) && ready.bit(i)) {
        ++fired;
        firedInput = i;
      }
    }
    const std::string at = " (output token #" + std::to_string(outputTokens) + ")";
    if (fired != (outFire ? 1u : 0u))
      return std::to_string(fired) + " input handshake(s) in a cycle with " +
             (outFire ? "an" : "no") + " output handshake" + at;
    if (!strict && anyValid && !out.valid.readBool())
      return "an input has a token but valid_o is low: not work-conserving" + at;
    if (!outFire)
      return {};
    if (idx.readU64() != firedInput)
      return "idx_o is " + std::to_string(idx.readU64()) + " but the token came from input " +
             std::to_string(firedInput) + at;
    for (unsigned i = 0; i < inputs; ++i) {
      if (!valid.bit(i) || i == firedInput) {
        passedOver[i] = 0;
      } else if (++passedOver[i] > inputs - 1) {
        return "input " + std::to_string(i) + " holds a token but was passed over " +
               std::to_string(passedOver[i]) + " times in a row: starved" + at;
      }
    }
    ++outputTokens;
    return {};
  });

  std::mt19937_64 rng(options.seed);
  bench.run(h, options.tokens, [&](uint64_t count) -> uint64_t {
    if (strict) {
      const uint64_t perInput = (count + inputs - 1) / inputs;
      for (uint64_t k = 0; k < perInput; ++k)
        for (unsigned i = 0; i < inputs; ++i) {
          Bits token = Bits::random(width, rng);
          drivers[i]->push(token);
          boards[0]->expect(token);
        }
      return perInput * inputs;
    }
    // Uneven load: each token goes to an input drawn with a random weight per phase, so some
    // inputs run dry while others still have tokens.
    std::vector<double> weights(inputs);
    std::uniform_real_distribution<double> weight(0.05, 1.0);
    for (double &w : weights)
      w = weight(rng);
    std::discrete_distribution<unsigned> pick(weights.begin(), weights.end());
    for (uint64_t k = 0; k < count; ++k) {
      unsigned i = pick(rng);
      Bits token = Bits::random(width, rng);
      drivers[i]->push(token);
      boards[i]->expect(token);
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
