// StreamProtocolChecker: valid/ready rule checks and handshake statistics for one stream.
#include "stream_checker.h"

namespace st::tb {

StreamProtocolChecker::StreamProtocolChecker(std::string name, StreamPins pins)
    : name_(std::move(name)), pins_(std::move(pins)) {}

void StreamProtocolChecker::reset() { pendingStall_ = false; }

void StreamProtocolChecker::sample(uint64_t cycle) {
  validNow_ = pins_.valid.readBool();
  readyNow_ = pins_.ready.readBool();
  if (pendingStall_ && error_.empty()) {
    if (!validNow_)
      error_ = "stream " + name_ + ": valid dropped while the token was stalled";
    else if (pins_.data.valid() && pins_.data.read() != stalledData_)
      error_ = "stream " + name_ + ": payload changed while stalled, from " +
               stalledData_.toString() + " to " + pins_.data.read().toString();
  }
  if (validNow_ && readyNow_) {
    ++handshakes_;
    lastHandshake_ = cycle;
    pendingStall_ = false;
  } else if (validNow_) {
    ++stalledOnReady_;
    pendingStall_ = true;
    if (pins_.data.valid())
      stalledData_ = pins_.data.read();
  } else {
    if (readyNow_)
      ++starvedOnValid_;
    pendingStall_ = false;
  }
}

} // namespace st::tb
