// Fixed-point primitives: rounding shifts, saturation and FixedScale (see fixed_point.h).
#include "fixed_point.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace st::numerics {

Int128 roundShiftRight128(Int128 value, unsigned shift) {
  if (shift == 0)
    return value;
  if (shift >= 126)
    return 0; // every value we produce has magnitude < 2^125
  const Int128 bias = (Int128(1) << (shift - 1)) - (value < 0 ? 1 : 0);
  return (value + bias) >> shift; // arithmetic shift (GCC/Clang)
}

int64_t roundShiftRight(int64_t value, unsigned shift) {
  return static_cast<int64_t>(roundShiftRight128(value, shift));
}

int64_t minSigned(unsigned bits) {
  return bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
}
int64_t maxSigned(unsigned bits) {
  return bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
}

int64_t saturateSigned(int64_t value, unsigned bits) {
  const int64_t lo = minSigned(bits), hi = maxSigned(bits);
  return value < lo ? lo : (value > hi ? hi : value);
}

Int128 saturateSigned128(Int128 value) {
  return value < INT64_MIN ? Int128(INT64_MIN) : (value > INT64_MAX ? Int128(INT64_MAX) : value);
}

int64_t saturateUnsigned(int64_t value, unsigned bits) {
  const int64_t hi = bits >= 63 ? INT64_MAX : (int64_t(1) << bits) - 1;
  return value < 0 ? 0 : (value > hi ? hi : value);
}

bool fitsSigned(int64_t value, unsigned bits) {
  return saturateSigned(value, bits) == value;
}

unsigned leadingOnePosition(uint64_t value) {
  if (value == 0)
    throw std::invalid_argument("leadingOnePosition: value is zero");
  return 63u - static_cast<unsigned>(__builtin_clzll(value));
}

unsigned ceilLog2(uint64_t value) {
  if (value <= 1)
    return 0;
  return leadingOnePosition(value - 1) + 1;
}

double FixedScale::value() const {
  return std::ldexp(static_cast<double>(mantissa), -shift);
}

FixedScale fixedScaleFromReal(double multiplier) {
  if (!std::isfinite(multiplier) || multiplier < 0)
    throw std::invalid_argument("fixedScaleFromReal: multiplier must be finite and >= 0, got " +
                                std::to_string(multiplier));
  if (multiplier >= std::ldexp(1.0, kScaleMantissaBits) - 0.5)
    throw std::invalid_argument("fixedScaleFromReal: multiplier " + std::to_string(multiplier) +
                                " exceeds the 24-bit mantissa with shift 0");
  FixedScale scale;
  if (multiplier == 0)
    return scale;
  int exponent = 0;
  std::frexp(multiplier, &exponent);         // multiplier = f * 2^exponent, f in [0.5, 1)
  int shift = kScaleMantissaBits - exponent; // mantissa in [2^23, 2^24)
  if (shift < 0)
    shift = 0;
  if (shift > static_cast<int>(kScaleMaxShift))
    shift = kScaleMaxShift;
  int64_t mantissa = roundHalfAwayFromZero(std::ldexp(multiplier, shift));
  if (mantissa >= (int64_t(1) << kScaleMantissaBits)) { // rounded up to 2^16
    --shift;
    mantissa = roundHalfAwayFromZero(std::ldexp(multiplier, shift));
  }
  scale.mantissa = static_cast<uint32_t>(mantissa);
  scale.shift = static_cast<uint8_t>(shift);
  return scale;
}

int64_t applyScale(int64_t value, FixedScale scale, unsigned extraShift) {
  const Int128 product = Int128(value) * scale.mantissa;
  const Int128 result = roundShiftRight128(product, scale.shift + extraShift);
  if (result > INT64_MAX || result < INT64_MIN)
    throw std::overflow_error("applyScale: result exceeds 64 bits");
  return static_cast<int64_t>(result);
}

int64_t requantizeValue(int64_t value, FixedScale scale, unsigned outputBits) {
  return saturateSigned(applyScale(value, scale), outputBits);
}

int64_t roundHalfAwayFromZero(double value) {
  return static_cast<int64_t>(std::llround(value));
}

} // namespace st::numerics
