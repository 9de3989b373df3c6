// Watchdog: liveness check over a set of named streams. When no watched stream completes a
// handshake for `limit` cycles, it fails and names the streams that stopped moving: those
// stalled (valid without ready: the consumer is blocked), those starved (ready without valid:
// the producer is blocked), and the last stream that moved. A progress source counted elsewhere
// (watchProgress, e.g. a generated design's StreamProfiler) adds its handshakes to the measure
// and its diagnosis to the message.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "component.h"
#include "signal_ref.h"
#include "stream_checker.h"

namespace st::tb {

class Watchdog : public Component {
public:
  explicit Watchdog(uint64_t limitCycles) : limit_(limitCycles) {}

  /// Watch a stream the watchdog samples itself.
  void watch(const std::string &name, StreamPins pins);
  /// Watch a stream whose checker is already sampled by another component (e.g. a StreamSink).
  void watch(const StreamProtocolChecker &checker) { external_.push_back(&checker); }
  /// Watch progress counted elsewhere: `handshakes()` is a running total of handshakes;
  /// `diagnose()` says what is blocked, appended to the message when the watchdog fires.
  void watchProgress(std::function<uint64_t()> handshakes, std::function<std::string()> diagnose) {
    progress_.push_back({std::move(handshakes), std::move(diagnose)});
  }

  void setEnabled(bool enabled) { enabled_ = enabled; }
  void sample(uint64_t cycle) override;
  void reset() override { lastProgress_ = 0; }
  std::string error() const override { return error_; }

  /// A per-stream table: handshakes, cycles stalled on ready and on valid.
  std::string stallReport() const;

private:
  std::vector<const StreamProtocolChecker *> all() const;
  uint64_t limit_;
  bool enabled_ = true;
  std::vector<StreamProtocolChecker> owned_;
  std::vector<const StreamProtocolChecker *> external_;
  struct ProgressSource {
    std::function<uint64_t()> handshakes;
    std::function<std::string()> diagnose;
  };
  std::vector<ProgressSource> progress_;
  uint64_t lastProgress_ = 0;
  uint64_t lastTotal_ = 0;
  std::string error_;
};

} // namespace st::tb
