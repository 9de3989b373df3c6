// Verilator test of st_step_sequencer: many runs (>= 1,000 commands in all) with random numbers
// of steps (0, 1 and FirstStep edge cases included), random first steps S (0 in half of the runs,
// else up to T + 1: a run resuming over a prefilled KV cache), random gaps before each start,
// random backpressure on the command stream and, with Gated=1, a gate counter that advances at a
// random rate. Every cycle the RTL's start_ready_o, valid_o, command payload (t, l, s, ROM word,
// last) and done_o are compared with st::model::StepSequencerCycleModel; a first free-flowing run
// (consumer always ready, gate open) asserts the exact timing of st::model::stepSequencerTiming.
// Independently of the model, each run's accepted commands are compared with the nested loops
// over (t, l, s) from max(FirstStep, S), and each command must not become valid before the gate
// count of the cycle before reached (t-S)*Layers + l + GateOffset.
// The ROM comes from a random $readmemh file written before the model's first evaluation
// (configs named file_*), or from the RomInit parameter.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <random>
#include <tuple>

#include "config_dispatch.h"
#include "harness.h"
#include "model/step_sequencer_model.h"
#include "step_sequencer_configs.h"
#include "stream_sink.h"
#include "watchdog.h"

using namespace st::tb;
using st::model::StepCommand;
using st::model::StepSequencerCycleModel;
using st::model::StepSequencerParams;

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string describe(const StepCommand &c, uint64_t word) {
  return "(t=" + std::to_string(c.step) + " l=" + std::to_string(c.layer) +
         " s=" + std::to_string(c.sub) + " word=" + hex(word) + (c.last ? " last" : "") + ")";
}

