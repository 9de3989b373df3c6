// Verilator test of st_addr_gen, st_axi_read_dma and st_axi_write_dma (side by side in
// st_axi_dma_tb_top) against the HBM model AxiMemory, under the AXI4 protocol checker:
//   - address generator: random strided patterns (up to NumLoops loops, strides of any sign
//     and 0, empty spaces) give exactly the software enumeration, last_o on the final address,
//     one done pulse;
//   - read DMA: random patterns through memory with random latency, stalls and bandwidth cap,
//     and a randomly stalling consumer: every word equals memory at the pattern's address, in
//     order; the AR bursts are exactly the greedy split (INCR, <= MaxBurstLen, no 4 KB
//     crossing); done only after the last word; error_o on SLVERR and cleared by a new start;
//   - write DMA: random data to random patterns (repeated addresses included): memory read back
//     by the host equals a last-write-wins shadow, and the read DMA reads it back; the AW
//     bursts are the greedy split; error_o on SLVERR;
//   - throughput: long contiguous runs with fixed latency and no stalls run at one beat per
//     cycle (exact cycle counts); under the 250 MHz HBM cap the read rate is the cap.
// Config "memory_unit" tests AxiMemory alone on plain C++ pins: different IDs come back out of
// order, the same ID in order, FIXED bursts are refused, and two ports sharing bandwidth
// buckets split one pseudo-channel's 57.5 B per 250 MHz cycle but each get it on channels of
// their own.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "addr_pattern.h"
#include "axi_checker.h"
#include "axi_dma_configs.h"
#include "axi_memory.h"
#include "config_dispatch.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"

using namespace st::tb;

namespace {

constexpr uint64_t kHbmBytes = 16ull << 30;
constexpr uint64_t kChannelBytes = 512ull << 20;

struct DmaShape {
  unsigned numLoops, dataWidth, wordBytes, maxBurstLen, maxOutstanding;
};

/// Counts one-cycle pulses of an output pin and remembers the cycle of the last one.
class PulseCounter : public Component {
public:
  explicit PulseCounter(SignalRef pin) : pin_(std::move(pin)) {}
  void sample(uint64_t cycle) override {
    if (pin_.readBool()) {
      ++count_;
      lastCycle_ = cycle;
    }
  }
  uint64_t count() const { return count_; }
  uint64_t lastCycle() const { return lastCycle_; }

private:
  SignalRef pin_;
  uint64_t count_ = 0;
  uint64_t lastCycle_ = 0;
};

/// st_channel_claim on the read master (tb top: 4 KB "channels" 0 .. 15): every cycle its
/// claim_o equals the reference, a channel claimed while a burst on it waits in the AR register
/// or is in flight (AR handshake to last R beat; one ID, so bursts complete in issue order).
/// Also counts the bursts whose AR handshake came while hold_i was high.
template <class Model> class ClaimMonitor : public Component {
public:
  explicit ClaimMonitor(Model &m) : m_(m) {}
  void sample(uint64_t cycle) override {
    if (!error_.empty())
      return;
    auto channelOf = [](uint64_t addr) { return addr < (16u << 12) ? int(addr >> 12) : -1; };
    uint32_t expected = 0;
    for (int c = 0; c < 16; ++c)
      if (inflight_[c] > 0)
        expected |= 1u << c;
    const int pending = m_.m_axi_rd_arvalid ? channelOf(m_.m_axi_rd_araddr) : -1;
    if (pending >= 0)
      expected |= 1u << pending;
    if (static_cast<uint32_t>(m_.rd_claim_o) != expected) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "st_channel_claim: cycle %llu: claim_o 0x%04x, expected 0x%04x",
                    static_cast<unsigned long long>(cycle), unsigned(m_.rd_claim_o), expected);
      error_ = buf;
    }
    if (m_.m_axi_rd_arvalid && m_.m_axi_rd_arready) {
      const int c = channelOf(m_.m_axi_rd_araddr);
      order_.push_back(c);
      if (c >= 0)
        ++inflight_[c];
      claimedBursts_ += c >= 0;
      heldBursts_ += m_.rd_hold_i != 0;
    }
    if (m_.m_axi_rd_rvalid && m_.m_axi_rd_rready && m_.m_axi_rd_rlast && !order_.empty()) {
      if (order_.front() >= 0)
        --inflight_[order_.front()];
      order_.pop_front();
    }
  }
  void reset() override {
    order_.clear();
    inflight_.fill(0);
  }
  std::string error() const override { return error_; }
  uint64_t heldBursts() const { return heldBursts_; }
  uint64_t claimedBursts() const { return claimedBursts_; }

private:
  Model &m_;
  std::deque<int> order_;
  std::array<int, 16> inflight_{};
  uint64_t heldBursts_ = 0, claimedBursts_ = 0;
  std::string error_;
};

