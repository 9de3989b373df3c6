// AxiLiteMaster: seeded random-timing AXI4-Lite host model with response protocol checks.
#include "axi_lite_master.h"

#include <cstdio>

namespace st::tb {

AxiLiteMaster::AxiLiteMaster(std::string name, AxiLitePins pins, uint64_t seed,
                             AxiLiteTiming timing)
    : name_(std::move(name)), pins_(std::move(pins)), rng_(seed), timing_(timing) {}

uint64_t AxiLiteMaster::queueWrite(uint64_t addr, uint32_t data, uint8_t strb) {
  AxiLiteTransaction t;
  t.id = nextId_++;
  t.isWrite = true;
  t.addr = addr;
  t.data = data;
  t.strb = strb & 0xF;
  queue_.push_back(t);
  return t.id;
}

uint64_t AxiLiteMaster::queueRead(uint64_t addr) {
  AxiLiteTransaction t;
  t.id = nextId_++;
  t.addr = addr;
  queue_.push_back(t);
  return t.id;
}

std::string AxiLiteMaster::describe(const AxiLiteTransaction &t) {
  char text[96];
  if (t.isWrite)
    std::snprintf(text, sizeof text, "write #%llu [0x%llx] = 0x%08x strb 0x%x",
                  static_cast<unsigned long long>(t.id), static_cast<unsigned long long>(t.addr),
                  t.data, t.strb);
  else
    std::snprintf(text, sizeof text, "read #%llu [0x%llx]", static_cast<unsigned long long>(t.id),
                  static_cast<unsigned long long>(t.addr));
  return text;
}

bool AxiLiteMaster::chance(double p) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
}

void AxiLiteMaster::fail(const std::string &message) {
  if (error_.empty())
    error_ = name_ + ": " + message;
}

void AxiLiteMaster::reset() {
  active_ = false;
  addrValid_ = dataValid_ = bReadyNow_ = rReadyNow_ = false;
  bStalled_ = rStalled_ = false;
  pins_.awvalid.write(0);
  pins_.wvalid.write(0);
  pins_.arvalid.write(0);
  pins_.bready.write(0);
  pins_.rready.write(0);
  pins_.awaddr.write(Bits::random(pins_.awaddr.width(), rng_));
  pins_.araddr.write(Bits::random(pins_.araddr.width(), rng_));
  pins_.wdata.write(Bits::random(32, rng_));
  pins_.wstrb.write(Bits::random(4, rng_));
}

void AxiLiteMaster::begin() {
  current_ = queue_.front();
  queue_.pop_front();
  active_ = true;
  addrAccepted_ = false;
  dataAccepted_ = !current_.isWrite; // a read has no data beat
  // Zero delays often, so that AW and W also arrive together.
  auto delay = [this](unsigned max) {
    if (max == 0 || chance(0.4))
      return 0u;
    return std::uniform_int_distribution<unsigned>(1, max)(rng_);
  };
  addrDelay_ = delay(timing_.maxAddrDelay);
  dataDelay_ = delay(timing_.maxDataDelay);
}

void AxiLiteMaster::drive(uint64_t) {
  if (!active_ && !queue_.empty())
    begin();
  addrValid_ = dataValid_ = false;
  if (active_) {
    if (!addrAccepted_) {
      if (addrDelay_ > 0)
        --addrDelay_;
      else
        addrValid_ = true;
    }
    if (!dataAccepted_) {
      if (dataDelay_ > 0)
        --dataDelay_;
      else
        dataValid_ = true;
    }
  }
  const bool writeAddr = addrValid_ && current_.isWrite;
  const bool readAddr = addrValid_ && !current_.isWrite;
  pins_.awvalid.write(writeAddr ? 1 : 0);
  pins_.awaddr.write(writeAddr ? Bits(pins_.awaddr.width(), current_.addr)
                               : Bits::random(pins_.awaddr.width(), rng_));
  pins_.arvalid.write(readAddr ? 1 : 0);
  pins_.araddr.write(readAddr ? Bits(pins_.araddr.width(), current_.addr)
                              : Bits::random(pins_.araddr.width(), rng_));
  pins_.wvalid.write(dataValid_ ? 1 : 0);
  pins_.wdata.write(dataValid_ ? Bits(32, current_.data) : Bits::random(32, rng_));
  pins_.wstrb.write(dataValid_ ? Bits(4, current_.strb) : Bits::random(4, rng_));
  const bool bready = chance(timing_.responseReadyProbability);
  const bool rready = chance(timing_.responseReadyProbability);
  pins_.bready.write(bready ? 1 : 0);
  pins_.rready.write(rready ? 1 : 0);
  bReadyNow_ = bready;
  rReadyNow_ = rready;
}

void AxiLiteMaster::complete(unsigned resp, uint32_t readData, uint64_t cycle) {
  current_.resp = resp;
  if (!current_.isWrite)
    current_.data = readData;
  current_.completedCycle = cycle;
  active_ = false;
  last_ = current_;
  ++completed_;
  if (callback_)
    callback_(last_);
}

void AxiLiteMaster::sample(uint64_t cycle) {
  const bool bvalid = pins_.bvalid.readBool();
  const bool rvalid = pins_.rvalid.readBool();
  const unsigned bresp = static_cast<unsigned>(pins_.bresp.readU64());
  const unsigned rresp = static_cast<unsigned>(pins_.rresp.readU64());
  const uint32_t rdata = static_cast<uint32_t>(pins_.rdata.readU64());

  // Write response channel.
  if (bStalled_ && !bvalid)
    fail("bvalid dropped before bready");
  else if (bStalled_ && bresp != stalledResp_)
    fail("bresp changed from " + std::to_string(stalledResp_) + " to " + std::to_string(bresp) +
         " while stalled");
  bStalled_ = false;
  if (bvalid) {
    const bool writeAccepted = active_ && current_.isWrite && addrAccepted_ && dataAccepted_;
    if (!writeAccepted)
      fail("bvalid while no write has both AW and W accepted");
    else if (bReadyNow_)
      complete(bresp, 0, cycle);
    else {
      bStalled_ = true;
      stalledResp_ = bresp;
    }
  }

  // Read data channel.
  if (rStalled_ && !rvalid)
    fail("rvalid dropped before rready");
  else if (rStalled_ && (rdata != stalledData_ || rresp != stalledRresp_)) {
    char text[96];
    std::snprintf(text, sizeof text,
                  "rdata/rresp changed from 0x%08x/%u to 0x%08x/%u while stalled", stalledData_,
                  stalledRresp_, rdata, rresp);
    fail(text);
  }
  rStalled_ = false;
  if (rvalid) {
    const bool readAccepted = active_ && !current_.isWrite && addrAccepted_;
    if (!readAccepted)
      fail("rvalid while no read has AR accepted");
    else if (rReadyNow_)
      complete(rresp, rdata, cycle);
    else {
      rStalled_ = true;
      stalledData_ = rdata;
      stalledRresp_ = rresp;
    }
  }

  // Request handshakes of this cycle (they complete at the coming edge).
  if (active_) {
    const bool addrReady = current_.isWrite ? pins_.awready.readBool() : pins_.arready.readBool();
    if (addrValid_ && addrReady)
      addrAccepted_ = true;
    if (dataValid_ && pins_.wready.readBool())
      dataAccepted_ = true;
  }
}

} // namespace st::tb
