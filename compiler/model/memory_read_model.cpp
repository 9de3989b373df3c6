// Timing of an HBM read under the testbench memory's mean behaviour (see memory_read_model.h).
#include "model/memory_read_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "support/error.h"

namespace st::model {

double MemoryTiming::wordsPerCycle() const {
  const double ready = std::clamp(readyProbability, 0.0, 1.0);
  if (kernelClockMhz <= 0 || ready <= 0)
    return ready;
  // A design asks for the same few memories many times (every sampled cache length).
  static std::mutex mutex;
  static std::map<std::tuple<double, double, double, int64_t>, double> known;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(ready, kernelClockMhz, channelPeakGBps, wordBytes);
  if (auto it = known.find(key); it != known.end())
    return it->second;
  // tb/axi_memory.h's bandwidth cap is a token bucket per channel: each cycle it gains the
  // channel's peak bytes per cycle (up to two beats or two cycles' worth), and a beat is
  // offered only when the ready draw succeeds and the bucket holds a whole beat, which it then
  // spends. With a ready probability near the cap the two interact (0.8 ready under 57.5 of
  // 64 bytes gives 0.781 beats per cycle, not 0.8): the rate is that of the bucket's Markov
  // chain in its stationary state, computed here on a 1/16-byte grid.
  const double refill = channelPeakGBps * 1e9 / (kernelClockMhz * 1e6);
  const double beat = static_cast<double>(wordBytes);
  constexpr double kGrid = 16;
  const int64_t gain = std::llround(refill * kGrid), cost = std::llround(beat * kGrid);
  const int64_t cap = std::llround(2 * std::max(beat, refill) * kGrid);
  // The time average of the beats over many cycles after a burn-in: exact for the random chain
  // (it converges geometrically) and within 1/kAveraged for the periodic one of ready 1.
  constexpr int kBurnIn = 2048, kAveraged = 16384;
  std::vector<double> p(size_t(cap + 1), 0.0), next(p.size());
  p[size_t(cap)] = 1; // the bucket starts full
  double beatsSum = 0;
  for (int iteration = 0; iteration < kBurnIn + kAveraged; ++iteration) {
    std::fill(next.begin(), next.end(), 0.0);
    double beats = 0;
    for (int64_t b = 0; b <= cap; ++b) {
      const double mass = p[size_t(b)];
      if (mass == 0)
        continue;
      const int64_t filled = std::min(cap, b + gain);
      if (filled >= cost) {
        next[size_t(filled - cost)] += mass * ready;
        next[size_t(filled)] += mass * (1 - ready);
        beats += mass * ready;
      } else {
        next[size_t(filled)] += mass;
      }
    }
    p.swap(next);
    if (iteration >= kBurnIn)
      beatsSum += beats;
  }
  return known[key] = beatsSum / kAveraged;
}

Cadence cadenceOf(double tokensPerCycle, int64_t maxCycles) {
  if (!(tokensPerCycle > 0) || tokensPerCycle > 1)
    throw Error("memory timing", "rate",
                "a rate in (0, 1] tokens per cycle, got " + std::to_string(tokensPerCycle));
  // Best approximation by scanning denominators (cheap for the few rates a design has).
  Cadence best{1, 1};
  double bestError = std::fabs(1.0 - tokensPerCycle);
  for (int64_t cycles = 1; cycles <= maxCycles && bestError > 0; ++cycles) {
    const int64_t tokens =
        std::clamp<int64_t>(std::llround(tokensPerCycle * double(cycles)), 1, cycles);
    const double error = std::fabs(double(tokens) / double(cycles) - tokensPerCycle);
    if (error < bestError - 1e-15) {
      best = {tokens, cycles};
      bestError = error;
    }
  }
  return best;
}

KernelTiming memoryWordsTiming(int64_t words, int64_t startDelay, Cadence rate) {
  KernelTiming t;
  t.firstOutputDelay = startDelay;
  t.ii = 1;
  if (rate.tokens != rate.cycles) {
    t.rateTokens = rate.tokens;
    t.rateCycles = rate.cycles;
  }
  t.outputTokens = words;
  t.totalLatency = startDelay + t.spanTo(words - 1);
  return t;
}

KernelTiming memoryWordsAfterTiming(int64_t words, int64_t previousWords, Cadence rate) {
  if (previousWords < 1)
    throw Error("memory timing", "previous read", "at least one word");
  // With ideal inputs the previous read's last word is in at cycle previousWords - 1 and this
  // read's first goes one cycle later: D = previousWords, lambda = 1.
  KernelTiming t = memoryWordsTiming(words, previousWords, rate);
  t.inputTokens = {previousWords};
  t.inputTokensNeeded = {[previousWords](int64_t) { return previousWords; }};
  return t;
}

KernelTiming memoryWordsTiming(const std::vector<int64_t> &schedule, Cadence rate) {
  KernelTiming t = memoryWordsTiming(static_cast<int64_t>(schedule.size()), schedule.at(0), rate);
  t.notBefore = schedule;
  int64_t last = schedule[0];
  for (size_t k = 1; k < schedule.size(); ++k)
    last = std::max(schedule[k], last + t.gapBefore(static_cast<int64_t>(k)));
  t.totalLatency = last;
  return t;
}

MemoryDraws::MemoryDraws(const MemoryTiming &memory, uint64_t seed)
    : ready_(std::clamp(memory.readyProbability, 1e-3, 1.0)),
      rate_(std::clamp(memory.wordsPerCycle(), 1e-3, 1.0)),
      latency_(static_cast<int64_t>(memory.readLatency)),
      jitter_(static_cast<int64_t>(memory.readLatencyJitter)), state_(seed) {}

double MemoryDraws::uniform() {
  // splitmix64: the same draws on every platform (std's distributions are not specified).
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

int64_t MemoryDraws::failures(double p) {
  int64_t n = 0;
  while (p < 1 && uniform() >= p && n < 1000)
    ++n;
  return n;
}

int64_t MemoryDraws::readLatency() {
  return latency_ + std::min(jitter_, static_cast<int64_t>(uniform() * double(jitter_ + 1)));
}

int64_t MemoryDraws::writeResponse() {
  return failures(ready_) + latency_ / 2 +
         std::min(jitter_, static_cast<int64_t>(uniform() * double(jitter_ + 1))) +
         failures(ready_);
}

std::vector<int64_t> readDmaWordSchedule(const std::vector<int64_t> &bursts,
                                         const MemoryTiming &memory, MemoryDraws *draws) {
  const double rate = memory.wordsPerCycle();
  if (!(rate > 0))
    throw Error("read DMA timing", "memory rate", "a positive word rate");
  const double ready = std::clamp(memory.readyProbability, 1e-3, 1.0);
  const double arWait = 1 / ready - 1; // mean extra cycles until arready
  if (draws && !draws->random())
    draws = nullptr; // the deterministic memory: the means are the run
  // A burst's wait for arready plus its latency, and the gap before a beat: the means, or drawn.
  auto burstDelay = [&]() -> double {
    return draws ? double(draws->arWait() + draws->readLatency())
                 : arWait + memory.meanReadLatency();
  };
  auto gap = [&]() -> double { return draws ? double(draws->beatGap()) : 1 / rate; };
  std::vector<int64_t> schedule;
  std::vector<double> lastBeat; // per burst
  // The cycle the burst's last address leaves the generator: the generator latches the loops
  // in the start handshake's cycle and its first address leaves the burst former two cycles
  // later (measured on the deterministic memory: a one-word read's AR handshake 4 cycles after
  // the start handshake, its beat 1 + latency after that).
  double address = kReadDmaAddressStart;
  double previousLoad = -1, previousBeat = -1e18;
  for (size_t i = 0; i < bursts.size(); ++i) {
    address += static_cast<double>(bursts[i]);
    double load = std::max(address, previousLoad + 1);
    if (i >= static_cast<size_t>(kReadDmaMaxOutstanding))
      load = std::max(load, lastBeat[i - kReadDmaMaxOutstanding] + 1);
    double beat = std::max(load + 2 + burstDelay(), previousBeat + gap());
    for (int64_t j = 0; j < bursts[i]; ++j) {
      if (j > 0)
        beat += draws ? gap() : 0;
      const double at = draws ? beat : beat + double(j) / rate;
      schedule.push_back(static_cast<int64_t>(std::llround(at)));
      if (j + 1 == bursts[i])
        previousBeat = at;
    }
    lastBeat.push_back(previousBeat);
    previousLoad = load;
  }
  return schedule;
}

int64_t memoryRestartDelay(const MemoryTiming &memory) {
  const double ready = std::clamp(memory.readyProbability, 1e-3, 1.0);
  return static_cast<int64_t>(std::llround(2 + (1 / ready - 1) + memory.meanReadLatency()));
}

int64_t memoryStartDelay(int64_t words, const MemoryTiming &memory, int64_t maxBurstLen) {
  // Address merge of the first burst, then the AR handshake and the mean latency (as
  // readDmaStreamTiming's D, less the DMA's own buffer and unpack registers).
  return std::min(words, maxBurstLen) +
         static_cast<int64_t>(std::llround(memory.meanReadLatency())) + 5 - 1 - kReadDmaUnpackDelay;
}

KernelTiming readDmaUnpackTiming(int64_t words, int64_t tokens) {
  if (words < 1 || tokens < words)
    throw Error("read DMA timing", std::to_string(words) + " words",
                "at least one word and no more words than tokens (" + std::to_string(tokens) + ")");
  KernelTiming t;
  t.firstOutputDelay = kReadDmaUnpackDelay;
  t.ii = 1;
  t.outputTokens = tokens;
  t.totalLatency = kReadDmaUnpackDelay + tokens - 1;
  t.inputTokens = {words};
  t.inputTokensNeeded = {
      [words, tokens](int64_t k) { return std::min(words, (k * words) / tokens + 1); }};
  return t;
}

} // namespace st::model