/// A random iteration space: 1..numLoops loops, trip counts with at most maxPoints points
/// (sometimes an empty space), word-multiple strides (contiguous, zero, negative, row-major
/// or random), and a base that keeps every address inside the 16 GB of HBM, often just below a
/// 4 KB boundary.
AddrPattern randomPattern(std::mt19937_64 &rng, const DmaShape &s, uint64_t maxPoints,
                          bool allowEmpty) {
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  AddrPattern p;
  const unsigned loops = static_cast<unsigned>(uniform(1, s.numLoops));
  static const uint32_t ranges[] = {1, 2, 3, 4, 8, 17, 70, 300};
  for (unsigned i = 0; i < loops; ++i)
    p.tripCounts.push_back(static_cast<uint32_t>(uniform(1, ranges[uniform(0, 7)])));

  const int64_t word = s.wordBytes;
  p.strides.assign(loops, 0);
  int64_t innerExtent = 1; // words spanned by the loops inside, for row-major strides
  for (int i = static_cast<int>(loops) - 1; i >= 0; --i) {
    int64_t words;
    switch (uniform(0, 5)) {
    case 0:
      words = 0; // loop not in the iteration map: re-read
      break;
    case 1:
    case 2:
      words = i == static_cast<int>(loops) - 1 ? 1 : innerExtent; // contiguous / row-major
      break;
    case 3:
      words = -(i == static_cast<int>(loops) - 1 ? 1 : innerExtent);
      break;
    default:
      words = uniform(-80, 80);
    }
    p.strides[i] = words * word;
    if (words == 1 && uniform(0, 1) == 0) // a long contiguous run: full bursts, page ends
      p.tripCounts[i] = static_cast<uint32_t>(uniform(32, 300));
    innerExtent = std::max<int64_t>(innerExtent, std::llabs(words) * p.tripCounts[i]);
  }

  // Outer loops give way first: halve the largest outer trip count while over the limit.
  while (p.points() > maxPoints) {
    auto it = std::max_element(p.tripCounts.begin(), p.tripCounts.end() - 1);
    if (*it == 1)
      it = p.tripCounts.end() - 1;
    *it = (*it + 1) / 2;
  }
  if (allowEmpty && uniform(0, 49) == 0)
    p.tripCounts[uniform(0, loops - 1)] = 0;

  int64_t minOff = 0, maxOff = 0;
  for (unsigned i = 0; i < loops; ++i) {
    int64_t span =
        p.strides[i] * (static_cast<int64_t>(std::max<uint32_t>(p.tripCounts[i], 1)) - 1);
    minOff += std::min<int64_t>(0, span);
    maxOff += std::max<int64_t>(0, span);
  }
  // Inside one pseudo-channel region, chosen at random.
  const uint64_t channel = static_cast<uint64_t>(uniform(0, 31));
  const int64_t lo = -minOff, hi = static_cast<int64_t>(kChannelBytes) - maxOff - word;
  int64_t offset = uniform(lo / word, hi / word) * word;
  if (uniform(0, 3) == 0) { // just below a 4 KB boundary
    int64_t page = (offset / 4096 + 1) * 4096;
    int64_t near = page - uniform(0, 5) * word;
    if (near >= lo && near <= hi)
      offset = near;
  }
  p.base = channel * kChannelBytes + static_cast<uint64_t>(offset);
  return p;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// Compares the bursts a checker saw with the greedy split of the pattern's addresses.
std::string compareBursts(const std::vector<BurstSpec> &expected,
                          const std::vector<BurstSpec> &actual, const char *channel) {
  size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i)
    if (!(expected[i] == actual[i]))
      return std::string(channel) + " burst " + std::to_string(i) + ": expected " +
             hex(expected[i].addr) + " x" + std::to_string(expected[i].beats) + ", got " +
             hex(actual[i].addr) + " x" + std::to_string(actual[i].beats);
  if (expected.size() != actual.size())
    return std::string(channel) + ": expected " + std::to_string(expected.size()) +
           " bursts, got " + std::to_string(actual.size());
  return {};
}

/// Memory timing for pattern number `index`: cycles through calm, stalling, and capped.
AxiMemoryConfig memoryTiming(std::mt19937_64 &rng, uint64_t index) {
  AxiMemoryConfig c;
  std::uniform_real_distribution<double> u(0.3, 1.0);
  switch (index % 4) {
  case 0: // no stalls, fixed latency
    c.readLatency = c.writeLatency = 3;
    break;
  case 1: // random latency and stalls everywhere
    c.readLatency = c.writeLatency = 2;
    c.readLatencyJitter = c.writeLatencyJitter = 40;
    c.arreadyProbability = u(rng);
    c.awreadyProbability = u(rng);
    c.wreadyProbability = u(rng);
    c.rvalidProbability = u(rng);
    c.bvalidProbability = u(rng);
    break;
  case 2: // HBM bandwidth cap at 250 MHz plus jitter
    c.kernelClockMhz = 250;
    c.readLatencyJitter = c.writeLatencyJitter = 20;
    break;
  default: // slow memory, long latency
    c.readLatency = c.writeLatency = 30;
    c.readLatencyJitter = c.writeLatencyJitter = 10;
    c.arreadyProbability = c.wreadyProbability = c.rvalidProbability = 0.3;
  }
  return c;
}

