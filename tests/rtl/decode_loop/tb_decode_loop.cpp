// Verilator test of the decode loop's control skeleton (st_decode_loop_harness: st_token_source,
// st_layer_loop and a per-layer st_step_sequencer) with the numerics in the testbench: an
// "embedding" turns each emitted id into a vector, a "block" transforms each vector with the ROM
// word of the command it takes from the sequencer (and checks that the command's step and layer
// are those of the vector), an "argmax" hashes each last-layer vector into the next id. A golden
// C++ loop computes every run's token and generated streams independently; scoreboards compare
// them. Runs with random n_prompt and steps; random valid/ready on every stream. This is the
// causal loop of docs/accelerator.md §1: step t+1's id exists only after step t's last layer.
#include <cstdio>
#include <deque>
#include <fstream>
#include <random>

#include "config_dispatch.h"
#include "decode_loop_configs.h"
#include "harness.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "watchdog.h"

using namespace st::tb;

namespace {

uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  return x ^ (x >> 33);
}

struct Numerics {
  uint64_t widthMask, idMask;
  std::vector<uint64_t> rom;
  uint64_t embed(uint64_t id, uint64_t k) const {
    return mix(id * 0x9E3779B97F4A7C15ull + k) & widthMask;
  }
  uint64_t block(uint64_t x, uint64_t word, uint64_t k) const {
    return mix(x ^ (word << 20) ^ (k << 44)) & widthMask;
  }
  uint64_t argmax(const std::vector<uint64_t> &v) const {
    uint64_t h = 0;
    for (uint64_t x : v)
      h = mix(h ^ x);
    return h & idMask;
  }
};

/// The reused block: one command per vector from the sequencer, then VecTokens tokens.
class CommandedBlock : public Component {
public:
  CommandedBlock(StreamPins in, StreamPins cmd, SignalRef step, SignalRef layer, SignalRef word,
                 StreamDriver &out, const Numerics &num, uint64_t vecTokens, uint64_t layers,
                 uint64_t seed)
      : in_(std::move(in)), cmd_(std::move(cmd)), step_(std::move(step)), layer_(std::move(layer)),
        word_(std::move(word)), out_(out), num_(num), vec_(vecTokens), layers_(layers), rng_(seed) {
  }

  void startRun(uint64_t steps) { runs_.push_back(steps); }
  void setReady(double p) { ready_ = p; }
  void reset() override {
    in_.ready.write(0);
    cmd_.ready.write(0);
  }
  void drive(uint64_t) override {
    cmdReady_ = !haveCmd_ && std::bernoulli_distribution(ready_)(rng_);
    inReady_ = haveCmd_ && std::bernoulli_distribution(ready_)(rng_);
    cmd_.ready.write(cmdReady_);
    in_.ready.write(inReady_);
  }
  void sample(uint64_t) override {
    if (!error_.empty())
      return;
    if (cmdReady_ && cmd_.valid.readBool()) {
      if (runs_.empty()) {
        error_ = "a block command outside any run";
        return;
      }
      const uint64_t t = vectors_ / layers_, l = vectors_ % layers_;
      if (step_.readU64() != t || layer_.readU64() != l)
        error_ = "block command (t=" + std::to_string(step_.readU64()) +
                 " l=" + std::to_string(layer_.readU64()) +
                 ") for the vector of (t=" + std::to_string(t) + " l=" + std::to_string(l) + ")";
      word = word_.readU64();
      haveCmd_ = true;
    }
    if (inReady_ && in_.valid.readBool()) {
      out_.push(num_.block(in_.data.readU64(), word, token_));
      if (++token_ == vec_) {
        token_ = 0;
        haveCmd_ = false;
        if (++vectors_ == runs_.front() * layers_) {
          runs_.pop_front();
          vectors_ = 0;
        }
      }
    }
  }
  std::string error() const override { return error_; }
  uint64_t word = 0;

private:
  StreamPins in_, cmd_;
  SignalRef step_, layer_, word_;
  StreamDriver &out_;
  const Numerics &num_;
  uint64_t vec_, layers_;
  std::mt19937_64 rng_;
  std::deque<uint64_t> runs_;
  double ready_ = 1.0;
  bool haveCmd_ = false, cmdReady_ = false, inReady_ = false;
  uint64_t token_ = 0, vectors_ = 0;
  std::string error_;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const unsigned idBits = static_cast<unsigned>(params["IdBits"]);
  const unsigned width = static_cast<unsigned>(params["Width"]);
  const unsigned romBits = static_cast<unsigned>(params["RomBits"]);
  const uint64_t vec = static_cast<uint64_t>(params["VecTokens"]);
  const uint64_t layers = static_cast<uint64_t>(params["Layers"]);
  std::mt19937_64 rng(options.seed);
  Numerics num{(uint64_t(1) << width) - 1, (uint64_t(1) << idBits) - 1, {}};
  {
    const std::string path = std::string(ST_DECODE_LOOP_ROM_DIR) + "/" + options.config + ".hex";
    std::ofstream file(path);
    for (uint64_t l = 0; l < layers; ++l) {
      num.rom.push_back(rng() & ((uint64_t(1) << romBits) - 1));
      file << std::hex << num.rom.back() << "\n";
    }
    if (!file)
      throw TestFailure("cannot write the ROM file " + path);
  }

  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  auto pins = [](auto &v, auto &r, auto &d, unsigned w) {
    return StreamPins{SignalRef(v, 1), SignalRef(r, 1), SignalRef(d, w)};
  };
  StreamPins prompt = pins(m.prompt_valid_i, m.prompt_ready_o, m.prompt_data_i, idBits);
  StreamPins token = pins(m.token_valid_o, m.token_ready_i, m.token_data_o, idBits);
  StreamPins argmax = pins(m.argmax_valid_i, m.argmax_ready_o, m.argmax_data_i, idBits);
  StreamPins gen = pins(m.gen_valid_o, m.gen_ready_i, m.gen_data_o, idBits);
  StreamPins first = pins(m.first_valid_i, m.first_ready_o, m.first_data_i, width);
  StreamPins blockIn = pins(m.block_valid_o, m.block_ready_i, m.block_data_o, width);
  StreamPins loop = pins(m.loop_valid_i, m.loop_ready_o, m.loop_data_i, width);
  StreamPins last = pins(m.last_valid_o, m.last_ready_i, m.last_data_o, width);
  StreamPins cmd{SignalRef(m.cmd_valid_o, 1), SignalRef(m.cmd_ready_i, 1),
                 SignalRef(m.cmd_word_o, romBits)};
  const unsigned layerBits = layers > 1 ? 64 - __builtin_clzll(layers - 1) : 1;

