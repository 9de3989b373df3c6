// AxiProtocolChecker: AXI4 handshake, burst-shape and last-beat checks on a master port.
#include "axi_checker.h"

#include <cstdio>

namespace st::tb {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

AxiProtocolChecker::AxiProtocolChecker(std::string name, AxiPins pins, unsigned maxBurstLen)
    : name_(std::move(name)), pins_(std::move(pins)), maxBurstLen_(maxBurstLen) {
  const AxiPins &p = pins_;
  if (p.hasWrite()) {
    dataBytes_ = p.wdata.width() / 8;
    channels_.push_back(
        {"AW", p.awvalid, p.awready, {p.awid, p.awaddr, p.awlen, p.awsize, p.awburst}});
    channels_.push_back({"W", p.wvalid, p.wready, {p.wdata, p.wstrb, p.wlast}});
    channels_.push_back({"B", p.bvalid, p.bready, {p.bid, p.bresp}});
  }
  if (p.hasRead()) {
    dataBytes_ = p.rdata.width() / 8;
    channels_.push_back(
        {"AR", p.arvalid, p.arready, {p.arid, p.araddr, p.arlen, p.arsize, p.arburst}});
    channels_.push_back({"R", p.rvalid, p.rready, {p.rid, p.rdata, p.rresp, p.rlast}});
  }
}

void AxiProtocolChecker::reset() {
  for (Channel &c : channels_)
    c.stalled = false;
  awBeats_.clear();
  wBursts_.clear();
  awIds_.clear();
  writesAwaitingB_.clear();
  readsInFlight_.clear();
  rBeat_.clear();
  wBeat_ = 0;
}

void AxiProtocolChecker::fail(uint64_t cycle, const std::string &message) {
  if (error_.empty())
    error_ = "AXI checker " + name_ + ", cycle " + std::to_string(cycle) + ": " + message;
}

bool AxiProtocolChecker::watch(Channel &c, uint64_t cycle) {
  bool valid = c.valid.readBool();
  bool ready = c.ready.readBool();
  if (c.stalled) {
    if (!valid) {
      fail(cycle, c.name + "VALID dropped while the transfer was stalled");
    } else {
      for (size_t i = 0; i < c.payload.size(); ++i) {
        Bits now = c.payload[i].read();
        if (now != c.held[i])
          fail(cycle, c.name + " payload signal " + std::to_string(i) +
                          " changed while stalled, from " + c.held[i].toString() + " to " +
                          now.toString());
      }
    }
  }
  c.stalled = valid && !ready;
  if (c.stalled) {
    c.held.clear();
    for (const SignalRef &s : c.payload)
      c.held.push_back(s.read());
  }
  return valid && ready;
}

void AxiProtocolChecker::checkAddress(bool isWrite, uint64_t cycle) {
  const AxiPins &p = pins_;
  const std::string ch = isWrite ? "AW" : "AR";
  uint64_t id = (isWrite ? p.awid : p.arid).readU64();
  uint64_t addr = (isWrite ? p.awaddr : p.araddr).readU64();
  unsigned beats = static_cast<unsigned>((isWrite ? p.awlen : p.arlen).readU64()) + 1;
  unsigned size = static_cast<unsigned>((isWrite ? p.awsize : p.arsize).readU64());
  unsigned burst = static_cast<unsigned>((isWrite ? p.awburst : p.arburst).readU64());
  const std::string what =
      ch + " burst at " + hex(addr) + " of " + std::to_string(beats) + " beats";
  if (burst != 1)
    fail(cycle, what + ": burst type " + std::to_string(burst) + ", expected INCR (1)");
  if (beats > maxBurstLen_)
    fail(cycle, what + ": longer than the limit of " + std::to_string(maxBurstLen_) + " beats");
  if ((1u << size) != dataBytes_)
    fail(cycle, what + ": size " + std::to_string(size) + " is not the bus width");
  uint64_t last = addr + uint64_t(beats) * dataBytes_ - 1;
  if (addr / 4096 != last / 4096)
    fail(cycle, what + ": crosses the 4 KB boundary at " + hex((addr / 4096 + 1) * 4096));
  if (onBurst_)
    onBurst_(isWrite, addr, beats);
  if (isWrite) {
    ++writeBursts_;
    if (!wBursts_.empty()) {
      if (wBursts_.front() != beats)
        fail(cycle, what + ": its W data (sent ahead) had " + std::to_string(wBursts_.front()) +
                        " beats up to WLAST");
      wBursts_.pop_front();
      ++writesAwaitingB_[id];
    } else {
      awBeats_.push_back(beats);
      awIds_.push_back(id);
    }
  } else {
    ++readBursts_;
    readsInFlight_[id].push_back(beats);
  }
}

void AxiProtocolChecker::sample(uint64_t cycle) {
  for (Channel &c : channels_) {
    if (!watch(c, cycle))
      continue;
    const AxiPins &p = pins_;
    if (c.name == "AR") {
      checkAddress(false, cycle);
    } else if (c.name == "AW") {
      checkAddress(true, cycle);
    } else if (c.name == "W") {
      ++writeBeats_;
      bool wlast = p.wlast.readBool();
      ++wBeat_;
      if (!awBeats_.empty()) {
        bool expectLast = wBeat_ == awBeats_.front();
        if (wlast != expectLast)
          fail(cycle, "W beat " + std::to_string(wBeat_ - 1) + " of a " +
                          std::to_string(awBeats_.front()) + "-beat burst: WLAST " +
                          (wlast ? "on a beat that is not the last" : "missing on the last beat"));
        if (expectLast) {
          awBeats_.pop_front();
          ++writesAwaitingB_[awIds_.front()];
          awIds_.pop_front();
          wBeat_ = 0;
        }
      } else if (wlast) {
        wBursts_.push_back(wBeat_);
        wBeat_ = 0;
      } else if (wBeat_ > 256) {
        fail(cycle, "more than 256 W beats without WLAST");
      }
    } else if (c.name == "B") {
      uint64_t id = p.bid.readU64();
      auto it = writesAwaitingB_.find(id);
      if (it == writesAwaitingB_.end() || it->second == 0)
        fail(cycle, "B response for ID " + std::to_string(id) +
                        " with no completed write burst of that ID waiting");
      else
        --it->second;
    } else if (c.name == "R") {
      ++readBeats_;
      uint64_t id = p.rid.readU64();
      auto &inFlight = readsInFlight_[id];
      if (inFlight.empty()) {
        fail(cycle, "R beat for ID " + std::to_string(id) + " with no read burst of that ID");
        continue;
      }
      unsigned &beat = rBeat_[id];
      ++beat;
      bool expectLast = beat == inFlight.front();
      if (p.rlast.readBool() != expectLast)
        fail(cycle,
             "R beat " + std::to_string(beat - 1) + " of a " + std::to_string(inFlight.front()) +
                 "-beat burst (ID " + std::to_string(id) + "): RLAST " +
                 (expectLast ? "missing on the last beat" : "on a beat that is not the last"));
      if (expectLast) {
        inFlight.pop_front();
        beat = 0;
      }
    }
  }
}

} // namespace st::tb