template <class Model> class DmaBench {
public:
  DmaBench(const TestOptions &options, const Params &params)
      : h_(options,
           [](Model &m) {
             return ClockReset{&m.clk_i, &m.rst_ni};
           }),
        shape_{static_cast<unsigned>(params["NumLoops"]),
               static_cast<unsigned>(params["DataWidth"]),
               static_cast<unsigned>(params["DataWidth"] / 8),
               static_cast<unsigned>(params["MaxBurstLen"]),
               static_cast<unsigned>(params["MaxOutstanding"])},
        rng_(options.seed), m_(h_.dut()), readPins_(makeReadPins(m_, shape_)),
        writePins_(makeWritePins(m_, shape_)),
        readMemory_("hbm_rd", readPins_, options.seed * 7 + 1),
        writeMemory_("hbm_wr", writePins_, options.seed * 11 + 2),
        readChecker_("m_axi_rd", readPins_, shape_.maxBurstLen),
        writeChecker_("m_axi_wr", writePins_, shape_.maxBurstLen),
        agSink_(
            "ag",
            {SignalRef(m_.ag_valid_o, 1), SignalRef(m_.ag_ready_i, 1), SignalRef(m_.ag_addr_o, 64)},
            options.seed * 13 + 3),
        rdSink_("rd",
                {SignalRef(m_.rd_valid_o, 1), SignalRef(m_.rd_ready_i, 1),
                 SignalRef(m_.rd_data_o, shape_.dataWidth)},
                options.seed * 17 + 4),
        wrDriver_("wr",
                  {SignalRef(m_.wr_valid_i, 1), SignalRef(m_.wr_ready_o, 1),
                   SignalRef(m_.wr_data_i, shape_.dataWidth)},
                  options.seed * 19 + 5),
        agBoard_("ag_addr"), rdBoard_("rd_data"), agDone_(SignalRef(m_.ag_done_o, 1)),
        rdDone_(SignalRef(m_.rd_done_o, 1)), wrDone_(SignalRef(m_.wr_done_o, 1)) {
    readChecker_.onBurst([this](bool, uint64_t a, unsigned n) { readBursts_.push_back({a, n}); });
    writeChecker_.onBurst([this](bool, uint64_t a, unsigned n) { writeBursts_.push_back({a, n}); });
    agSink_.onToken([this](const Bits &t) {
      agBoard_.observe(t);
      if (m_.ag_last_o)
        agLastIndex_ = agSink_.received() - 1;
    });
    rdSink_.onToken([this](const Bits &t) { rdBoard_.observe(t); });
    for (Component *c : std::initializer_list<Component *>{
             &readMemory_, &writeMemory_, &readChecker_, &writeChecker_, &agSink_, &rdSink_,
             &wrDriver_, &agBoard_, &rdBoard_, &agDone_, &rdDone_, &wrDone_, &claims_})
      h_.add(*c);
    // One HBM behind both ports: what the write DMA stores, the read DMA can read back.
    writeMemory_.shareStorageWith(readMemory_);
    m_.ag_start_valid_i = m_.rd_start_valid_i = m_.wr_start_valid_i = 0;
    m_.rd_hold_i = 0;
    h_.reset();
    std::printf("shape: NumLoops=%u DataWidth=%u MaxBurstLen=%u MaxOutstanding=%u\n",
                shape_.numLoops, shape_.dataWidth, shape_.maxBurstLen, shape_.maxOutstanding);
  }

  void testAddrGen(unsigned patterns) {
    uint64_t addresses = 0;
    for (unsigned n = 0; n < patterns; ++n) {
      AddrPattern p = randomPattern(rng_, shape_, 400, true);
      agSink_.setReadyProbability(n % 3 == 0 ? 1.0 : 0.4);
      for (uint64_t a : p.addresses())
        agBoard_.expect(Bits(64, a));
      agLastIndex_ = ~0ull;
      const uint64_t before = agSink_.received(), donesBefore = agDone_.count();
      start(m_.ag_start_valid_i, m_.ag_start_ready_o, p);
      h_.runUntil([&] { return agDone_.count() > donesBefore; }, p.points() * 20 + 1000);
      for (int i = 0; i < 4; ++i)
        h_.step();
      check(agBoard_.finalCheck(), p);
      if (agSink_.received() - before != p.points())
        fail("address generator: " + std::to_string(agSink_.received() - before) +
                 " addresses for " + std::to_string(p.points()) + " points",
             p);
      if (p.points() > 0 && agLastIndex_ != agSink_.received() - 1)
        fail("address generator: last_o not on the final address", p);
      if (agDone_.count() != donesBefore + 1)
        fail("address generator: done_o pulsed " + std::to_string(agDone_.count() - donesBefore) +
                 " times",
             p);
      addresses += p.points();
    }
    std::printf("addr_gen: %u patterns, %llu addresses match the software enumeration\n", patterns,
                static_cast<unsigned long long>(addresses));
  }

  /// The greedy split of `addrs`; counts the bursts that are full length or cut by a page end.
  std::vector<BurstSpec> expectedBursts(const std::vector<uint64_t> &addrs) {
    std::vector<BurstSpec> bursts = splitIntoBursts(addrs, shape_.wordBytes, shape_.maxBurstLen);
    for (size_t i = 0; i < bursts.size(); ++i) {
      const uint64_t end = bursts[i].addr + uint64_t(bursts[i].beats) * shape_.wordBytes;
      fullBursts_ += bursts[i].beats == shape_.maxBurstLen;
      // Cut by the page end although the next burst continues it.
      pageEndBursts_ += bursts[i].beats < shape_.maxBurstLen && end % 4096 == 0 &&
                        i + 1 < bursts.size() && bursts[i + 1].addr == end;
    }
    return bursts;
  }

  /// One pattern through the read DMA; returns the beats read.
  /// With `expectFromMemory` false the caller has queued the expected words itself.
  uint64_t readPattern(const AddrPattern &p, bool expectError = false,
                       bool expectFromMemory = true) {
    const std::vector<uint64_t> addrs = p.addresses();
    if (expectFromMemory)
      for (uint64_t a : addrs)
        rdBoard_.expect(readMemory_.readWord(a));
    readBursts_.clear();
    const uint64_t before = rdSink_.received(), donesBefore = rdDone_.count();
    start(m_.rd_start_valid_i, m_.rd_start_ready_o, p);
    h_.runUntil([&] { return rdDone_.count() > donesBefore; }, addrs.size() * 200 + 5000);
    // done_o comes after the last word, never before.
    check(rdBoard_.finalCheck(), p);
    if (rdSink_.received() - before != addrs.size())
      fail("read DMA: " + std::to_string(rdSink_.received() - before) + " words for " +
               std::to_string(addrs.size()) + " points",
           p);
    check(compareBursts(expectedBursts(addrs), readBursts_, "AR"), p);
    if (static_cast<bool>(m_.rd_error_o) != expectError)
      fail(std::string("read DMA: error_o ") + (expectError ? "not set after SLVERR" : "set"), p);
    return addrs.size();
  }

  void testRead(uint64_t minBeats, unsigned minPatterns) {
    fullBursts_ = pageEndBursts_ = 0;
    uint64_t beats = 0;
    unsigned n = 0;
    for (; n < minPatterns || beats < minBeats; ++n) {
      AddrPattern p = randomPattern(rng_, shape_, 300, true);
      readMemory_.setConfig(memoryTiming(rng_, n));
      rdSink_.setReadyProbability(n % 5 == 0 ? 0.15 : (n % 2 ? 1.0 : 0.6));
      if (n % 2 == 0) // host-loaded data; otherwise the memory's address-derived fill
        p.forEach(
            [&](uint64_t a) { readMemory_.writeWord(a, Bits::random(shape_.dataWidth, rng_)); });
      beats += readPattern(p);
    }
    std::printf("read DMA: %u patterns, %llu beats in order, %llu AR bursts (%llu of MaxBurstLen, "
                "%llu cut at a 4 KB page end); memory busy %llu cycles, %llu bytes read\n",
                n, static_cast<unsigned long long>(beats),
                static_cast<unsigned long long>(readChecker_.readBursts()),
                static_cast<unsigned long long>(fullBursts_),
                static_cast<unsigned long long>(pageEndBursts_),
                static_cast<unsigned long long>(readMemory_.stats().busyCycles),
                static_cast<unsigned long long>(readMemory_.stats().bytesRead));
  }

  /// One pattern through the write DMA, checked against the shadow; returns the beats written.
  uint64_t writePattern(const AddrPattern &p, bool expectError = false) {
    const std::vector<uint64_t> addrs = p.addresses();
    for (uint64_t a : addrs) {
      Bits word = Bits::random(shape_.dataWidth, rng_);
      wrDriver_.push(word);
      shadow_[a] = word;
    }
    writeBursts_.clear();
    const uint64_t sentBefore = wrDriver_.sent(), donesBefore = wrDone_.count();
    start(m_.wr_start_valid_i, m_.wr_start_ready_o, p);
    h_.runUntil([&] { return wrDone_.count() > donesBefore; }, addrs.size() * 200 + 5000);
    if (wrDriver_.sent() - sentBefore != addrs.size() || !wrDriver_.idle())
      fail("write DMA: consumed " + std::to_string(wrDriver_.sent() - sentBefore) + " words for " +
               std::to_string(addrs.size()) + " points",
           p);
    if (!writeMemory_.idle())
      fail("write DMA: done_o before every write was answered", p);
    // Host read-back: first point whose memory word differs from the last write to it.
    for (size_t i = 0; i < addrs.size(); ++i) {
      Bits actual = writeMemory_.readWord(addrs[i]);
      const Bits &expected = shadow_.at(addrs[i]);
      if (actual != expected)
        fail("write DMA: word " + std::to_string(i) + " at " + hex(addrs[i]) + ": expected " +
                 expected.toString() + ", memory holds " + actual.toString(),
             p);
    }
    check(compareBursts(expectedBursts(addrs), writeBursts_, "AW"), p);
    if (static_cast<bool>(m_.wr_error_o) != expectError)
      fail(std::string("write DMA: error_o ") + (expectError ? "not set after SLVERR" : "set"), p);
    return addrs.size();
  }

  void testWrite(uint64_t minBeats, unsigned minPatterns) {
    fullBursts_ = pageEndBursts_ = 0;
    uint64_t beats = 0;
    unsigned n = 0;
    AddrPattern p;
    for (; n < minPatterns || beats < minBeats; ++n) {
      p = randomPattern(rng_, shape_, 300, true);
      writeMemory_.setConfig(memoryTiming(rng_, n));
      wrDriver_.setValidProbability(n % 5 == 0 ? 0.15 : (n % 2 ? 1.0 : 0.6));
      beats += writePattern(p);
    }
    // Round trip: the read DMA returns what the write DMA stored (the memories share a store).
    readMemory_.setConfig(memoryTiming(rng_, 1));
    p.forEach([&](uint64_t a) { rdBoard_.expect(shadow_.at(a)); });
    uint64_t received = rdSink_.received();
    readPattern(p, false, false);
    if (rdSink_.received() - received != p.points())
      fail("round trip: read DMA returned a different number of words", p);
    std::printf("write DMA: %u patterns, %llu beats read back equal to the shadow, %llu AW "
                "bursts (%llu of MaxBurstLen, %llu cut at a 4 KB page end); memory busy %llu "
                "cycles, %llu bytes written; read back through the read DMA\n",
                n, static_cast<unsigned long long>(beats),
                static_cast<unsigned long long>(writeChecker_.writeBursts()),
                static_cast<unsigned long long>(fullBursts_),
                static_cast<unsigned long long>(pageEndBursts_),
                static_cast<unsigned long long>(writeMemory_.stats().busyCycles),
                static_cast<unsigned long long>(writeMemory_.stats().bytesWritten));
  }

  /// hold_i: a read started while it is high loads no burst (no AR, no word); released, it
  /// reads its pattern. Then random patterns over the claim's 4 KB channels (below 64 KB) under
  /// each memory timing, hold low, while the ClaimMonitor checks claim_o every cycle.
  void testHoldAndClaim() {
    AddrPattern p;
    p.base = 4096 - 3 * shape_.wordBytes; // across the first page ends
    p.tripCounts = {static_cast<uint32_t>(std::min<uint64_t>(3 * 4096 / shape_.wordBytes, 200))};
    p.strides = {static_cast<int64_t>(shape_.wordBytes)};
    readMemory_.setConfig(memoryTiming(rng_, 1));
    rdSink_.setReadyProbability(1.0);
    const std::vector<uint64_t> addrs = p.addresses();
    for (uint64_t a : addrs)
      rdBoard_.expect(readMemory_.readWord(a));
    readBursts_.clear();
    const uint64_t before = rdSink_.received(), donesBefore = rdDone_.count();
    m_.rd_hold_i = 1;
    start(m_.rd_start_valid_i, m_.rd_start_ready_o, p);
    for (int i = 0; i < 300; ++i)
      h_.step();
    if (!readBursts_.empty() || rdSink_.received() != before || m_.m_axi_rd_arvalid)
      fail("read DMA: a burst went out while hold_i was high", p);
    m_.rd_hold_i = 0;
    h_.runUntil([&] { return rdDone_.count() > donesBefore; }, addrs.size() * 200 + 5000);
    check(rdBoard_.finalCheck(), p);
    check(compareBursts(expectedBursts(addrs), readBursts_, "AR"), p);
    if (claims_.heldBursts() != 0)
      fail("read DMA: an AR handshake while hold_i was high", p);
    const uint64_t claimedBefore = claims_.claimedBursts();
    for (unsigned n = 0; n < 24; ++n) {
      // Rows of words at a random row stride, every address below 64 KB.
      auto uniform = [&](uint64_t lo, uint64_t hi) {
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
      };
      AddrPattern q;
      const uint64_t word = shape_.wordBytes;
      q.base = uniform(0, 16 * 4096 / word - 1) * word / 4; // below 16 KB
      q.base -= q.base % word;
      const uint32_t rows = static_cast<uint32_t>(uniform(1, 4));
      const uint32_t cols =
          static_cast<uint32_t>(uniform(1, std::min<uint64_t>(6 * 4096 / word, 150)));
      q.tripCounts = {rows, cols};
      q.strides = {static_cast<int64_t>(uniform(cols, 2 * 4096 / word + cols) * word),
                   static_cast<int64_t>(word)};
      bool inside = true;
      q.forEach([&](uint64_t a) { inside = inside && a < 16 * 4096; });
      if (!inside)
        continue;
      readMemory_.setConfig(memoryTiming(rng_, n));
      rdSink_.setReadyProbability(n % 3 == 0 ? 0.3 : 1.0);
      readPattern(q);
    }
    if (claims_.claimedBursts() - claimedBefore < 24)
      h_.fail("channel claim: too few bursts below 64 KB (" +
              std::to_string(claims_.claimedBursts() - claimedBefore) + ")");
    std::printf("hold: no burst while held, the pattern after; channel claim: %llu bursts on 16 "
                "channels, claim_o as the reference every cycle\n",
                static_cast<unsigned long long>(claims_.claimedBursts()));
  }

  /// SLVERR on part of a pattern sets error_o; the next start clears it.
  void testErrors() {
    AddrPattern p;
    p.base = 5 * kChannelBytes + 8192 - 2 * shape_.wordBytes;
    p.tripCounts = {40};
    p.strides = {static_cast<int64_t>(shape_.wordBytes)};
    readMemory_.setConfig({});
    writeMemory_.setConfig({});
    rdSink_.setReadyProbability(1.0);
    wrDriver_.setValidProbability(1.0);
    readMemory_.setErrorRange(p.base + 4 * shape_.wordBytes, p.base + 5 * shape_.wordBytes);
    writeMemory_.setErrorRange(p.base + 4 * shape_.wordBytes, p.base + 5 * shape_.wordBytes);
    readPattern(p, true);
    writePattern(p, true);
    readMemory_.setErrorRange(0, 0);
    writeMemory_.setErrorRange(0, 0);
    readPattern(p, false);
    writePattern(p, false);
    std::printf("errors: SLVERR sets error_o on both DMAs, the next start clears it\n");
  }

  /// Long contiguous runs with no stalls and a fixed latency: one beat per cycle. Returns
  /// {read cycles, write cycles} from the start handshake to the done pulse.
  std::pair<uint64_t, uint64_t> contiguousRun(uint64_t beats, const AxiMemoryConfig &timing) {
    AddrPattern p;
    p.base = 3 * kChannelBytes + 4096 * 7;
    p.tripCounts = {static_cast<uint32_t>(beats)};
    p.strides = {static_cast<int64_t>(shape_.wordBytes)};
    readMemory_.setConfig(timing);
    writeMemory_.setConfig(timing);
    rdSink_.setReadyProbability(1.0);
    wrDriver_.setValidProbability(1.0);
    uint64_t startCycle = h_.cycle();
    readPattern(p);
    uint64_t readCycles = rdDone_.lastCycle() - startCycle;
    startCycle = h_.cycle();
    writePattern(p);
    uint64_t writeCycles = wrDone_.lastCycle() - startCycle;
    return {readCycles, writeCycles};
  }

  void testThroughput() {
    const uint64_t beats = 4096;
    AxiMemoryConfig timing;
    timing.readLatency = timing.writeLatency = 8;
    auto [readCycles, writeCycles] = contiguousRun(beats, timing);
    double readRate = double(beats) / readCycles, writeRate = double(beats) / writeCycles;
    std::printf("throughput, %llu contiguous beats, latency 8, no stalls: read %llu cycles "
                "(%.4f beats/cycle), write %llu cycles (%.4f beats/cycle)\n",
                static_cast<unsigned long long>(beats), static_cast<unsigned long long>(readCycles),
                readRate, static_cast<unsigned long long>(writeCycles), writeRate);
    if (readRate < 0.9 || writeRate < 0.9)
      h_.fail("throughput below 0.9 beats/cycle on a long contiguous run");
    // Exactly one beat per cycle once running. The first burst issues when its MaxBurstLen
    // addresses are merged (one per cycle); then AR register 1, AR handshake 1, memory
    // latency + 1, buffer 1, and done 2 cycles after the last word (read) or B (write).
    const uint64_t expectedCycles = beats + shape_.maxBurstLen + timing.readLatency + 6;
    if (readCycles != expectedCycles || writeCycles != expectedCycles)
      h_.fail("contiguous run took " + std::to_string(readCycles) + " (read) and " +
              std::to_string(writeCycles) + " (write) cycles, expected exactly " +
              std::to_string(expectedCycles));

    // Under the HBM cap at 250 MHz: 57.5 B/cycle per pseudo-channel.
    timing.kernelClockMhz = 250;
    auto [cappedRead, cappedWrite] = contiguousRun(beats, timing);
    const double cap = AxiMemory::bytesPerCycle(250);
    double readBytes = double(beats) * shape_.wordBytes / cappedRead;
    double writeBytes = double(beats) * shape_.wordBytes / cappedWrite;
    std::printf("throughput under the 250 MHz HBM cap (%.1f B/cycle): read %.2f B/cycle "
                "(%.4f beats/cycle), write %.2f B/cycle (%.4f beats/cycle)\n",
                cap, readBytes, readBytes / shape_.wordBytes, writeBytes,
                writeBytes / shape_.wordBytes);
    const double expected = std::min<double>(cap, shape_.wordBytes);
    if (readBytes > expected * 1.01 || readBytes < expected * 0.95 ||
        writeBytes > expected * 1.01 || writeBytes < expected * 0.95)
      h_.fail("capped rate not within [0.95, 1.01] of " + std::to_string(expected) + " B/cycle");
  }

private:
  static AxiPins makeReadPins(Model &m, const DmaShape &s) {
    AxiPins pins;
    ST_AXI_BIND_READ(pins, m, m_axi_rd_, 1, 64, s.dataWidth);
    return pins;
  }
  static AxiPins makeWritePins(Model &m, const DmaShape &s) {
    AxiPins pins;
    ST_AXI_BIND_WRITE(pins, m, m_axi_wr_, 1, 64, s.dataWidth);
    return pins;
  }

  /// Puts the pattern on the configuration pins and makes one start handshake.
  void start(CData &startValid, CData &startReady, const AddrPattern &p) {
    h_.runUntil([&] { return startReady != 0; }, 10000);
    SignalRef(m_.cfg_base_addr_i, 64).write(p.base);
    SignalRef(m_.cfg_trip_counts_i, 32 * shape_.numLoops)
        .write(p.packedTripCounts(shape_.numLoops));
    SignalRef(m_.cfg_strides_i, 64 * shape_.numLoops).write(p.packedStrides(shape_.numLoops));
    startValid = 1;
    h_.step();
    startValid = 0;
    // Scramble the configuration: it must have been latched.
    SignalRef(m_.cfg_base_addr_i, 64).write(rng_());
    SignalRef(m_.cfg_trip_counts_i, 32 * shape_.numLoops)
        .write(Bits::random(32 * shape_.numLoops, rng_));
  }

  void check(const std::string &error, const AddrPattern &p) {
    if (!error.empty())
      fail(error, p);
  }
  [[noreturn]] void fail(const std::string &message, const AddrPattern &p) {
    h_.fail(message + " (pattern " + p.toString() + ")");
  }

  Harness<Model> h_;
  DmaShape shape_;
  std::mt19937_64 rng_;
  Model &m_;
  AxiPins readPins_, writePins_;
  AxiMemory readMemory_, writeMemory_;
  AxiProtocolChecker readChecker_, writeChecker_;
  StreamSink agSink_, rdSink_;
  StreamDriver wrDriver_;
  Scoreboard agBoard_, rdBoard_;
  PulseCounter agDone_, rdDone_, wrDone_;
  ClaimMonitor<Model> claims_{m_};
  std::vector<BurstSpec> readBursts_, writeBursts_;
  std::map<uint64_t, Bits> shadow_;
  uint64_t agLastIndex_ = 0;
  uint64_t fullBursts_ = 0, pageEndBursts_ = 0;
};

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  DmaBench<Model> bench(options, params);
  bench.testAddrGen(150);
  bench.testRead(options.tokens, 200);
  bench.testWrite(options.tokens, 200);
  bench.testErrors();
  bench.testHoldAndClaim();
  bench.testThroughput();
}