/// Drives start (with a queue of runs and random gaps) and the gate counter; compares the DUT's
/// outputs with the cycle model in every cycle and clocks the model with the sampled inputs.
template <class Model> class SequencerEnv : public Component {
public:
  SequencerEnv(Model &m, StepSequencerParams params, std::vector<uint64_t> rom, unsigned stepBits,
               unsigned gateBits, uint64_t seed)
      : m_(m), params_(params), rom_(std::move(rom)), stepMask_((uint64_t(1) << stepBits) - 1),
        gateMax_((int64_t(1) << gateBits) - 1), model_(params), rng_(seed) {}

  /// A run of steps startStep .. numSteps - 1.
  void pushRun(int64_t numSteps, int64_t startStep = 0) { runs_.push_back({numSteps, startStep}); }
  void setStartGapProbability(double p) { gapProbability_ = p; }
  void setGateRate(double p) {
    gateRate_ = p;
    gateOpen_ = false;
  }
  void openGate() { gateOpen_ = true; }
  bool idle() const { return runs_.empty() && !model_.pending() && !model_.outputs().valid; }
  uint64_t commands() const { return commands_; }
  uint64_t gateWaits() const { return gateWaits_; }
  int64_t lastStartCycle() const { return lastStart_; }
  int64_t firstCommandCycle() const { return firstCommand_; }
  int64_t lastCommandCycle() const { return lastCommand_; }
  int64_t doneCycle() const { return done_; }

  void reset() override {
    model_ = StepSequencerCycleModel(params_);
    order_.clear();
    m_.start_valid_i = 0;
    m_.gate_count_i = 0;
  }

  void drive(uint64_t) override {
    if (!offering_ && !runs_.empty() && !model_.pending() && !model_.outputs().valid) {
      std::bernoulli_distribution gap(gapProbability_);
      if (!gap(rng_)) {
        offering_ = true;
        gate_ = 0; // the gated counter starts again with the run, as the DMAs do
      }
    }
    m_.start_valid_i = offering_;
    m_.num_steps_i = static_cast<uint32_t>((offering_ ? runs_.front().first : rng_()) & stepMask_);
    m_.first_step_i =
        static_cast<uint32_t>((offering_ ? runs_.front().second : rng_()) & stepMask_);
    if (offering_ && gateOpen_)
      gate_ = gateMax_;
    else if (gate_ < gateMax_ && std::bernoulli_distribution(gateRate_)(rng_))
      ++gate_;
    m_.gate_count_i = static_cast<decltype(+m_.gate_count_i)>(gate_);
  }

  void sample(uint64_t cycle) override {
    if (!error_.empty())
      return;
    const auto want = model_.outputs();
    const bool valid = m_.valid_o, startReady = m_.start_ready_o, done = m_.done_o;
    const std::string at = " (command #" + std::to_string(commands_) + ")";
    if (startReady != want.startReady)
      error_ = "start_ready_o is " + std::to_string(startReady) + ", model says " +
               std::to_string(want.startReady) + at;
    else if (done != want.done)
      error_ =
          "done_o is " + std::to_string(done) + ", model says " + std::to_string(want.done) + at;
    else if (valid != want.valid)
      error_ = "valid_o is " + std::to_string(valid) + ", model says " +
               std::to_string(want.valid) + " for " +
               describe(want.command, rom_[want.command.romIndex]) +
               (params_.gated ? ", gate_count " + std::to_string(gate_) + ", next threshold " +
                                    std::to_string(model_.pendingThreshold())
                              : "") +
               at;
    if (!error_.empty())
      return;
    if (valid) {
      StepCommand got;
      got.step = m_.step_o;
      got.layer = m_.layer_o;
      got.sub = m_.sub_o;
      got.romIndex = want.command.romIndex;
      got.last = m_.last_o;
      const uint64_t word = static_cast<uint64_t>(m_.word_o);
      const uint64_t wantWord = rom_[want.command.romIndex];
      if (!(got == want.command) || word != wantWord)
        error_ = "command " + describe(got, word) + ", expected " +
                 describe(want.command, wantWord) + at;
    }
    if (params_.gated && model_.pending() && !want.valid && model_.pendingThreshold() > gate_)
      ++gateWaits_;
    // Independent of the model: the gate threshold when a command becomes valid, and the order.
    if (valid && (!prevValid_ || prevFire_) && params_.gated) {
      const int64_t threshold = (static_cast<int64_t>(m_.step_o) - runStart_) * params_.layers +
                                static_cast<int64_t>(m_.layer_o) + params_.gateOffset;
      if (prevGate_ < threshold)
        error_ = "command (t=" + std::to_string(m_.step_o) + " l=" + std::to_string(m_.layer_o) +
                 ") became valid with gate_count " + std::to_string(prevGate_) +
                 " below its threshold " + std::to_string(threshold) + at;
    }
    if (valid && m_.ready_i) {
      if (order_.empty()) {
        error_ = "a command beyond the run's last" + at;
      } else {
        const auto [t, l, s] = order_.front();
        order_.pop_front();
        if (int64_t(m_.step_o) != t || int64_t(m_.layer_o) != l || int64_t(m_.sub_o) != s ||
            bool(m_.last_o) != order_.empty() ||
            uint64_t(m_.word_o) != rom_[static_cast<size_t>(l * params_.subs + s)])
          error_ = "accepted command is not (t=" + std::to_string(t) + " l=" + std::to_string(l) +
                   " s=" + std::to_string(s) + ") of the nested loops" + at;
      }
    }
    if (done && !order_.empty())
      error_ = "done_o with " + std::to_string(order_.size()) + " commands still to come" + at;
    prevValid_ = valid;
    prevFire_ = valid && m_.ready_i;
    prevGate_ = gate_;
    const bool startFire = m_.start_valid_i && startReady;
    if (startFire) {
      runStart_ = runs_.front().second;
      for (int64_t t = std::max(params_.firstStep, runStart_); t < runs_.front().first; ++t)
        for (int64_t l = 0; l < params_.layers; ++l)
          for (int64_t s = 0; s < params_.subs; ++s)
            order_.push_back({t, l, s});
      runs_.pop_front();
      offering_ = false;
      lastStart_ = static_cast<int64_t>(cycle);
      firstCommand_ = lastCommand_ = done_ = -1;
    }
    if (valid && m_.ready_i) {
      ++commands_;
      if (firstCommand_ < 0)
        firstCommand_ = static_cast<int64_t>(cycle);
      lastCommand_ = static_cast<int64_t>(cycle);
    }
    if (done)
      done_ = static_cast<int64_t>(cycle);
    model_.clock(m_.start_valid_i, m_.num_steps_i, m_.first_step_i, gate_, m_.ready_i);
  }

  std::string error() const override { return error_; }

private:
  Model &m_;
  StepSequencerParams params_;
  std::vector<uint64_t> rom_;
  uint64_t stepMask_;
  int64_t gateMax_;
  StepSequencerCycleModel model_;
  std::mt19937_64 rng_;
  std::deque<std::pair<int64_t, int64_t>> runs_;            // (T, S) still to start
  int64_t runStart_ = 0;                                    // S of the run in flight
  std::deque<std::tuple<int64_t, int64_t, int64_t>> order_; // (t, l, s) still to come
  bool prevValid_ = false, prevFire_ = false;
  int64_t prevGate_ = 0;
  bool offering_ = false;
  double gapProbability_ = 0.0;
  double gateRate_ = 1.0;
  bool gateOpen_ = false;
  int64_t gate_ = 0;
  uint64_t commands_ = 0, gateWaits_ = 0;
  int64_t lastStart_ = -1, firstCommand_ = -1, lastCommand_ = -1, done_ = -1;
  std::string error_;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  StepSequencerParams p;
  p.layers = params["Layers"];
  p.subs = params["Subs"];
  p.firstStep = params.get("FirstStep", 0);
  p.gated = params.get("Gated", 0) != 0;
  p.gateOffset = params.get("GateOffset", 0);
  const unsigned romBits = static_cast<unsigned>(params["RomBits"]);
  const unsigned stepBits = static_cast<unsigned>(params["StepBits"]);
  const unsigned gateBits = static_cast<unsigned>(params.get("GateBits", 32));
  // Runs of up to ~48 commands, within what num_steps_i can hold.
  const int64_t maxSteps = std::min<int64_t>(std::max<int64_t>(3, 48 / (p.layers * p.subs)),
                                             (int64_t(1) << stepBits) - 1);
  const uint64_t romMask = romBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << romBits) - 1;

  // The ROM: a random file for file_* configs (written before the first eval runs $readmemh),
  // else RomInit.
  std::mt19937_64 rng(options.seed);
  const size_t words = static_cast<size_t>(p.layers * p.subs);
  std::vector<uint64_t> rom(words);
  if (options.config.rfind("file_", 0) == 0) {
    const std::string path = std::string(ST_STEP_SEQUENCER_ROM_DIR) + "/" + options.config + ".hex";
    std::ofstream file(path);
    for (uint64_t &w : rom) {
      w = rng() & romMask;
      file << std::hex << w << "\n";
    }
    if (!file)
      throw TestFailure("cannot write the ROM file " + path);
  } else {
    const uint64_t init = static_cast<uint64_t>(params.get("RomInit", 0));
    for (size_t i = 0; i < words; ++i)
      rom[i] = i * romBits < 64 ? (init >> (i * romBits)) & romMask : 0;
  }

  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1), SignalRef(m.step_o, 1)};
  SequencerEnv<Model> env(m, p, rom, stepBits, gateBits, options.seed * 11 + 3);
  StreamSink sink("commands", out, options.seed * 5 + 2);
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch(sink.checker());
  h.add(env);
  h.add(sink);
  h.add(watchdog);
  h.reset();

  // Free flow: one run of maxSteps steps, consumer always ready, gate open.
  {
    env.openGate();
    env.pushRun(maxSteps);
    h.runUntil([&] { return env.idle() && env.doneCycle() >= 0; }, 100000);
    const auto timing = st::model::stepSequencerTiming(p, maxSteps);
    const int64_t start = env.lastStartCycle();
    const int64_t first = env.firstCommandCycle() - start, last = env.lastCommandCycle() - start,
                  done = env.doneCycle() - start;
    std::printf("  free flow: T=%lld, %lld commands: first at +%lld, last at +%lld, done at "
                "+%lld (model D=%lld, L=%lld, done at L+1)\n",
                static_cast<long long>(maxSteps), static_cast<long long>(timing.outputTokens),
                static_cast<long long>(first), static_cast<long long>(last),
                static_cast<long long>(done), static_cast<long long>(timing.firstOutputDelay),
                static_cast<long long>(timing.totalLatency));
    if (static_cast<int64_t>(env.commands()) != timing.outputTokens ||
        first != timing.firstOutputDelay || last != timing.totalLatency ||
        done != timing.totalLatency + 1)
      h.fail("free-flowing run does not match stepSequencerTiming");
  }

  struct Phase {
    const char *name;
    double ready, gate, gap;
  };
  const Phase phases[] = {
      {"slow consumer", 0.3, 0.9, 0.5}, {"slow gate", 0.9, 0.15, 0.2}, {"random", -1, -1, -1}};
  std::uniform_real_distribution<double> rate(0.1, 1.0);
  std::uniform_int_distribution<int64_t> steps(0, maxSteps);
  const uint64_t perPhase = options.tokens / 3 + 1;
  for (const Phase &ph : phases) {
    sink.setReadyProbability(ph.ready < 0 ? rate(rng) : ph.ready);
    env.setGateRate(ph.gate < 0 ? rate(rng) : ph.gate);
    env.setStartGapProbability(ph.gap < 0 ? rate(rng) * 0.9 : ph.gap);
    const uint64_t before = env.commands();
    uint64_t queued = 0, runs = 0;
    while (queued < perPhase) {
      const int64_t t = steps(rng);
      const int64_t s =
          std::bernoulli_distribution(0.5)(rng)
              ? 0
              : std::min<int64_t>(std::uniform_int_distribution<int64_t>(0, t + 1)(rng),
                                  (int64_t(1) << stepBits) - 1);
      env.pushRun(t, s);
      queued += st::model::stepSequencerCommands(p, t, s).size();
      ++runs;
    }
    h.runUntil([&] { return env.idle(); }, queued * 400 + 10000);
    std::printf("  phase %-14s %4llu runs, %6llu commands\n", ph.name,
                static_cast<unsigned long long>(runs),
                static_cast<unsigned long long>(env.commands() - before));
  }
  for (int i = 0; i < 16; ++i)
    h.step();
  std::printf("%llu commands checked against the cycle model, %llu cycles; %llu cycles with the "
              "next command held by the gate\n",
              static_cast<unsigned long long>(env.commands()),
              static_cast<unsigned long long>(h.cycle()),
              static_cast<unsigned long long>(env.gateWaits()));
  if (p.gated && env.gateWaits() == 0)
    h.fail("the gate never held a command: the test does not exercise it");
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
