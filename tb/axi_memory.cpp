// AxiMemory: sparse HBM pseudo-channel memory behind an AXI4 slave port, with bandwidth cap,
// latency, stalls and out-of-order completion across IDs.
#include "axi_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace st::tb {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

AxiMemory::AxiMemory(std::string name, AxiPins pins, uint64_t seed, AxiMemoryConfig config)
    : name_(std::move(name)), pins_(std::move(pins)), rng_(seed) {
  unsigned width = pins_.rdata.valid() ? pins_.rdata.width() : pins_.wdata.width();
  if (width == 0 || width % 8 != 0 || (width & (width - 1)) != 0)
    throw std::invalid_argument("AxiMemory " + name_ + ": data width must be a power of two >= 8");
  dataBytes_ = width / 8;
  while ((1u << sizeLog2_) < dataBytes_)
    ++sizeLog2_;
  setConfig(config);
}

void AxiMemory::setConfig(const AxiMemoryConfig &config) {
  config_ = config;
  bytesPerCycle_ = config_.kernelClockMhz > 0
                       ? bytesPerCycle(config_.kernelClockMhz, config_.channelPeakGBps)
                       : 0.0;
  resetBuckets();
  channelStats_.resize(config_.numChannels);
}

void AxiMemory::clearStats() {
  stats_ = {};
  std::fill(channelStats_.begin(), channelStats_.end(), AxiMemoryStats{});
}

// ---------------------------------------------------------------------------------------------
// Host access
// ---------------------------------------------------------------------------------------------

uint8_t AxiMemory::fillByte(uint64_t addr) {
  return static_cast<uint8_t>(splitmix64(addr >> 3) >> (8 * (addr & 7)));
}

std::vector<uint8_t> &AxiMemory::page(uint64_t pageIndex) {
  auto it = pages_->find(pageIndex);
  if (it != pages_->end())
    return it->second;
  std::vector<uint8_t> bytes(kPageBytes);
  for (uint64_t i = 0; i < kPageBytes; ++i)
    bytes[i] = fillByte(pageIndex * kPageBytes + i);
  return pages_->emplace(pageIndex, std::move(bytes)).first->second;
}

void AxiMemory::write(uint64_t addr, const uint8_t *data, size_t bytes) {
  while (bytes > 0) {
    uint64_t offset = addr % kPageBytes;
    size_t chunk = std::min<uint64_t>(bytes, kPageBytes - offset);
    std::memcpy(page(addr / kPageBytes).data() + offset, data, chunk);
    addr += chunk, data += chunk, bytes -= chunk;
  }
}

void AxiMemory::read(uint64_t addr, uint8_t *data, size_t bytes) const {
  while (bytes > 0) {
    uint64_t offset = addr % kPageBytes;
    size_t chunk = std::min<uint64_t>(bytes, kPageBytes - offset);
    auto it = pages_->find(addr / kPageBytes);
    if (it != pages_->end()) {
      std::memcpy(data, it->second.data() + offset, chunk);
    } else {
      for (size_t i = 0; i < chunk; ++i)
        data[i] = fillByte(addr + i);
    }
    addr += chunk, data += chunk, bytes -= chunk;
  }
}

void AxiMemory::writeWord(uint64_t addr, const Bits &word) {
  std::vector<uint8_t> bytes(dataBytes_);
  for (unsigned i = 0; i < dataBytes_; ++i)
    bytes[i] = static_cast<uint8_t>(word.words()[i / 4] >> (8 * (i % 4)));
  write(addr, bytes.data(), bytes.size());
}

Bits AxiMemory::readWord(uint64_t addr) const {
  std::vector<uint8_t> bytes(dataBytes_);
  read(addr, bytes.data(), bytes.size());
  Bits word(dataBytes_ * 8);
  for (unsigned i = 0; i < dataBytes_; ++i)
    word.data()[i / 4] |= static_cast<uint32_t>(bytes[i]) << (8 * (i % 4));
  return word;
}

// ---------------------------------------------------------------------------------------------
// Timing helpers
// ---------------------------------------------------------------------------------------------

unsigned AxiMemory::channelOf(uint64_t addr) const {
  return static_cast<unsigned>((addr / config_.channelBytes) % config_.numChannels);
}