// ---------------------------------------------------------------------------------------------
// AxiMemory alone, on plain C++ variables standing for a master's read port.
// ---------------------------------------------------------------------------------------------

struct PlainReadPort {
  uint8_t arid = 0, arlen = 0, arsize = 3, arburst = 1, arvalid = 0, arready = 0;
  uint64_t araddr = 0;
  uint8_t rid = 0, rresp = 0, rlast = 0, rvalid = 0, rready = 0;
  uint64_t rdata = 0;
  AxiPins pins() {
    AxiPins p;
    ST_AXI_BIND_READ(p, *this, , 2, 64, 64);
    return p;
  }
};

/// Issues `bursts` reads over 4 IDs; returns how many bursts completed before an older burst of
/// another ID. Fails on wrong data, wrong RLAST or same-ID reordering.
uint64_t runMemoryReads(uint64_t seed, bool reorder, unsigned bursts) {
  PlainReadPort port;
  AxiMemoryConfig config;
  config.readLatency = 2;
  config.readLatencyJitter = 40;
  config.reorderAcrossIds = reorder;
  config.maxBurstLen = 16;
  AxiMemory memory("unit", port.pins(), seed, config);
  AxiProtocolChecker checker("unit", port.pins(), 16);
  std::mt19937_64 rng(seed);
  struct Issued {
    uint64_t serial, addr;
    unsigned beats;
  };
  std::map<unsigned, std::deque<Issued>> perId;
  std::vector<bool> completed(bursts, false);
  std::vector<Issued> requests;
  for (unsigned i = 0; i < bursts; ++i)
    requests.push_back({i, (uint64_t(i) * 4096) + 8 * (rng() % 64), 1 + unsigned(rng() % 8)});
  unsigned nextRequest = 0, done = 0, beat = 0;
  uint64_t overtakes = 0;
  memory.reset();
  for (uint64_t cycle = 0; done < bursts; ++cycle) {
    if (cycle > 100000)
      throw TestFailure("memory unit: reads did not complete");
    port.arvalid = nextRequest < bursts;
    if (port.arvalid) {
      port.arid = nextRequest % 4;
      port.araddr = requests[nextRequest].addr;
      port.arlen = static_cast<uint8_t>(requests[nextRequest].beats - 1);
    }
    port.rready = (rng() % 10) < 7;
    memory.drive(cycle);
    memory.sample(cycle);
    checker.sample(cycle);
    for (const std::string &e : {memory.error(), checker.error()})
      if (!e.empty())
        throw TestFailure(e);
    if (port.arvalid && port.arready) {
      perId[port.arid].push_back(requests[nextRequest]);
      ++nextRequest;
    }
    if (port.rvalid && port.rready) {
      auto &queue = perId[port.rid];
      if (queue.empty())
        throw TestFailure("memory unit: R beat for idle ID " + std::to_string(port.rid));
      const Issued &b = queue.front(); // same ID: oldest first
      Bits expected = memory.readWord(b.addr + 8 * beat);
      if (Bits(64, port.rdata) != expected)
        throw TestFailure("memory unit: burst " + std::to_string(b.serial) + " beat " +
                          std::to_string(beat) + ": expected " + expected.toString() + ", got " +
                          Bits(64, port.rdata).toString());
      if (++beat == b.beats) {
        for (uint64_t s = 0; s < b.serial; ++s)
          if (!completed[s] && requests[s].serial % 4 != b.serial % 4) {
            ++overtakes;
            break;
          }
        completed[b.serial] = true;
        queue.pop_front();
        beat = 0;
        ++done;
      }
    }
  }
  return overtakes;
}

