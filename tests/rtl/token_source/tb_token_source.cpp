// Verilator test of st_token_source: many runs with random n_prompt P and steps T (P = 1 and
// P = T included), random gaps before each start, random valid on the prompt and argmax inputs
// and random ready on the token and generated outputs. The argmax is causal as in the design:
// a behavioural "block + argmax" answers every emitted token with a random id after a random
// latency. Checked: the token stream is prompt[0 .. P-1] then the argmax ids of steps
// P-1 .. T-2, the generated stream is the argmax ids of steps P-1 .. T-1 (scoreboards), and in
// every cycle every output and ready equals st::model::TokenSourceCycleModel; a free-flowing
// first run asserts the latencies of st::model::tokenSourceTiming. >= 1,000 tokens in all.
#include <cstdio>
#include <deque>
#include <random>

#include "config_dispatch.h"
#include "harness.h"
#include "model/token_source_model.h"
#include "scoreboard.h"
#include "stream_sink.h"
#include "token_source_configs.h"
#include "watchdog.h"

using namespace st::tb;
using st::model::ArgmaxRoute;
using st::model::TokenSourceCycleModel;

namespace {

struct Run {
  int64_t nPrompt, numSteps;
};

/// Drives start, the prompt ids and the causal argmax; compares with the cycle model.
template <class Model> class TokenSourceEnv : public Component {
public:
  TokenSourceEnv(Model &m, unsigned idBits, unsigned stepBits, Scoreboard &tokens,
                 Scoreboard &generated, uint64_t seed)
      : m_(m), idMask_(idBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << idBits) - 1),
        stepMask_((uint64_t(1) << stepBits) - 1), tokenBoard_(tokens), genBoard_(generated),
        rng_(seed) {}

  void pushRun(Run r) { runs_.push_back(r); }
  void setRates(double startGap, double promptValid, double argmaxValid, int64_t maxLatency) {
    gapProbability_ = startGap;
    promptValid_ = promptValid;
    argmaxValid_ = argmaxValid;
    maxLatency_ = maxLatency;
  }
  bool idle() const { return runs_.empty() && !offering_ && !model_.running(); }

  // Cycles of the last run's events, for the free-flow timing check.
  int64_t startCycle = -1, doneCycle = -1;
  std::vector<int64_t> tokenCycles, argmaxCycles, genCycles;
  uint64_t runsDone = 0;

  void reset() override {
    model_ = TokenSourceCycleModel();
    m_.start_valid_i = 0;
    m_.prompt_valid_i = 0;
    m_.argmax_valid_i = 0;
  }

  void drive(uint64_t cycle) override {
    if (!offering_ && !runs_.empty() && !model_.running() &&
        !std::bernoulli_distribution(gapProbability_)(rng_))
      offering_ = true;
    m_.start_valid_i = offering_;
    m_.n_prompt_i = static_cast<uint32_t>((offering_ ? runs_.front().nPrompt : rng_()) & stepMask_);
    m_.num_steps_i =
        static_cast<uint32_t>((offering_ ? runs_.front().numSteps : rng_()) & stepMask_);
    if (!promptPresenting_ && !prompts_.empty())
      promptPresenting_ = std::bernoulli_distribution(promptValid_)(rng_);
    m_.prompt_valid_i = promptPresenting_;
    m_.prompt_data_i =
        static_cast<uint32_t>(promptPresenting_ ? prompts_.front() : rng_() & idMask_);
    if (!argmaxPresenting_ && !argmaxes_.empty() &&
        argmaxes_.front().readyCycle <= static_cast<int64_t>(cycle))
      argmaxPresenting_ = std::bernoulli_distribution(argmaxValid_)(rng_);
    m_.argmax_valid_i = argmaxPresenting_;
    m_.argmax_data_i =
        static_cast<uint32_t>(argmaxPresenting_ ? argmaxes_.front().id : rng_() & idMask_);
  }