void AxiMemory::resetBuckets() {
  buckets_->tokens.assign(config_.numChannels, 2.0 * std::max<double>(dataBytes_, bytesPerCycle_));
  buckets_->waiting.assign(config_.numChannels, {});
  buckets_->refilledAt = ~uint64_t(0);
  waitingOn_[0] = waitingOn_[1] = -1;
}

bool AxiMemory::mayMoveBeat(uint64_t addr, int side) {
  asked_[side] = true;
  if (bytesPerCycle_ == 0)
    return true;
  const unsigned channel = channelOf(addr);
  const uintptr_t me = reinterpret_cast<uintptr_t>(this) * 2 + uintptr_t(side);
  if (waitingOn_[side] >= 0 && unsigned(waitingOn_[side]) != channel)
    leaveQueue(side); // its beat is now on another channel
  std::deque<uintptr_t> &queue = buckets_->waiting[channel];
  if ((queue.empty() || queue.front() == me) && buckets_->tokens[channel] >= dataBytes_) {
    if (!queue.empty()) {
      queue.pop_front();
      waitingOn_[side] = -1;
    }
    return true;
  }
  if (waitingOn_[side] < 0) {
    queue.push_back(me);
    waitingOn_[side] = int(channel);
  }
  return false;
}

void AxiMemory::leaveQueue(int side) {
  if (waitingOn_[side] >= 0) {
    std::deque<uintptr_t> &queue = buckets_->waiting[unsigned(waitingOn_[side])];
    const uintptr_t me = reinterpret_cast<uintptr_t>(this) * 2 + uintptr_t(side);
    queue.erase(std::remove(queue.begin(), queue.end(), me), queue.end());
    waitingOn_[side] = -1;
  }
}

void AxiMemory::spendTokens(uint64_t addr) {
  if (bytesPerCycle_ > 0)
    buckets_->tokens[channelOf(addr)] -= dataBytes_;
}

bool AxiMemory::chance(double p) {
  if (p >= 1.0)
    return true;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return u(rng_) < p;
}

unsigned AxiMemory::latency(unsigned fixed, unsigned jitter) {
  if (jitter == 0)
    return fixed;
  std::uniform_int_distribution<unsigned> u(0, jitter);
  return fixed + u(rng_);
}

int AxiMemory::pickNext(const std::deque<Burst> &list, uint64_t cycle) {
  if (!config_.reorderAcrossIds)
    return !list.empty() && list.front().readyAt <= cycle ? 0 : -1;
  std::vector<int> eligible;
  for (size_t i = 0; i < list.size(); ++i) {
    bool olderSameId = false;
    for (size_t j = 0; j < i && !olderSameId; ++j)
      olderSameId = list[j].id == list[i].id;
    if (!olderSameId && list[i].readyAt <= cycle)
      eligible.push_back(static_cast<int>(i));
  }
  if (eligible.empty())
    return -1;
  std::uniform_int_distribution<size_t> u(0, eligible.size() - 1);
  return eligible[u(rng_)];
}

void AxiMemory::fail(const std::string &message) {
  if (error_.empty())
    error_ = "AxiMemory " + name_ + ": " + message;
}

// ---------------------------------------------------------------------------------------------
// Per-cycle behaviour
// ---------------------------------------------------------------------------------------------

void AxiMemory::reset() {
  reads_.clear();
  writes_.clear();
  responses_.clear();
  rBurst_ = bIndex_ = -1;
  rActive_ = false;
  arReady_ = awReady_ = wReady_ = false;
  resetBuckets();
  if (pins_.hasRead()) {
    pins_.arready.write(0);
    pins_.rvalid.write(0);
  }
  if (pins_.hasWrite()) {
    pins_.awready.write(0);
    pins_.wready.write(0);
    pins_.bvalid.write(0);
  }
}