/// Two 64-byte read ports streaming long bursts with rready held high under the 250 MHz cap,
/// sharing bandwidth buckets; port 1 reads from pseudo-channel `channel1` (port 0 from 0).
/// Returns the beats each port got in `cycles` cycles.
std::pair<uint64_t, uint64_t> runSharedBandwidth(uint64_t seed, unsigned channel1,
                                                 uint64_t cycles) {
  struct WidePort {
    uint64_t araddr = 0;
    uint8_t arid = 0, arlen = 0, arsize = 6, arburst = AxiMemory::kBurstIncr, arvalid = 0,
            arready = 0, rid = 0, rresp = 0, rlast = 0, rvalid = 0, rready = 1;
    VlWide<16> rdata{};
    AxiPins pins() {
      AxiPins p;
      ST_AXI_BIND_READ(p, *this, , 1, 64, 512);
      return p;
    }
  };
  AxiMemoryConfig config;
  config.kernelClockMhz = 250;
  WidePort ports[2];
  AxiMemory m0("bw0", ports[0].pins(), seed, config), m1("bw1", ports[1].pins(), seed + 1, config);
  m1.shareBandwidthWith(m0);
  m0.reset();
  m1.reset();
  uint64_t beats[2] = {0, 0}, next[2] = {0, uint64_t(channel1) * kChannelBytes};
  for (uint64_t cycle = 0; cycle < cycles; ++cycle) {
    for (int i = 0; i < 2; ++i) {
      ports[i].arvalid = 1;
      ports[i].araddr = next[i];
      ports[i].arlen = 63;
    }
    m0.drive(cycle);
    m1.drive(cycle);
    m0.sample(cycle);
    m1.sample(cycle);
    for (int i = 0; i < 2; ++i) {
      if (ports[i].arvalid && ports[i].arready)
        next[i] += 4096;
      if (ports[i].rvalid && ports[i].rready)
        ++beats[i];
    }
    for (const std::string &e : {m0.error(), m1.error()})
      if (!e.empty())
        throw TestFailure(e);
  }
  return {beats[0], beats[1]};
}