  const uint64_t s = options.seed * 1000;
  StreamDriver promptDrv("prompt", prompt, s + 1), argmaxDrv("argmax", argmax, s + 2),
      firstDrv("first", first, s + 3), loopDrv("loop", loop, s + 4);
  StreamSink tokenSink("token", token, s + 5), genSink("gen", gen, s + 6),
      lastSink("last", last, s + 7);
  CommandedBlock block(blockIn, cmd,
                       SignalRef(m.cmd_step_o, static_cast<unsigned>(params["StepBits"])),
                       SignalRef(m.cmd_layer_o, layerBits), SignalRef(m.cmd_word_o, romBits),
                       loopDrv, num, vec, layers, s + 8);
  Scoreboard tokenBoard("token"), genBoard("gen");
  Watchdog watchdog(options.watchdogCycles);
  for (auto *d : {&promptDrv, &argmaxDrv, &firstDrv, &loopDrv})
    watchdog.watch(d->name(), d == &promptDrv   ? prompt
                              : d == &argmaxDrv ? argmax
                              : d == &firstDrv  ? first
                                                : loop);
  for (auto *k : {&tokenSink, &genSink, &lastSink})
    watchdog.watch(k->checker());
  watchdog.watch("block_in", blockIn);
  watchdog.watch("cmd", cmd);

  // The testbench's embedding and argmax.
  tokenSink.onToken([&](const Bits &t) {
    tokenBoard.observe(t);
    for (uint64_t k = 0; k < vec; ++k)
      firstDrv.push(num.embed(t.toU64(), k));
  });
  std::vector<uint64_t> lastVector;
  lastSink.onToken([&](const Bits &t) {
    lastVector.push_back(t.toU64());
    if (lastVector.size() == vec) {
      argmaxDrv.push(num.argmax(lastVector));
      lastVector.clear();
    }
  });
  genSink.onToken([&](const Bits &t) { genBoard.observe(t); });

