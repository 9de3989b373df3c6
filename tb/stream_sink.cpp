// StreamSink: seeded random-backpressure consumer of a valid/ready stream.
#include "stream_sink.h"

namespace st::tb {

StreamSink::StreamSink(std::string name, StreamPins pins, uint64_t seed, double readyProbability)
    : pins_(pins), rng_(seed), readyProbability_(readyProbability),
      checker_(std::move(name), pins) {}

void StreamSink::reset() {
  pins_.ready.write(0);
  checker_.reset();
}

void StreamSink::drive(uint64_t) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  pins_.ready.write(u(rng_) < readyProbability_ ? 1 : 0);
}

void StreamSink::sample(uint64_t cycle) {
  uint64_t before = checker_.handshakes();
  checker_.sample(cycle);
  if (checker_.handshakes() != before && callback_)
    callback_(pins_.data.valid() ? pins_.data.read() : Bits());
}

} // namespace st::tb