/// A 64-byte read port streaming long bursts from pseudo-channel 0 beside a write port of the
/// same channel whose AW is accepted but whose data never comes (wvalid low: a DMA that issued
/// the next row's address ahead of the row), under the 250 MHz cap. Returns the read's beats in
/// `cycles` cycles.
uint64_t runReadBesidePendingWrite(uint64_t seed, uint64_t cycles) {
  struct ReadWritePort {
    uint64_t araddr = 0, awaddr = 0;
    uint8_t arid = 0, arlen = 63, arsize = 6, arburst = AxiMemory::kBurstIncr, arvalid = 1,
            arready = 0, rid = 0, rresp = 0, rlast = 0, rvalid = 0, rready = 1;
    uint8_t awid = 0, awlen = 0, awsize = 6, awburst = AxiMemory::kBurstIncr, awvalid = 1,
            awready = 0, wlast = 1, wvalid = 0, wready = 0, bid = 0, bresp = 0, bvalid = 0,
            bready = 1;
    uint64_t wstrb = ~uint64_t(0);
    VlWide<16> rdata{}, wdata{};
  };
  ReadWritePort reader, writer;
  AxiPins readPins, writePins;
  ST_AXI_BIND_READ(readPins, reader, , 1, 64, 512);
  ST_AXI_BIND_WRITE(writePins, writer, , 1, 64, 512);
  AxiMemoryConfig config;
  config.kernelClockMhz = 250;
  AxiMemory read("read", readPins, seed, config), write("write", writePins, seed + 1, config);
  write.shareBandwidthWith(read);
  read.reset();
  write.reset();
  writer.awaddr = 1 << 20; // pseudo-channel 0, beside the reads
  uint64_t beats = 0;
  for (uint64_t cycle = 0; cycle < cycles; ++cycle) {
    read.drive(cycle);
    write.drive(cycle);
    read.sample(cycle);
    write.sample(cycle);
    if (reader.arvalid && reader.arready)
      reader.araddr = (reader.araddr + 4096) % (1 << 20);
    if (writer.awvalid && writer.awready)
      writer.awvalid = 0; // one AW, its beat never offered
    if (reader.rvalid && reader.rready)
      ++beats;
    for (const std::string &e : {read.error(), write.error()})
      if (!e.empty())
        throw TestFailure(e);
  }
  if (writer.awvalid)
    throw TestFailure("memory unit: the write's AW was never accepted");
  return beats;
}

