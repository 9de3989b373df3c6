// The timing of an HBM read as the testbench memory serves it (tb/axi_memory.h under sim's
// --latency, --jitter, --ready-probability), for predictions that must match measured cycles.
// A read DMA (st_read_dma_stream) is two stages in the timing graph:
//   memory  a source of the DMA's words: the first after the first burst's address merge and
//           the mean read latency, then at the memory's mean word rate (a ready probability
//           below one, capped by the pseudo-channel's bandwidth): a rational cadence
//           (KernelTiming::rateTokens / rateCycles), not one word per cycle;
//   dma     the DMA's data buffer (MaxOutstanding x MaxBurstLen words: the edge between the two)
//           and its unpack into tokens, at most one token per cycle.
// The buffer lets the memory run ahead of a stalled consumer by at most that many words, and a
// consumer that waits long (a GEMV waiting for x) finds the buffer and its FIFO full but then
// streams at the memory's rate. The nominal model of dma_stream_model.h (one token per cycle
// after a fixed latency) is this model with latency 24, no jitter and ready probability 1.
#pragma once

#include <cstdint>
#include <vector>

#include "model/kernel_timing.h"

namespace st::model {

/// The testbench memory's mean behaviour: the defaults of `streamtensor sim` (latency 24,
/// jitter 40, ready probability 0.8, bandwidth capped at 14.375 GB/s per channel at 250 MHz).
struct MemoryTiming {
  double readLatency = 24;
  double readLatencyJitter = 40; ///< uniform 0 .. jitter extra cycles per burst
  double readyProbability = 0.8; ///< chance per cycle that an R beat is offered
  double kernelClockMhz = 250;   ///< bandwidth cap: channelPeakGBps per pseudo-channel (0: none)
  double channelPeakGBps = 14.375;
  int64_t wordBytes = 64;
  /// Mean cycles from the AR handshake to the first beat.
  double meanReadLatency() const { return readLatency + readLatencyJitter / 2; }
  /// Mean words per cycle one read stream receives: the ready probability under the bucket of
  /// the bandwidth cap (tb/axi_memory.h), as its stationary rate.
  double wordsPerCycle() const;
  /// The bandwidth cap's refill in words per cycle, shared by every port of a pseudo-channel
  /// (0: no cap).
  double channelWordsPerCycle() const {
    return kernelClockMhz > 0 ? channelPeakGBps * 1e3 / (kernelClockMhz * double(wordBytes)) : 0;
  }
};

/// A rate in tokens per cycle as a fraction tokens / cycles (cycles >= tokens >= 1).
struct Cadence {
  int64_t tokens = 1;
  int64_t cycles = 1;
};
/// The closest fraction to `tokensPerCycle` (in (0, 1]) with at most `maxCycles` cycles.
Cadence cadenceOf(double tokensPerCycle, int64_t maxCycles = 1024);

/// Words of the DMA's data buffer (st_read_dma_stream's MaxOutstanding x MaxBurstLen as the top
/// instantiates it).
/// Bursts a read DMA keeps in flight (st_read_dma_stream's MaxOutstanding as the tops use it).
constexpr int64_t kReadDmaMaxOutstanding = 4;
/// Words of one of its bursts (MaxBurstLen): it issues a burst's AR once the buffer has room
/// for all of it.
constexpr int64_t kReadDmaMaxBurstLen = 64;
constexpr int64_t kReadDmaBufferWords = kReadDmaMaxOutstanding * kReadDmaMaxBurstLen;
/// Cycles from a read DMA's start handshake before its first address counts in the burst former
/// (the address generator's latch and the former's register).
constexpr int64_t kReadDmaAddressStart = 2;
/// Cycles from a word leaving the buffer to its first token on the DMA's output (unpack
/// register, output slice).
constexpr int64_t kReadDmaUnpackDelay = 2;

/// The memory stage of a read of `words` words: the first word `startDelay` cycles after the
/// start, then words at `rate`.
KernelTiming memoryWordsTiming(int64_t words, int64_t startDelay, Cadence rate);
/// The memory stage of a read of `words` words that one DMA serves right after a read of
/// `previousWords` words: one input port carrying the previous read's words as they arrive (its
/// memory stage's outputs), the first word one cycle after it took the last of them (two after
/// that word left the previous stage: the edge's cycle), then words at `rate`.
KernelTiming memoryWordsAfterTiming(int64_t words, int64_t previousWords, Cadence rate);
/// The memory stage of a read whose words arrive by `schedule` (readDmaWordSchedule), at most at
/// `rate` once a stall has pushed them later.
KernelTiming memoryWordsTiming(const std::vector<int64_t> &schedule, Cadence rate);
/// The first-word delay of a read whose addresses the DMA merges into bursts after its start:
/// the first burst's merge (up to maxBurstLen words), the AR and the mean latency.
int64_t memoryStartDelay(int64_t words, const MemoryTiming &memory,
                         int64_t maxBurstLen = kReadDmaMaxBurstLen);

/// Cycles from a read DMA's full buffer having a burst's room again to that burst's first word:
/// loading and handshaking its AR (the mean wait for arready included) and the mean read
/// latency, as readDmaWordSchedule counts a burst (sim's defaults: 46).
int64_t memoryRestartDelay(const MemoryTiming &memory);
/// Per word of a read DMA whose bursts are `bursts` (beats each, in order): the mean cycle it
/// enters the DMA's buffer, from the DMA's start, when nothing downstream stalls. The address
/// generator makes one address a cycle; the burst former closes a burst the cycle after its last
/// address; a burst is loaded into AR once the previous one was and fewer than
/// kReadDmaMaxOutstanding are in flight (a burst leaves the count with its last beat); AR is
/// accepted at the memory's ready probability; its first beat comes the mean read latency
/// later, and not before the previous burst's last beat; beats follow at the memory's mean
/// rate. Long contiguous reads come out as memoryStartDelay + k / rate; many short bursts (a
/// strided or re-streamed pattern) are bound by the round trips of four bursts.
/// With `draws`, one run's words instead of the means: each burst's AR wait and latency and each
/// beat's gap drawn as the testbench memory draws them (MemoryDraws).
class MemoryDraws;
std::vector<int64_t> readDmaWordSchedule(const std::vector<int64_t> &bursts,
                                         const MemoryTiming &memory, MemoryDraws *draws = nullptr);

/// The testbench memory's random delays (tb/axi_memory.h, tb/hbm_model.h), drawn from a seeded
/// generator: per burst a latency of readLatency + U{0 .. jitter}, per handshake the memory
/// drives (arready, each R beat, wready, bvalid) a wait of the failures before a success at the
/// ready probability (the R beats at the word rate, which folds in the bandwidth cap). A mean
/// prediction averages the makespans of runs under such draws: a kernel waits for the latest
/// of its inputs, and the mean of a maximum exceeds the maximum of the means.
class MemoryDraws {
public:
  MemoryDraws(const MemoryTiming &memory, uint64_t seed);
  /// Is anything drawn? (No jitter and ready probability 1: every delay is the mean.)
  bool random() const { return jitter_ > 0 || ready_ < 1; }
  int64_t arWait() { return failures(ready_); }
  int64_t readLatency();
  /// Cycles from one beat of a burst to the next (>= 1).
  int64_t beatGap() { return 1 + failures(rate_); }
  /// Cycles from a write's last W beat being offered to its response leaving the memory: the
  /// wait for wready, latency / 2 + U{0 .. jitter}, the wait for bvalid.
  int64_t writeResponse();

private:
  int64_t failures(double p);
  double ready_, rate_;
  int64_t latency_, jitter_;
  uint64_t state_;
  double uniform();
};

/// The DMA stage: `words` words in, `tokens` tokens out (tokens >= words: a token never spans
/// words), token k once the word holding it is in.
KernelTiming readDmaUnpackTiming(int64_t words, int64_t tokens);

} // namespace st::model
