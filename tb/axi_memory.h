// AxiMemory: an AXI4 slave model of the U55C's HBM pseudo-channels, attached to a master's pins.
//
// Storage is sparse: 4 KB pages allocated on the first write (host or AXI). Bytes never written
// read as a fixed function of their address (fillByte), so a read of uninitialised memory is
// deterministic and still tells addresses apart. The host side reads and writes it directly
// (loading inputs, checking outputs) without simulated time. Several AxiMemory instances (one
// per master port) can share one store (shareStorageWith): the HBM behind a kernel's ports, and
// one set of per-pseudo-channel bandwidth buckets (shareBandwidthWith): ports whose bursts fall
// on the same pseudo-channel then share its 14.375 GB/s, as on the U55C. Each instance keeps its
// own burst queues, latencies and ready draws.
//
// Timing, all seeded:
//   - Bandwidth: each pseudo-channel (address / channelBytes, modulo numChannels) has a token
//     bucket (shared by every instance of shareBandwidthWith) filled once every cycle with the HBM
//     peak (14.375 GB/s) converted to bytes per kernel cycle (bytesPerCycle: 57.5 B at 250 MHz). An
//     R beat is offered, or wready raised, only while the beat's channel has a full beat of tokens;
//     reads and writes share the bucket. kernelClockMhz = 0 switches the cap off.
//   - Read latency: a burst's first beat can be offered readLatency + U[0, readLatencyJitter]
//     cycles after the cycle after its AR handshake; B likewise after the last W beat.
//   - arready, awready and wready are raised with a given probability each cycle; rvalid and
//     bvalid too (beats then come with gaps).
//   - Ordering: bursts of the same ID complete in issue order; among bursts of different IDs
//     whose latency has passed, the next one is picked at random, so different IDs are returned
//     out of order (reorderAcrossIds). Beats of one read burst are never interleaved with
//     another's.
//   - W beats are accepted only for an accepted AW (the slave waits for AW, as AXI allows), and
//     wready is raised only while wvalid is high (it may wait for WVALID too): an AW issued long
//     before its data takes no turn of its channel's bandwidth meanwhile.
// It accepts only what the HBM ports accept: INCR bursts of at most maxBurstLen beats, full-width
// beats, never across 4 KB. Anything else (a FIXED or WRAP burst, a narrow size, a wrong WLAST)
// is a protocol error, reported through error(). An address range may be set to answer SLVERR.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "axi_pins.h"
#include "bits.h"
#include "component.h"

namespace st::tb {

struct AxiMemoryConfig {
  unsigned maxBurstLen = 256;           ///< longest accepted burst in beats (AXI4: 256)
  double kernelClockMhz = 0;            ///< 0: no bandwidth cap
  double channelPeakGBps = 14.375;      ///< HBM pseudo-channel peak (U55C: 460 GB/s / 32)
  uint64_t channelBytes = 512ull << 20; ///< bytes per pseudo-channel (512 MB)
  unsigned numChannels = 32;            ///< pseudo-channels (address space wraps onto them)
  unsigned readLatency = 0;             ///< fixed extra cycles before a read burst's data
  unsigned readLatencyJitter = 0;       ///< plus uniform 0..jitter cycles, per burst
  unsigned writeLatency = 0;            ///< fixed extra cycles before a B response
  unsigned writeLatencyJitter = 0;      ///< plus uniform 0..jitter cycles, per burst
  double arreadyProbability = 1.0;
  double awreadyProbability = 1.0;
  double wreadyProbability = 1.0;
  double rvalidProbability = 1.0; ///< chance per cycle of offering a ready R beat
  double bvalidProbability = 1.0; ///< chance per cycle of offering a ready B response
  unsigned maxPendingReads = 64;  ///< arready stays low while this many read bursts wait
  unsigned maxPendingWrites = 64; ///< awready stays low while this many write bursts wait
  bool reorderAcrossIds = true;   ///< pick among ready bursts of different IDs at random
};

struct AxiMemoryStats {
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t readBursts = 0;
  uint64_t writeBursts = 0;
  uint64_t busyCycles = 0; ///< cycles with at least one R or W beat
};

class AxiMemory : public Component {
public:
  static constexpr unsigned kOkay = 0, kSlvErr = 2;
  static constexpr unsigned kBurstFixed = 0, kBurstIncr = 1, kBurstWrap = 2;

  /// `pins`: the master's port (either half may be unbound). The data width comes from the
  /// rdata or wdata pin.
  AxiMemory(std::string name, AxiPins pins, uint64_t seed, AxiMemoryConfig config = {});

  /// The HBM peak of one pseudo-channel in bytes per cycle of a kernel clock of `mhz`.
  static double bytesPerCycle(double mhz, double peakGBps = 14.375) {
    return peakGBps * 1000.0 / mhz;
  }

  void setConfig(const AxiMemoryConfig &config);
  const AxiMemoryConfig &config() const { return config_; }
  unsigned dataBytes() const { return dataBytes_; }