void runMemoryUnit(const TestOptions &options) {
  {
    // A write whose data is not there takes no turn of its channel: the read keeps the cap.
    const uint64_t cycles = 20000;
    const double cap = AxiMemory::bytesPerCycle(250) / 64 * cycles;
    const uint64_t beats = runReadBesidePendingWrite(options.seed, cycles);
    std::printf("memory unit: a read beside a write with its AW pending and no data: %llu beats "
                "of the channel's %.0f\n",
                static_cast<unsigned long long>(beats), cap);
    if (double(beats) < 0.98 * cap)
      throw TestFailure("memory unit: a write without data held back the read on its channel");
  }
  {
    const uint64_t cycles = 20000;
    const double cap = AxiMemory::bytesPerCycle(250) / 64 * cycles; // beats one channel allows
    const auto [same0, same1] = runSharedBandwidth(options.seed, 0, cycles);
    const auto [own0, own1] = runSharedBandwidth(options.seed, 5, cycles);
    std::printf("memory unit: %llu cycles at 250 MHz, one channel's cap %.0f beats: ports on one "
                "channel %llu + %llu beats, on channels 0 and 5 %llu and %llu\n",
                static_cast<unsigned long long>(cycles), cap,
                static_cast<unsigned long long>(same0), static_cast<unsigned long long>(same1),
                static_cast<unsigned long long>(own0), static_cast<unsigned long long>(own1));
    if (double(same0 + same1) > cap + 2 || double(same0 + same1) < 0.98 * cap)
      throw TestFailure("memory unit: two ports on one pseudo-channel did not share its cap");
    if (std::min(same0, same1) < 0.45 * double(same0 + same1))
      throw TestFailure("memory unit: one port starved the other on their shared channel");
    for (uint64_t b : {own0, own1})
      if (double(b) > cap + 2 || double(b) < 0.98 * cap)
        throw TestFailure("memory unit: a port on its own pseudo-channel did not get its cap");
  }

  uint64_t overtakes = runMemoryReads(options.seed, true, 200);
  uint64_t inOrder = runMemoryReads(options.seed, false, 200);
  std::printf("memory unit: 200 bursts over 4 IDs, %llu completed before an older burst of "
              "another ID (reordering on), %llu with reordering off; same-ID order kept\n",
              static_cast<unsigned long long>(overtakes), static_cast<unsigned long long>(inOrder));
  if (overtakes == 0)
    throw TestFailure("memory unit: no read came back out of order across IDs");
  if (inOrder != 0)
    throw TestFailure("memory unit: reads reordered with reorderAcrossIds off");

  // A FIXED burst is refused with a protocol error.
  PlainReadPort port;
  AxiMemory memory("unit", port.pins(), options.seed);
  memory.reset();
  port.arvalid = 1;
  port.arburst = AxiMemory::kBurstFixed;
  for (uint64_t cycle = 0; cycle < 4 && memory.error().empty(); ++cycle) {
    memory.drive(cycle);
    memory.sample(cycle);
  }
  if (memory.error().find("FIXED") == std::string::npos)
    throw TestFailure("memory unit: FIXED burst not refused");
  std::printf("memory unit: FIXED burst refused: %s\n", memory.error().c_str());
}

} // namespace

int main(int argc, char **argv) {
  return runTest(argc, argv, [](const TestOptions &options) {
    if (options.config == "memory_unit")
      return runMemoryUnit(options);
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known: memory_unit" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
