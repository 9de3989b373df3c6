// StreamDriver: feeds a queue of tokens into a DUT's valid/ready input with seeded random
// gaps. It never drops valid and never changes data while a token waits for ready; while idle it
// drives random data so that a DUT latching data without valid is caught.
#pragma once

#include <deque>
#include <random>
#include <string>

#include "bits.h"
#include "component.h"
#include "signal_ref.h"

namespace st::tb {

class StreamDriver : public Component {
public:
  /// `validProbability`: chance per cycle of offering the next token when one is queued.
  StreamDriver(std::string name, StreamPins pins, uint64_t seed, double validProbability = 1.0);

  void push(const Bits &token) { queue_.push_back(token); }
  void push(uint64_t token) { queue_.push_back(Bits(pins_.data.width(), token)); }
  void setValidProbability(double p) { validProbability_ = p; }

  bool idle() const { return queue_.empty() && !presenting_; }
  uint64_t sent() const { return sent_; }
  const std::string &name() const { return name_; }

  void drive(uint64_t cycle) override;
  void sample(uint64_t cycle) override;
  void reset() override;

private:
  std::string name_;
  StreamPins pins_;
  std::mt19937_64 rng_;
  double validProbability_;
  std::deque<Bits> queue_;
  bool presenting_ = false;
  uint64_t sent_ = 0;
};

} // namespace st::tb
