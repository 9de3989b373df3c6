// StreamProtocolChecker: watches one valid/ready stream driven by the DUT and fails the test
// when valid drops, or the payload changes, while a token is stalled (valid high, ready low).
// Also counts handshakes and stall cycles for the stall report.
#pragma once

#include <string>

#include "bits.h"
#include "component.h"
#include "signal_ref.h"

namespace st::tb {

class StreamProtocolChecker : public Component {
public:
  StreamProtocolChecker(std::string name, StreamPins pins);

  void sample(uint64_t cycle) override;
  void reset() override;
  std::string error() const override { return error_; }

  const std::string &name() const { return name_; }
  uint64_t handshakes() const { return handshakes_; }
  uint64_t stalledOnReady() const { return stalledOnReady_; } ///< valid=1, ready=0
  uint64_t starvedOnValid() const { return starvedOnValid_; } ///< valid=0, ready=1
  uint64_t lastHandshakeCycle() const { return lastHandshake_; }
  bool validNow() const { return validNow_; }
  bool readyNow() const { return readyNow_; }

private:
  std::string name_;
  StreamPins pins_;
  bool pendingStall_ = false;
  Bits stalledData_;
  bool validNow_ = false;
  bool readyNow_ = false;
  uint64_t handshakes_ = 0;
  uint64_t stalledOnReady_ = 0;
  uint64_t starvedOnValid_ = 0;
  uint64_t lastHandshake_ = 0;
  std::string error_;
};

} // namespace st::tb
