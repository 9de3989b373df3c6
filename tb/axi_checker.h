// AxiProtocolChecker: watches an AXI4 master port (either half may be unbound) and fails the test
// on a protocol violation, via Component::error():
//   - on every channel (AW, W, B, AR, R): valid dropped, or the payload changed, while a
//     transfer was stalled (valid high, ready low);
//   - AR/AW: a burst that is not INCR, longer than maxBurstLen beats, narrower or wider than the
//     bus, or crossing a 4 KB boundary;
//   - W: WLAST on any beat but the last of its burst, or missing on the last (matched with the
//     AW bursts in order; W may run ahead of AW);
//   - R: a beat for an ID with no read burst outstanding, RLAST not exactly on the last beat;
//   - B: a response for an ID with no completed write burst outstanding.
// It also reports every accepted burst to an optional callback, so a test can compare the
// burst split with a software model.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "axi_pins.h"
#include "bits.h"
#include "component.h"

namespace st::tb {

class AxiProtocolChecker : public Component {
public:
  /// `maxBurstLen`: the longest burst the master may issue (its MaxBurstLen, at most 256).
  AxiProtocolChecker(std::string name, AxiPins pins, unsigned maxBurstLen = 256);

  /// Called at every AR/AW handshake with (isWrite, address, beats).
  void onBurst(std::function<void(bool, uint64_t, unsigned)> callback) {
    onBurst_ = std::move(callback);
  }

  uint64_t readBursts() const { return readBursts_; }
  uint64_t writeBursts() const { return writeBursts_; }
  uint64_t readBeats() const { return readBeats_; }
  uint64_t writeBeats() const { return writeBeats_; }

  void sample(uint64_t cycle) override;
  void reset() override;
  std::string error() const override { return error_; }

private:
  /// Valid/ready stability on one channel: valid and every payload signal.
  struct Channel {
    std::string name;
    SignalRef valid, ready;
    std::vector<SignalRef> payload;
    bool stalled = false;
    std::vector<Bits> held;
  };
  /// Returns true on a handshake this cycle.
  bool watch(Channel &channel, uint64_t cycle);
  void checkAddress(bool isWrite, uint64_t cycle);
  void fail(uint64_t cycle, const std::string &message);

  std::string name_;
  AxiPins pins_;
  unsigned maxBurstLen_;
  unsigned dataBytes_ = 0;
  std::vector<Channel> channels_; ///< AW, W, B, AR, R (those bound)
  std::function<void(bool, uint64_t, unsigned)> onBurst_;

  std::deque<unsigned> awBeats_;                 ///< AW bursts whose W beats are not all seen
  std::deque<unsigned> wBursts_;                 ///< W bursts complete before their AW was seen
  unsigned wBeat_ = 0;                           ///< beats of the current W burst seen
  std::map<uint64_t, unsigned> writesAwaitingB_; ///< per ID: AW seen and W complete, no B yet
  std::deque<uint64_t> awIds_; ///< IDs of AW bursts, in order, until their W completes
  std::map<uint64_t, std::deque<unsigned>> readsInFlight_; ///< per ID: beats of each AR
  std::map<uint64_t, unsigned> rBeat_; ///< per ID: beats of the current R burst seen

  uint64_t readBursts_ = 0, writeBursts_ = 0, readBeats_ = 0, writeBeats_ = 0;
  std::string error_;
};

} // namespace st::tb
