// Fixed-point primitives of the datapath (docs/numerics.md §2-§3): rounding right shifts (round
// half away from zero), saturation to a signed or unsigned width, and FixedScale, the 16-bit
// mantissa + right-shift multiplier that replaces every real-valued scale in the datapath.
// Everything here is integer arithmetic except the compile-time conversion fixedScaleFromReal.
#pragma once

#include <cstdint>

namespace st::numerics {

/// Signed 128-bit integer for intermediate products wider than 64 bits (GCC/Clang builtin).
__extension__ typedef __int128 Int128;

/// value / 2^shift rounded half away from zero. Hardware: add 2^(shift-1) - sign, then
/// arithmetic shift right (one adder). shift == 0 returns value unchanged.
int64_t roundShiftRight(int64_t value, unsigned shift);
Int128 roundShiftRight128(Int128 value, unsigned shift);

/// Clamp to the two's-complement range of `bits` bits: [-2^(bits-1), 2^(bits-1) - 1].
int64_t saturateSigned(int64_t value, unsigned bits);
/// Clamp a 128-bit intermediate to the int64 range (before a final narrowing).
Int128 saturateSigned128(Int128 value);
/// Clamp to [0, 2^bits - 1].
int64_t saturateUnsigned(int64_t value, unsigned bits);
int64_t minSigned(unsigned bits);
int64_t maxSigned(unsigned bits);
bool fitsSigned(int64_t value, unsigned bits);

/// Index of the most significant set bit (0 for value 1). value must be non-zero.
unsigned leadingOnePosition(uint64_t value);
/// Smallest n with 2^n >= value (0 for value <= 1).
unsigned ceilLog2(uint64_t value);

/// A non-negative real multiplier in hardware form: mantissa * 2^-shift, with the 24-bit
/// mantissa normalized to [2^23, 2^24) whenever the shift allows it (relative error <= 2^-24).
struct FixedScale {
  uint32_t mantissa = 0;
  uint8_t shift = 0;
  /// The real value represented (compile-time use and tests only).
  double value() const;
  bool operator==(const FixedScale &other) const {
    return mantissa == other.mantissa && shift == other.shift;
  }
};

constexpr unsigned kScaleMantissaBits = 24;
constexpr unsigned kScaleMaxShift = 63;

/// Compile-time conversion of a real multiplier m >= 0. Throws std::invalid_argument when
/// m >= 2^24 - 0.5 (would need a left shift) or is not finite. Below 2^-40 the mantissa loses
/// normalization; below 2^-64 the result is zero.
FixedScale fixedScaleFromReal(double multiplier);

/// round(value * scale) in the rounding of roundShiftRight, computed exactly in 128 bits.
/// extraShift adds to the scale's shift (for operands that carry fraction bits).
int64_t applyScale(int64_t value, FixedScale scale, unsigned extraShift = 0);
/// applyScale followed by saturation to `outputBits` signed bits: the requantization step.
int64_t requantizeValue(int64_t value, FixedScale scale, unsigned outputBits);

/// Round a real value half away from zero (compile-time quantization only, never datapath).
int64_t roundHalfAwayFromZero(double value);

} // namespace st::numerics