  void sample(uint64_t cycle) override {
    if (!error_.empty())
      return;
    TokenSourceCycleModel::Inputs in;
    in.startValid = m_.start_valid_i;
    in.nPrompt = m_.n_prompt_i;
    in.numSteps = m_.num_steps_i;
    in.promptValid = m_.prompt_valid_i;
    in.promptData = m_.prompt_data_i;
    in.argmaxValid = m_.argmax_valid_i;
    in.argmaxData = m_.argmax_data_i;
    in.tokenReady = m_.token_ready_i;
    in.genReady = m_.gen_ready_i;
    const auto want = model_.outputs(in);
    auto check = [&](const char *name, uint64_t got, uint64_t expected) {
      if (error_.empty() && got != expected)
        error_ = std::string(name) + " is " + std::to_string(got) + ", the cycle model says " +
                 std::to_string(expected) + " (run #" + std::to_string(runsDone) + ", step " +
                 std::to_string(steps_) + ")";
    };
    check("start_ready_o", m_.start_ready_o, want.startReady);
    check("prompt_ready_o", m_.prompt_ready_o, want.promptReady);
    check("argmax_ready_o", m_.argmax_ready_o, want.argmaxReady);
    check("token_valid_o", m_.token_valid_o, want.tokenValid);
    check("gen_valid_o", m_.gen_valid_o, want.genValid);
    check("done_o", m_.done_o, want.done);
    if (want.tokenValid)
      check("token_data_o", m_.token_data_o, want.tokenData);
    if (want.genValid)
      check("gen_data_o", m_.gen_data_o, want.genData);
    if (!error_.empty())
      return;

    const int64_t now = static_cast<int64_t>(cycle);
    if (in.startValid && m_.start_ready_o) {
      run_ = runs_.front();
      runs_.pop_front();
      offering_ = false;
      steps_ = 0;
      argmaxSteps_ = 0;
      startCycle = now;
      doneCycle = -1;
      tokenCycles.clear();
      argmaxCycles.clear();
      genCycles.clear();
      for (int64_t k = 0; k < run_.nPrompt; ++k) {
        prompts_.push_back(rng_() & idMask_);
        tokenBoard_.expect(Bits(idWidth(), prompts_.back()));
      }
    }
    if (in.promptValid && m_.prompt_ready_o) {
      prompts_.pop_front();
      promptPresenting_ = false;
    }
    if (in.argmaxValid && m_.argmax_ready_o) {
      argmaxes_.pop_front();
      argmaxPresenting_ = false;
      argmaxCycles.push_back(now);
    }
    if (m_.token_valid_o && in.tokenReady) {
      // The block and argmax answer step `steps_` after a random latency.
      tokenCycles.push_back(now);
      const uint64_t id = rng_() & idMask_;
      const int64_t latency = std::uniform_int_distribution<int64_t>(1, maxLatency_)(rng_);
      argmaxes_.push_back({now + latency, id});
      switch (st::model::tokenSourceArgmaxRoute(run_.nPrompt, run_.numSteps, steps_)) {
      case ArgmaxRoute::Drop:
        break;
      case ArgmaxRoute::TokenAndGenerated:
        tokenBoard_.expect(Bits(idWidth(), id));
        genBoard_.expect(Bits(idWidth(), id));
        break;
      case ArgmaxRoute::GeneratedOnly:
        genBoard_.expect(Bits(idWidth(), id));
        break;
      }
      ++steps_;
    }
    if (m_.gen_valid_o && in.genReady)
      genCycles.push_back(now);
    if (want.done) {
      doneCycle = now;
      ++runsDone;
    }
    model_.clock(in);
  }

  std::string error() const override { return error_; }

private:
  unsigned idWidth() const { return static_cast<unsigned>(__builtin_popcountll(idMask_)); }
  struct Argmax {
    int64_t readyCycle;
    uint64_t id;
  };
  Model &m_;
  uint64_t idMask_, stepMask_;
  Scoreboard &tokenBoard_, &genBoard_;
  std::mt19937_64 rng_;
  TokenSourceCycleModel model_;
  std::deque<Run> runs_;
  Run run_{1, 1};
  bool offering_ = false, promptPresenting_ = false, argmaxPresenting_ = false;
  std::deque<uint64_t> prompts_;
  std::deque<Argmax> argmaxes_;
  int64_t steps_ = 0, argmaxSteps_ = 0;
  double gapProbability_ = 0, promptValid_ = 1, argmaxValid_ = 1;
  int64_t maxLatency_ = 1;
  std::string error_;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned idBits = static_cast<unsigned>(params["IdBits"]);
  StreamPins token{SignalRef(m.token_valid_o, 1), SignalRef(m.token_ready_i, 1),
                   SignalRef(m.token_data_o, idBits)};
  StreamPins gen{SignalRef(m.gen_valid_o, 1), SignalRef(m.gen_ready_i, 1),
                 SignalRef(m.gen_data_o, idBits)};
  StreamPins prompt{SignalRef(m.prompt_valid_i, 1), SignalRef(m.prompt_ready_o, 1),
                    SignalRef(m.prompt_data_i, idBits)};
  StreamPins argmax{SignalRef(m.argmax_valid_i, 1), SignalRef(m.argmax_ready_o, 1),
                    SignalRef(m.argmax_data_i, idBits)};
  Scoreboard tokenBoard("token"), genBoard("gen");
  StreamSink tokenSink("token", token, options.seed * 5 + 2);
  StreamSink genSink("gen", gen, options.seed * 7 + 4);
  tokenSink.onToken([&](const Bits &t) { tokenBoard.observe(t); });
  genSink.onToken([&](const Bits &t) { genBoard.observe(t); });
  TokenSourceEnv<Model> env(m, idBits, static_cast<unsigned>(params["StepBits"]), tokenBoard,
                            genBoard, options.seed * 11 + 3);
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch("prompt", prompt);
  watchdog.watch("argmax", argmax);
  watchdog.watch(tokenSink.checker());
  watchdog.watch(genSink.checker());
  for (Component *c : std::initializer_list<Component *>{&tokenSink, &genSink, &env, &tokenBoard,
                                                         &genBoard, &watchdog})
    h.add(*c);
  h.reset();