void AxiMemory::drive(uint64_t cycle) {
  if (bytesPerCycle_ > 0 && buckets_->refilledAt != cycle) {
    const double cap = 2.0 * std::max<double>(dataBytes_, bytesPerCycle_);
    for (double &t : buckets_->tokens)
      t = std::min(cap, t + bytesPerCycle_);
    buckets_->refilledAt = cycle;
  }
  asked_[0] = asked_[1] = false;

  if (pins_.hasRead()) {
    arReady_ = reads_.size() < config_.maxPendingReads && chance(config_.arreadyProbability);
    pins_.arready.write(arReady_ ? 1 : 0);

    // R: keep offering a beat until it is taken; otherwise continue the burst in progress, or
    // pick the next one.
    if (rBurst_ < 0) {
      int next = -1;
      if (rActive_) {
        for (size_t i = 0; i < reads_.size() && next < 0; ++i)
          if (reads_[i].serial == rActiveSerial_)
            next = static_cast<int>(i);
      } else {
        next = pickNext(reads_, cycle);
      }
      if (next >= 0) {
        const Burst &b = reads_[next];
        uint64_t beatAddr = b.addr + uint64_t(b.done) * dataBytes_;
        if (chance(config_.rvalidProbability) && mayMoveBeat(beatAddr, 0)) {
          spendTokens(beatAddr);
          rBurst_ = next;
          rActive_ = true;
          rActiveSerial_ = b.serial;
        }
      }
    }
    if (rBurst_ >= 0) {
      const Burst &b = reads_[rBurst_];
      pins_.rid.write(b.id);
      pins_.rdata.write(readWord(b.addr + uint64_t(b.done) * dataBytes_));
      pins_.rresp.write(b.resp);
      pins_.rlast.write(b.done + 1 == b.beats ? 1 : 0);
      pins_.rvalid.write(1);
    } else {
      pins_.rvalid.write(0);
      pins_.rdata.write(Bits::random(dataBytes_ * 8, rng_));
      pins_.rlast.write(rng_() & 1);
    }
  }

  if (pins_.hasWrite()) {
    awReady_ = writes_.size() + responses_.size() < config_.maxPendingWrites &&
               chance(config_.awreadyProbability);
    pins_.awready.write(awReady_ ? 1 : 0);

    // WREADY waits for WVALID (AXI allows it): a burst whose AW came ahead of its data (an
    // append DMA's next row) neither holds a place in its channel's queue nor turns away the
    // reads that share the channel while its data is not there.
    wReady_ = false;
    if (!writes_.empty() && pins_.wvalid.readBool()) {
      const Burst &b = writes_.front();
      wReady_ = chance(config_.wreadyProbability) &&
                mayMoveBeat(b.addr + uint64_t(b.done) * dataBytes_, 1);
    }
    pins_.wready.write(wReady_ ? 1 : 0);

    if (bIndex_ < 0 && chance(config_.bvalidProbability))
      bIndex_ = pickNext(responses_, cycle);
    if (bIndex_ >= 0) {
      pins_.bid.write(responses_[bIndex_].id);
      pins_.bresp.write(responses_[bIndex_].resp);
      pins_.bvalid.write(1);
    } else {
      pins_.bvalid.write(0);
    }
  }
  for (int side : {0, 1})
    if (!asked_[side])
      leaveQueue(side);
}

