// MultiStreamBench: test bench for templates with several streams flattened onto one port group
// (fork, join, round-robin mux and demux). Gives the pins of one stream of a flattened group,
// owns the drivers, sinks, scoreboards, per-cycle invariant checks and the watchdog, and runs
// the traffic phases: free flow (where it asserts one token per cycle), slow consumers, slow
// producers, and a skewed phase where every stream gets its own random valid/ready rate.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "watchdog.h"

namespace st::tb {

/// Stream `index` of streams flattened onto one port group: valid[index], ready[index],
/// data[index*width +: width].
inline StreamPins branchPins(const StreamPins &flat, unsigned index, unsigned width) {
  return {flat.valid.slice(index, 1), flat.ready.slice(index, 1),
          flat.data.slice(index * width, width)};
}

/// A per-cycle invariant: the check returns an error message, or empty while it holds.
class CycleCheck : public Component {
public:
  CycleCheck(std::string name, std::function<std::string()> check)
      : name_(std::move(name)), check_(std::move(check)) {}
  void sample(uint64_t) override {
    if (error_.empty()) {
      std::string e = check_();
      if (!e.empty())
        error_ = name_ + ": " + e;
    }
  }
  std::string error() const override { return error_; }

private:
  std::string name_;
  std::function<std::string()> check_;
  std::string error_;
};

struct MultiStreamPhase {
  const char *name;
  double validProbability;   ///< < 0: each driver draws its own from [0.2, 1.0]
  double readyProbability;   ///< < 0: each sink draws its own from [0.2, 1.0]
  bool expectFullThroughput; ///< one token per cycle on the single-stream side
};

inline const MultiStreamPhase kMultiStreamPhases[] = {
    {"free flow", 1.0, 1.0, true},
    {"slow consumers", 1.0, 0.2, false},
    {"slow producers", 0.2, 1.0, false},
    {"skewed random", -1.0, -1.0, false},
};

class MultiStreamBench {
public:
  explicit MultiStreamBench(const TestOptions &options)
      : seed_(options.seed), rng_(options.seed * 7919 + 17), watchdog_(options.watchdogCycles) {}

  /// A driver on an input stream of the DUT; the watchdog watches it.
  StreamDriver &addDriver(const std::string &name, const StreamPins &pins) {
    drivers_.push_back(std::make_unique<StreamDriver>(name, pins, nextSeed()));
    watchdog_.watch(name, pins);
    return *drivers_.back();
  }
  /// A sink on an output stream of the DUT (protocol-checked; the watchdog watches it).
  StreamSink &addSink(const std::string &name, const StreamPins &pins) {
    sinks_.push_back(std::make_unique<StreamSink>(name, pins, nextSeed()));
    watchdog_.watch(sinks_.back()->checker());
    return *sinks_.back();
  }
  /// An in-order scoreboard; the run ends when all scoreboards have received what they expect.
  Scoreboard &addScoreboard(const std::string &name) {
    boards_.push_back(std::make_unique<Scoreboard>(name));
    return *boards_.back();
  }
  void addCheck(const std::string &name, std::function<std::string()> check) {
    checks_.push_back(std::make_unique<CycleCheck>(name, std::move(check)));
  }

  /// Runs every phase of kMultiStreamPhases with about `tokens` tokens in all. `enqueue(n)`
  /// queues about n tokens (counted on the single-stream side of the DUT) on the drivers and
  /// their expected values on the scoreboards, and returns how many it queued.
  template <class Model>
  void run(Harness<Model> &h, uint64_t tokens, const std::function<uint64_t(uint64_t)> &enqueue) {
    for (auto &d : drivers_)
      h.add(*d);
    for (auto &s : sinks_)
      h.add(*s);
    for (auto &b : boards_)
      h.add(*b);
    for (auto &c : checks_)
      h.add(*c);
    h.add(watchdog_);
    h.reset();

    const size_t phases = sizeof kMultiStreamPhases / sizeof kMultiStreamPhases[0];
    uint64_t total = 0;
    for (size_t p = 0; p < phases; ++p) {
      const MultiStreamPhase &phase = kMultiStreamPhases[p];
      std::uniform_real_distribution<double> rate(0.2, 1.0);
      for (auto &d : drivers_)
        d->setValidProbability(phase.validProbability < 0 ? rate(rng_) : phase.validProbability);
      for (auto &s : sinks_)
        s->setReadyProbability(phase.readyProbability < 0 ? rate(rng_) : phase.readyProbability);
      uint64_t queued = enqueue(tokens / phases + (p == phases - 1 ? tokens % phases : 0));
      total += queued;
      uint64_t start = h.cycle();
      h.runUntil([&] { return drained(); }, queued * 200 + 10000);
      uint64_t cycles = h.cycle() - start;
      std::printf("  phase %-15s %7llu tokens in %7llu cycles (%.3f tokens/cycle)\n", phase.name,
                  static_cast<unsigned long long>(queued), static_cast<unsigned long long>(cycles),
                  cycles ? static_cast<double>(queued) / static_cast<double>(cycles) : 0.0);
      if (phase.expectFullThroughput && cycles > queued + 2)
        h.fail(std::string("phase '") + phase.name + "': " + std::to_string(queued) +
               " tokens took " + std::to_string(cycles) +
               " cycles; expected one token per cycle with every stream ready");
    }
    // Nothing more may come out.
    for (int i = 0; i < 64; ++i)
      h.step();
    for (auto &b : boards_) {
      std::string e = b->finalCheck();
      if (!e.empty())
        h.fail(e);
    }
    uint64_t matched = 0;
    for (auto &b : boards_)
      matched += b->matched();
    std::printf("%llu tokens on the single-stream side; %llu checked in order on %zu "
                "scoreboard(s); %llu cycles\n",
                static_cast<unsigned long long>(total), static_cast<unsigned long long>(matched),
                boards_.size(), static_cast<unsigned long long>(h.cycle()));
    std::printf("%s", watchdog_.stallReport().c_str());
  }

private:
  bool drained() const {
    for (const auto &b : boards_)
      if (!b->empty())
        return false;
    return true;
  }
  uint64_t nextSeed() { return seed_ * 1000003 + 2 * ++streams_ + 1; }

  uint64_t seed_;
  uint64_t streams_ = 0;
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<StreamDriver>> drivers_;
  std::vector<std::unique_ptr<StreamSink>> sinks_;
  std::vector<std::unique_ptr<Scoreboard>> boards_;
  std::vector<std::unique_ptr<CycleCheck>> checks_;
  Watchdog watchdog_;
};

} // namespace st::tb