  // Start: one run at a time, with its prompt ids and the golden streams.
  uint64_t doneCount = 0;
  std::deque<std::pair<uint64_t, uint64_t>> runs;
  struct StartDriver : Component {
    Model &m;
    std::deque<std::pair<uint64_t, uint64_t>> &runs;
    std::function<void()> onStart;
    bool offering = false;
    StartDriver(Model &model, std::deque<std::pair<uint64_t, uint64_t>> &r) : m(model), runs(r) {}
    void reset() override { m.start_valid_i = 0; }
    void drive(uint64_t) override {
      offering = !runs.empty();
      m.start_valid_i = offering;
      m.n_prompt_i = offering ? static_cast<uint32_t>(runs.front().first) : 0;
      m.num_steps_i = offering ? static_cast<uint32_t>(runs.front().second) : 0;
    }
    void sample(uint64_t) override {
      if (offering && m.start_ready_o) {
        onStart();
        runs.pop_front();
      }
    }
  } starter(m, runs);
  starter.onStart = [&]() {
    const uint64_t P = runs.front().first, T = runs.front().second;
    block.startRun(T);
    std::vector<uint64_t> tokens;
    for (uint64_t t = 0; t < P; ++t) {
      tokens.push_back(rng() & num.idMask);
      promptDrv.push(tokens.back());
    }
    for (uint64_t t = 0; t < T; ++t) { // the golden decode loop
      std::vector<uint64_t> v(vec);
      for (uint64_t k = 0; k < vec; ++k)
        v[k] = num.embed(tokens[t], k);
      for (uint64_t l = 0; l < layers; ++l)
        for (uint64_t k = 0; k < vec; ++k)
          v[k] = num.block(v[k], num.rom[l], k);
      const uint64_t next = num.argmax(v);
      if (t + 1 >= P)
        genBoard.expect(Bits(idBits, next));
      if (t + 1 >= P && t + 1 < T)
        tokens.push_back(next);
    }
    for (uint64_t id : tokens)
      tokenBoard.expect(Bits(idBits, id));
  };
  struct DoneCounter : Component {
    Model &m;
    uint64_t &count;
    DoneCounter(Model &model, uint64_t &c) : m(model), count(c) {}
    void sample(uint64_t) override { count += m.done_o ? 1 : 0; }
  } doneCounter(m, doneCount);

  for (Component *c : std::initializer_list<Component *>{
           &promptDrv, &argmaxDrv, &firstDrv, &loopDrv, &tokenSink, &genSink, &lastSink, &block,
           &starter, &doneCounter, &tokenBoard, &genBoard, &watchdog})
    h.add(*c);
  h.reset();

  struct Phase {
    const char *name;
    double rate; // < 0: random per stream
  };
  const Phase phases[] = {{"free flow", 1.0}, {"random", -1.0}, {"slow", 0.3}};
  std::uniform_real_distribution<double> rate(0.2, 1.0);
  uint64_t totalRuns = 0, totalSteps = 0;
  for (const Phase &ph : phases) {
    auto pick = [&] { return ph.rate < 0 ? rate(rng) : ph.rate; };
    for (auto *d : {&promptDrv, &argmaxDrv, &firstDrv, &loopDrv})
      d->setValidProbability(pick());
    for (auto *k : {&tokenSink, &genSink, &lastSink})
      k->setReadyProbability(pick());
    block.setReady(pick());
    uint64_t steps = 0, phaseRuns = 0;
    const uint64_t start = h.cycle();
    while (steps < options.tokens / 3 + 1) {
      const uint64_t P = std::uniform_int_distribution<uint64_t>(1, 6)(rng);
      const uint64_t T = P + std::uniform_int_distribution<uint64_t>(0, 6)(rng);
      runs.push_back({P, T});
      steps += T;
      ++phaseRuns;
    }
    h.runUntil([&] { return runs.empty() && tokenBoard.empty() && genBoard.empty(); },
               steps * vec * layers * 400 + 10000);
    totalRuns += phaseRuns;
    totalSteps += steps;
    std::printf("  phase %-9s %3llu runs, %4llu steps in %6llu cycles (%.1f cycles/step)\n",
                ph.name, static_cast<unsigned long long>(phaseRuns),
                static_cast<unsigned long long>(steps),
                static_cast<unsigned long long>(h.cycle() - start),
                double(h.cycle() - start) / double(steps));
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  for (Scoreboard *b : {&tokenBoard, &genBoard}) {
    std::string e = b->finalCheck();
    if (!e.empty())
      h.fail(e);
  }
  if (doneCount != totalRuns)
    h.fail("done_o pulsed " + std::to_string(doneCount) + " times for " +
           std::to_string(totalRuns) + " runs");
  std::printf("%llu runs, %llu steps: %llu token ids and %llu generated tokens match the golden "
              "loop; %llu cycles\n",
              static_cast<unsigned long long>(totalRuns),
              static_cast<unsigned long long>(totalSteps),
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
