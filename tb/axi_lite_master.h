// AxiLiteMaster: the host model on an AXI4-Lite slave (a kernel's s_axi_control). Executes a
// queue of 32-bit read and write transactions one at a time with seeded random timing: AW and W
// are offered after independent random delays (so they arrive in either order or together), AR
// after a random delay, and bready/rready are randomized every cycle. While a channel is idle its
// address and data pins carry random values, so a slave that latches without valid is caught.
//
// It also checks the slave's side of the protocol: bvalid/rvalid stay high and bresp/rresp/rdata
// stay stable until accepted, and no response comes before its request was accepted (for a write,
// both AW and W).
//
// The blocking helpers write32/read32 (and startKernel/waitDone for the Vitis ap_ctrl_hs register
// map at 0x00) step a Harness until their transaction completes, like a host program would.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>

#include "component.h"
#include "signal_ref.h"

namespace st::tb {

/// The pins of one AXI4-Lite slave port, as seen from the master.
struct AxiLitePins {
  SignalRef awaddr, awvalid, awready;
  SignalRef wdata, wstrb, wvalid, wready;
  SignalRef bresp, bvalid, bready;
  SignalRef araddr, arvalid, arready;
  SignalRef rdata, rresp, rvalid, rready;
};

/// Binds AxiLitePins to a Verilated model whose ports are named `<prefix>awaddr` ... e.g.
/// s_axi_control_awaddr, with `addrWidth`-bit addresses.
#define ST_AXI_LITE_PINS(model, prefix, addrWidth)                                                 \
  (::st::tb::AxiLitePins{::st::tb::SignalRef((model).prefix##awaddr, (addrWidth)),                 \
                         ::st::tb::SignalRef((model).prefix##awvalid, 1),                          \
                         ::st::tb::SignalRef((model).prefix##awready, 1),                          \
                         ::st::tb::SignalRef((model).prefix##wdata, 32),                           \
                         ::st::tb::SignalRef((model).prefix##wstrb, 4),                            \
                         ::st::tb::SignalRef((model).prefix##wvalid, 1),                           \
                         ::st::tb::SignalRef((model).prefix##wready, 1),                           \
                         ::st::tb::SignalRef((model).prefix##bresp, 2),                            \
                         ::st::tb::SignalRef((model).prefix##bvalid, 1),                           \
                         ::st::tb::SignalRef((model).prefix##bready, 1),                           \
                         ::st::tb::SignalRef((model).prefix##araddr, (addrWidth)),                 \
                         ::st::tb::SignalRef((model).prefix##arvalid, 1),                          \
                         ::st::tb::SignalRef((model).prefix##arready, 1),                          \
                         ::st::tb::SignalRef((model).prefix##rdata, 32),                           \
                         ::st::tb::SignalRef((model).prefix##rresp, 2),                            \
                         ::st::tb::SignalRef((model).prefix##rvalid, 1),                           \
                         ::st::tb::SignalRef((model).prefix##rready, 1)})

/// One transaction and, once completed, its outcome.
struct AxiLiteTransaction {
  uint64_t id = 0;
  bool isWrite = false;
  uint64_t addr = 0;
  uint32_t data = 0;  ///< write data, or the read data once completed
  uint8_t strb = 0xF; ///< write strobes
  unsigned resp = 0;  ///< bresp/rresp once completed (0 = OKAY)
  uint64_t completedCycle = 0;
};

/// Timing knobs of the master. A delay is 0 with probability 0.4, else uniform in [1, max].
struct AxiLiteTiming {
  unsigned maxAddrDelay = 4;             ///< cycles before AW or AR is offered
  unsigned maxDataDelay = 4;             ///< cycles before W is offered (independent of AW)
  double responseReadyProbability = 0.6; ///< chance per cycle of bready/rready high
};

class AxiLiteMaster : public Component {
public:
  static constexpr unsigned kOkay = 0;

  AxiLiteMaster(std::string name, AxiLitePins pins, uint64_t seed, AxiLiteTiming timing = {});

  /// Queue a write (strb: byte enables) or a read; returns its id (ids count up from 0).
  uint64_t queueWrite(uint64_t addr, uint32_t data, uint8_t strb = 0xF);
  uint64_t queueRead(uint64_t addr);

  /// Called for every completed transaction, in order.
  void onComplete(std::function<void(const AxiLiteTransaction &)> callback) {
    callback_ = std::move(callback);
  }
  void setTiming(const AxiLiteTiming &timing) { timing_ = timing; }

  bool idle() const { return queue_.empty() && !active_; }
  uint64_t completed() const { return completed_; }
  const AxiLiteTransaction &lastCompleted() const { return last_; }
  const std::string &name() const { return name_; }

  void drive(uint64_t cycle) override;
  void sample(uint64_t cycle) override;
  void reset() override;
  std::string error() const override { return error_; }

  // Blocking helpers: step `h` (a Harness) until the transaction completes. They need the master
  // idle on entry and fail the test on a timeout or a response other than OKAY.
  template <class H>
  void write32(H &h, uint64_t addr, uint32_t value, uint8_t strb = 0xF, uint64_t limit = 1000) {
    run(h, queueWrite(addr, value, strb), limit);
  }
  template <class H> uint32_t read32(H &h, uint64_t addr, uint64_t limit = 1000) {
    return run(h, queueRead(addr), limit).data;
  }

  // ap_ctrl_hs, as a host runtime does it: write ap_start, then poll the control register until
  // ap_done reads 1. waitDone returns the control word that showed ap_done (clear-on-read: the
  // hardware has already cleared the bit) and fails after `limit` cycles.
  static constexpr uint64_t kControl = 0x00;
  static constexpr uint32_t kApStart = 1u << 0, kApDone = 1u << 1, kApIdle = 1u << 2,
                            kApReady = 1u << 3, kAutoRestart = 1u << 7;
  template <class H> void startKernel(H &h) { write32(h, kControl, kApStart); }
  template <class H> uint32_t waitDone(H &h, uint64_t limit = 100000) {
    const uint64_t start = h.cycle();
    for (;;) {
      uint32_t control = read32(h, kControl);
      if (control & kApDone)
        return control;
      if (h.cycle() - start > limit)
        h.fail(name_ + ": ap_done not seen within " + std::to_string(limit) + " cycles");
    }
  }

private:
  template <class H> AxiLiteTransaction run(H &h, uint64_t id, uint64_t limit) {
    if (queue_.size() != 1 || active_)
      h.fail(name_ + ": blocking access while other transactions are queued");
    const std::string what = describe(queue_.front());
    const uint64_t start = h.cycle();
    while (completed_ <= id) {
      if (h.cycle() - start >= limit)
        h.fail(name_ + ": " + what + " not completed within " + std::to_string(limit) + " cycles");
      h.step();
    }
    if (last_.resp != kOkay)
      h.fail(name_ + ": " + describe(last_) + " answered with resp " + std::to_string(last_.resp));
    return last_;
  }
  static std::string describe(const AxiLiteTransaction &t);
  void begin();
  void complete(unsigned resp, uint32_t readData, uint64_t cycle);
  void fail(const std::string &message);
  bool chance(double p);

  std::string name_;
  AxiLitePins pins_;
  std::mt19937_64 rng_;
  AxiLiteTiming timing_;
  std::deque<AxiLiteTransaction> queue_;
  std::function<void(const AxiLiteTransaction &)> callback_;
  uint64_t nextId_ = 0;
  uint64_t completed_ = 0;
  AxiLiteTransaction last_;
  std::string error_;

  // The transaction in flight.
  bool active_ = false;
  AxiLiteTransaction current_;
  unsigned addrDelay_ = 0, dataDelay_ = 0;
  bool addrAccepted_ = false, dataAccepted_ = false;
  // What drive() put on the pins this cycle.
  bool addrValid_ = false, dataValid_ = false, bReadyNow_ = false, rReadyNow_ = false;
  // Protocol state of the slave's responses: a response seen valid but not yet accepted.
  bool bStalled_ = false, rStalled_ = false;
  unsigned stalledResp_ = 0, stalledRresp_ = 0;
  uint32_t stalledData_ = 0;
};

} // namespace st::tb
