// StreamSink: consumes a DUT's valid/ready output with seeded random backpressure, checks the
// stream protocol on it, and hands every received token to a callback (usually a Scoreboard).
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bits.h"
#include "component.h"
#include "signal_ref.h"
#include "stream_checker.h"

namespace st::tb {

class StreamSink : public Component {
public:
  /// `readyProbability`: chance per cycle of asserting ready.
  StreamSink(std::string name, StreamPins pins, uint64_t seed, double readyProbability = 1.0);

  void onToken(std::function<void(const Bits &)> callback) { callback_ = std::move(callback); }
  void setReadyProbability(double p) { readyProbability_ = p; }
  uint64_t received() const { return checker_.handshakes(); }
  const StreamProtocolChecker &checker() const { return checker_; }
  const std::string &name() const { return checker_.name(); }

  void drive(uint64_t cycle) override;
  void sample(uint64_t cycle) override;
  void reset() override;
  std::string error() const override { return checker_.error(); }

private:
  StreamPins pins_;
  std::mt19937_64 rng_;
  double readyProbability_;
  StreamProtocolChecker checker_;
  std::function<void(const Bits &)> callback_;
};

} // namespace st::tb
