// Timing and resource model of st_argmax (see argmax_model.h).
#include "model/argmax_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace st::model {

namespace {

int64_t ceilLog2(int64_t value) {
  int64_t bits = 0;
  while ((int64_t(1) << bits) < value)
    ++bits;
  return bits;
}

int64_t vectorLength(const ArgmaxParams &p) {
  const int64_t n = p.length == 0 ? p.maxLen : p.length;
  if (n < 1 || n > p.maxLen)
    throw std::invalid_argument("argmax model: length " + std::to_string(n) + " outside 1 .. " +
                                std::to_string(p.maxLen));
  return n;
}

} // namespace

int64_t argmaxIndexBits(const ArgmaxParams &p) {
  return p.maxLen > 1 ? ceilLog2(p.maxLen) : 1;
}
int64_t argmaxLengthBits(const ArgmaxParams &p) {
  return ceilLog2(p.maxLen + 1);
}

KernelTiming argmaxTiming(const ArgmaxParams &p) {
  const int64_t tokens = (vectorLength(p) + p.lanes - 1) / p.lanes;
  KernelTiming t;
  t.firstOutputDelay = tokens + 2;
  t.totalLatency = tokens + 2;
  t.ii = std::max<int64_t>(tokens, 2);
  t.outputTokens = 1;
  t.inputTokens = {1, tokens};
  t.inputTokensNeeded = {[](int64_t) { return int64_t(1); }, [tokens](int64_t) { return tokens; }};
  return t;
}

ResourceEstimate argmaxResources(const ArgmaxParams &p) {
  const int64_t laneBits = p.lanes > 1 ? ceilLog2(p.lanes) : 1;
  const int64_t indexBits = argmaxIndexBits(p);
  const int64_t lenBits = argmaxLengthBits(p);
  const int64_t leaves = int64_t(1) << ceilLog2(p.lanes);
  // Per tree node: a signed comparator (about half a LUT per element bit, on the carry chain)
  // and a select of value and lane index (one LUT per bit).
  const int64_t treeLuts = (leaves - 1) * (3 * p.elemBits / 2 + laneBits);
  // Running best: comparator and value/index select; index adder; length/base counters and
  // the lane-valid compares; output slice mux.
  const int64_t bestLuts = 2 * p.elemBits + 2 * indexBits;
  const int64_t counterLuts = 2 * lenBits + indexBits + p.lanes * 2 + 2 * indexBits;
  ResourceEstimate r;
  r.lut = treeLuts + bestLuts + counterLuts;
  // Registers: config length, remaining, base, stage-1 (value, lane, base, flags), best value
  // and index, the output slice (two copies of the index), control.
  r.ff = 2 * lenBits + indexBits + (p.elemBits + laneBits + indexBits + 3) +
         (p.elemBits + indexBits) + 2 * indexBits + 6;
  return r;
}

} // namespace st::model
