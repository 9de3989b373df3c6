// StreamDriver: seeded random-gap source for a valid/ready stream.
#include "stream_driver.h"

namespace st::tb {

StreamDriver::StreamDriver(std::string name, StreamPins pins, uint64_t seed,
                           double validProbability)
    : name_(std::move(name)), pins_(std::move(pins)), rng_(seed),
      validProbability_(validProbability) {}

void StreamDriver::reset() {
  presenting_ = false;
  pins_.valid.write(0);
  if (pins_.data.valid())
    pins_.data.write(Bits::random(pins_.data.width(), rng_));
}

void StreamDriver::drive(uint64_t) {
  if (!presenting_ && !queue_.empty()) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    presenting_ = u(rng_) < validProbability_;
  }
  pins_.valid.write(presenting_ ? 1 : 0);
  if (pins_.data.valid())
    pins_.data.write(presenting_ ? queue_.front() : Bits::random(pins_.data.width(), rng_));
}

void StreamDriver::sample(uint64_t) {
  if (presenting_ && pins_.ready.readBool()) {
    queue_.pop_front();
    presenting_ = false;
    ++sent_;
  }
}

} // namespace st::tb