  // Free flow: P = 5, T = 9, every stream ready, the argmax 1 .. 3 cycles after each token.
  {
    const int64_t P = 5, T = 9;
    env.setRates(0.0, 1.0, 1.0, 3);
    env.pushRun({P, T});
    h.runUntil([&] { return env.idle() && env.doneCycle >= 0; }, 10000);
    const auto timing = st::model::tokenSourceTiming();
    std::string e;
    for (int64_t k = 0; k < P; ++k)
      if (env.tokenCycles[k] != env.startCycle + 1 + timing.firstOutputDelay + k)
        e += " prompt id " + std::to_string(k) + " left at +" +
             std::to_string(env.tokenCycles[k] - env.startCycle) + ";";
    for (int64_t t = P; t < T; ++t)
      if (env.tokenCycles[t] != env.argmaxCycles[t - 1] + timing.firstOutputDelay)
        e += " token " + std::to_string(t) + " left " +
             std::to_string(env.tokenCycles[t] - env.argmaxCycles[t - 1]) +
             " cycles after its argmax;";
    for (size_t i = 0; i < env.genCycles.size(); ++i)
      if (env.genCycles[i] != env.argmaxCycles[P - 1 + i] + timing.firstOutputDelay)
        e += " generated token " + std::to_string(i) + " late;";
    if (static_cast<int64_t>(env.genCycles.size()) != st::model::tokenSourceGeneratedTokens(P, T))
      e += " " + std::to_string(env.genCycles.size()) + " generated tokens;";
    if (env.doneCycle != env.genCycles.back() + 1)
      e += " done_o " + std::to_string(env.doneCycle - env.genCycles.back()) +
           " cycles after the last generated token;";
    std::printf("  free flow P=%lld T=%lld: prompt ids at +%lld .. +%lld after start, done %lld "
                "cycles after start\n",
                static_cast<long long>(P), static_cast<long long>(T),
                static_cast<long long>(env.tokenCycles[0] - env.startCycle),
                static_cast<long long>(env.tokenCycles[P - 1] - env.startCycle),
                static_cast<long long>(env.doneCycle - env.startCycle));
    if (!e.empty())
      h.fail("free-flowing run does not match tokenSourceTiming:" + e);
  }

  struct Phase {
    const char *name;
    double gap, prompt, argmax, token, gen;
    int64_t latency;
  };
  const Phase phases[] = {{"slow outputs", 0.3, 1.0, 1.0, 0.25, 0.25, 4},
                          {"slow inputs", 0.3, 0.25, 0.25, 1.0, 1.0, 12},
                          {"random", -1, -1, -1, -1, -1, 30}};
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> rate(0.15, 1.0);
  auto pick = [&](double p) { return p < 0 ? rate(rng) : p; };
  uint64_t total = 0;
  for (const Phase &ph : phases) {
    env.setRates(pick(ph.gap) * 0.9, pick(ph.prompt), pick(ph.argmax), ph.latency);
    tokenSink.setReadyProbability(pick(ph.token));
    genSink.setReadyProbability(pick(ph.gen));
    uint64_t queued = 0, runs = 0;
    while (queued < options.tokens / 3 + 1) {
      const int64_t P = std::uniform_int_distribution<int64_t>(1, 8)(rng);
      const int64_t T = P + std::uniform_int_distribution<int64_t>(0, 8)(rng);
      env.pushRun({P, T});
      queued += static_cast<uint64_t>(T);
      ++runs;
    }
    h.runUntil([&] { return env.idle(); }, queued * 500 + 10000);
    total += queued;
    std::printf("  phase %-13s %4llu runs, %5llu tokens\n", ph.name,
                static_cast<unsigned long long>(runs), static_cast<unsigned long long>(queued));
  }
  for (int i = 0; i < 32; ++i)
    h.step();
  for (Scoreboard *b : {&tokenBoard, &genBoard}) {
    std::string e = b->finalCheck();
    if (!e.empty())
      h.fail(e);
  }
  std::printf("%llu runs, %llu token ids and %llu generated tokens checked in order, %llu cycles\n",
              static_cast<unsigned long long>(env.runsDone),
              static_cast<unsigned long long>(tokenBoard.matched()),
              static_cast<unsigned long long>(genBoard.matched()),
              static_cast<unsigned long long>(h.cycle()));
  std::printf("%s", watchdog.stallReport().c_str());
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