  // Host access (no simulated time).
  void write(uint64_t addr, const uint8_t *data, size_t bytes);
  void read(uint64_t addr, uint8_t *data, size_t bytes) const;
  /// A whole bus word (width = the data width), little-endian: byte i is bits [8i, 8i+8).
  void writeWord(uint64_t addr, const Bits &word);
  Bits readWord(uint64_t addr) const;
  /// The value of a byte never written.
  static uint8_t fillByte(uint64_t addr);
  size_t pagesAllocated() const { return pages_->size(); }
  /// From now on this memory reads and writes `other`'s store (its own contents are dropped).
  void shareStorageWith(const AxiMemory &other) { pages_ = other.pages_; }
  /// From now on this memory draws its beats from `other`'s per-channel bandwidth buckets (both
  /// must have the same cap and data width): the two share each pseudo-channel's bandwidth.
  void shareBandwidthWith(const AxiMemory &other) { buckets_ = other.buckets_; }

  /// Bursts touching [lo, hi) answer SLVERR (data is still transferred). lo == hi: none.
  void setErrorRange(uint64_t lo, uint64_t hi) { errLo_ = lo, errHi_ = hi; }

  const AxiMemoryStats &stats() const { return stats_; }
  const AxiMemoryStats &channelStats(unsigned channel) const { return channelStats_[channel]; }
  void clearStats();
  /// No burst accepted and not yet answered.
  bool idle() const { return reads_.empty() && writes_.empty() && responses_.empty(); }

  void drive(uint64_t cycle) override;
  void sample(uint64_t cycle) override;
  void reset() override;
  std::string error() const override { return error_; }

private:
  struct Burst {
    uint64_t id = 0;
    uint64_t addr = 0;
    unsigned beats = 0;
    unsigned done = 0;    ///< beats transferred so far
    uint64_t readyAt = 0; ///< first cycle its data (read) or response (write) may go
    unsigned resp = kOkay;
    uint64_t serial = 0; ///< acceptance order
  };

  static constexpr uint64_t kPageBytes = 4096;

  unsigned channelOf(uint64_t addr) const;
  /// Whether this instance's read (side 0) or write (side 1) half may move a beat to `addr` now:
  /// the channel has a beat of tokens and no other requester waits before it.
  bool mayMoveBeat(uint64_t addr, int side);
  /// Leaves the channel queue `side` waits in, if any (at the end of a cycle it did not ask).
  void leaveQueue(int side);
  void spendTokens(uint64_t addr);
  bool chance(double p);
  unsigned latency(unsigned fixed, unsigned jitter);
  /// Index into `list` of the burst to serve next (ready, oldest of its ID), or -1.
  int pickNext(const std::deque<Burst> &list, uint64_t cycle);
  bool acceptAddress(bool isWrite, uint64_t cycle);
  void fail(const std::string &message);
  std::vector<uint8_t> &page(uint64_t pageIndex);

  std::string name_;
  AxiPins pins_;
  std::mt19937_64 rng_;
  AxiMemoryConfig config_;
  unsigned dataBytes_ = 0;
  unsigned sizeLog2_ = 0;
  double bytesPerCycle_ = 0; ///< 0: no cap
  /// Per pseudo-channel token buckets, refilled once per cycle by whichever sharing instance
  /// drives first in that cycle.
  /// A channel serves the requesters that found it short of tokens in turn (round robin), so a
  /// port that always wants a beat cannot starve one that shares its channel; a requester
  /// (instance, read or write side) that stops asking leaves the queue.
  struct ChannelBuckets {
    std::vector<double> tokens;
    std::vector<std::deque<uintptr_t>> waiting; ///< per channel, requesters in turn order
    uint64_t refilledAt = ~uint64_t(0);
  };
  std::shared_ptr<ChannelBuckets> buckets_ = std::make_shared<ChannelBuckets>();
  void resetBuckets();
  int waitingOn_[2] = {-1, -1}; ///< per side, the channel whose queue it is in, or -1
  bool asked_[2] = {false, false};

  using PageMap = std::unordered_map<uint64_t, std::vector<uint8_t>>;
  std::shared_ptr<PageMap> pages_ = std::make_shared<PageMap>();
  uint64_t errLo_ = 0, errHi_ = 0;

  std::deque<Burst> reads_;     ///< accepted read bursts, in acceptance order
  std::deque<Burst> writes_;    ///< accepted write bursts still receiving W beats
  std::deque<Burst> responses_; ///< write bursts complete, B not yet accepted
  uint64_t serial_ = 0;

  // What drive() put on the pins this cycle.
  bool arReady_ = false, awReady_ = false, wReady_ = false;
  int rBurst_ = -1;            ///< index in reads_ of the burst whose beat rvalid offers, or -1
  int bIndex_ = -1;            ///< index in responses_ of the offered B response, or -1
  bool rActive_ = false;       ///< a read burst has started returning beats and is not done
  uint64_t rActiveSerial_ = 0; ///< its serial (bursts are not interleaved)

  AxiMemoryStats stats_;
  std::vector<AxiMemoryStats> channelStats_;
  std::string error_;
};

} // namespace st::tb
