// runPassthroughTest: the order-and-content test for any block whose output stream must equal
// its input stream (FIFOs, register slices). Drives `tokens` random tokens through phases of
// traffic (free flow, slow producer, slow consumer, random both ways) so that buffers fill and
// drain, checks the protocol on the output, and compares every token in order.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>

#include "harness.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "watchdog.h"

namespace st::tb {

struct TrafficPhase {
  double validProbability;
  double readyProbability;
};

/// The default phases: free flow, slow consumer (fills buffers), slow producer (drains them),
/// random both ways.
inline const TrafficPhase kDefaultPhases[] = {{1.0, 1.0}, {1.0, 0.2}, {0.2, 1.0}, {0.6, 0.6}};

template <class Model>
void runPassthroughTest(Harness<Model> &h, StreamPins in, StreamPins out, uint64_t tokens,
                        const std::function<void()> &perCycleCheck = {}) {
  const uint64_t seed = h.options().seed;
  StreamDriver driver("in", in, seed * 3 + 1);
  StreamSink sink("out", out, seed * 5 + 2);
  Scoreboard board("out");
  Watchdog watchdog(h.options().watchdogCycles);
  watchdog.watch(sink.checker());
  sink.onToken([&](const Bits &t) { board.observe(t); });
  h.add(driver);
  h.add(sink);
  h.add(board);
  h.add(watchdog);
  h.reset();

  std::mt19937_64 rng(seed);
  const unsigned width = in.data.width();
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  for (size_t p = 0; p < phases; ++p) {
    uint64_t n = tokens / phases + (p == phases - 1 ? tokens % phases : 0);
    driver.setValidProbability(kDefaultPhases[p].validProbability);
    sink.setReadyProbability(kDefaultPhases[p].readyProbability);
    for (uint64_t i = 0; i < n; ++i) {
      Bits t = Bits::random(width, rng);
      driver.push(t);
      board.expect(t);
    }
    h.runUntil(
        [&] {
          if (perCycleCheck)
            perCycleCheck();
          return board.empty();
        },
        n * 200 + 10000);
  }
  // Nothing more may come out.
  for (int i = 0; i < 64; ++i)
    h.step();
  std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu tokens passed in order in %llu cycles\n",
              static_cast<unsigned long long>(board.matched()),
              static_cast<unsigned long long>(h.cycle()));
}

} // namespace st::tb