bool AxiMemory::acceptAddress(bool isWrite, uint64_t cycle) {
  const AxiPins &p = pins_;
  const char *ch = isWrite ? "AW" : "AR";
  Burst b;
  b.id = (isWrite ? p.awid : p.arid).readU64();
  b.addr = (isWrite ? p.awaddr : p.araddr).readU64();
  b.beats = static_cast<unsigned>((isWrite ? p.awlen : p.arlen).readU64()) + 1;
  unsigned size = static_cast<unsigned>((isWrite ? p.awsize : p.arsize).readU64());
  unsigned burst = static_cast<unsigned>((isWrite ? p.awburst : p.arburst).readU64());
  b.serial = serial_++;
  std::string what =
      std::string(ch) + " burst at " + hex(b.addr) + " of " + std::to_string(b.beats) + " beats";
  if (burst == kBurstFixed) {
    fail(what + ": FIXED bursts are not accepted (HBM ports take INCR only)");
    return false;
  }
  if (burst != kBurstIncr) {
    fail(what + ": burst type " + std::to_string(burst) + " is not INCR");
    return false;
  }
  if (size != sizeLog2_) {
    fail(what + ": size " + std::to_string(size) + " is not the full bus width (" +
         std::to_string(sizeLog2_) + ")");
    return false;
  }
  if (b.beats > config_.maxBurstLen) {
    fail(what + ": longer than " + std::to_string(config_.maxBurstLen) + " beats");
    return false;
  }
  if (b.addr % dataBytes_ != 0) {
    fail(what + ": address not aligned to the bus width");
    return false;
  }
  uint64_t end = b.addr + uint64_t(b.beats) * dataBytes_;
  if (b.addr / kPageBytes != (end - 1) / kPageBytes) {
    fail(what + ": crosses a 4 KB boundary");
    return false;
  }
  if (errLo_ < errHi_ && b.addr < errHi_ && end > errLo_)
    b.resp = kSlvErr;
  if (isWrite) {
    writes_.push_back(b);
    ++stats_.writeBursts;
    ++channelStats_[channelOf(b.addr)].writeBursts;
  } else {
    b.readyAt = cycle + 1 + latency(config_.readLatency, config_.readLatencyJitter);
    reads_.push_back(b);
    ++stats_.readBursts;
    ++channelStats_[channelOf(b.addr)].readBursts;
  }
  return true;
}

void AxiMemory::sample(uint64_t cycle) {
  // Channels that moved a beat this cycle (-1: none), for the busy-cycle counts.
  long readChannel = -1, writeChannel = -1;

  if (pins_.hasRead()) {
    if (arReady_ && pins_.arvalid.readBool())
      acceptAddress(false, cycle);
    if (rBurst_ >= 0 && pins_.rready.readBool()) {
      Burst &b = reads_[rBurst_];
      unsigned channel = channelOf(b.addr);
      stats_.bytesRead += dataBytes_;
      channelStats_[channel].bytesRead += dataBytes_;
      readChannel = channel;
      if (++b.done == b.beats) {
        reads_.erase(reads_.begin() + rBurst_);
        rActive_ = false;
      }
      rBurst_ = -1;
    }
  }

  if (pins_.hasWrite()) {
    // wready was raised only with an accepted AW waiting, so W is handled before this cycle's AW.
    if (wReady_ && pins_.wvalid.readBool()) {
      Burst &b = writes_.front();
      uint64_t beatAddr = b.addr + uint64_t(b.done) * dataBytes_;
      Bits data = pins_.wdata.read();
      Bits strobes = pins_.wstrb.read();
      std::vector<uint8_t> bytes(dataBytes_);
      read(beatAddr, bytes.data(), dataBytes_);
      for (unsigned i = 0; i < dataBytes_; ++i)
        if (strobes.bit(i))
          bytes[i] = static_cast<uint8_t>(data.words()[i / 4] >> (8 * (i % 4)));
      write(beatAddr, bytes.data(), dataBytes_);
      spendTokens(beatAddr);
      unsigned channel = channelOf(beatAddr);
      stats_.bytesWritten += dataBytes_;
      channelStats_[channel].bytesWritten += dataBytes_;
      writeChannel = channel;
      bool last = ++b.done == b.beats;
      if (pins_.wlast.readBool() != last)
        fail("W beat " + std::to_string(b.done - 1) + " of the burst at " + hex(b.addr) + " (" +
             std::to_string(b.beats) + " beats): WLAST " +
             (last ? "missing on the last beat" : "on a beat that is not the last"));
      if (last) {
        b.readyAt = cycle + 1 + latency(config_.writeLatency, config_.writeLatencyJitter);
        responses_.push_back(b);
        writes_.pop_front();
      }
    }
    if (awReady_ && pins_.awvalid.readBool())
      acceptAddress(true, cycle);
    if (bIndex_ >= 0 && pins_.bready.readBool()) {
      responses_.erase(responses_.begin() + bIndex_);
      bIndex_ = -1;
    }
  }
  if (readChannel >= 0 || writeChannel >= 0)
    ++stats_.busyCycles;
  if (readChannel >= 0)
    ++channelStats_[readChannel].busyCycles;
  if (writeChannel >= 0 && writeChannel != readChannel)
    ++channelStats_[writeChannel].busyCycles;
}

} // namespace st::tb
