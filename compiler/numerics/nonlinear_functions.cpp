// Element-wise fixed-point non-linear functions (see nonlinear_functions.h).
#include "nonlinear_functions.h"

#include "fixed_point.h"
#include "nonlinear_tables.h"

#include <stdexcept>

namespace st::numerics {

uint64_t exp2Negative(int64_t log2Value, unsigned outputFracBits) {
  if (log2Value > 0)
    throw std::invalid_argument("exp2Negative: input must be <= 0");
  if (outputFracBits > 40)
    throw std::invalid_argument("exp2Negative: at most 40 output fraction bits");
  const PiecewiseLinearTable &table = exp2NegativeFractionTable();
  const uint64_t magnitude = static_cast<uint64_t>(-log2Value);
  const uint64_t integerPart = magnitude >> kExpInputFracBits;
  const uint64_t fraction = magnitude & ((uint64_t(1) << kExpInputFracBits) - 1);
  const int64_t shift = int64_t(integerPart) + table.entryFracBits - outputFracBits;
  if (shift >= 63)
    return 0;
  const int64_t mantissa = interpolate(table, fraction); // Q1.20, in (2^19, 2^20]
  if (shift < 0)
    return static_cast<uint64_t>(mantissa) << -shift;
  return static_cast<uint64_t>(roundShiftRight(mantissa, static_cast<unsigned>(shift)));
}

namespace {

/// x / 2^shift rounded half up, for unsigned bit selection (shift may be zero).
uint64_t roundedSelect(uint64_t x, unsigned shift) {
  if (shift == 0)
    return x;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) + (uint64_t(1) << (shift - 1))) >>
                               shift);
}

/// x / 2^exponent as fixed point with `fracBits` fraction bits (rounded when bits are dropped).
uint64_t normalizeTo(uint64_t x, unsigned exponent, unsigned fracBits) {
  return exponent >= fracBits ? roundedSelect(x, exponent - fracBits) : x << (fracBits - exponent);
}

} // namespace

NormalizedMantissa reciprocal(uint64_t x) {
  if (x == 0)
    throw std::invalid_argument("reciprocal: input is zero");
  const unsigned lead = leadingOnePosition(x);
  const uint64_t offset = normalizeTo(x, lead, 16) - (uint64_t(1) << 16); // (m - 1) Q0.16
  return {static_cast<uint64_t>(interpolate(reciprocalTable(), offset)), lead};
}

NormalizedMantissa reciprocalRefined(uint64_t x) {
  const NormalizedMantissa seed = reciprocal(x); // Q1.17
  const unsigned lead = seed.exponent;
  const Int128 m = static_cast<Int128>(normalizeTo(x, lead, 30));       // Q1.30
  const Int128 product = m * static_cast<Int128>(seed.mantissa);        // Q.47, ~1.0
  const Int128 twoMinus = (Int128(1) << 48) - product;                  // Q.47, ~1.0
  const Int128 refined = static_cast<Int128>(seed.mantissa) * twoMinus; // Q.64
  return {static_cast<uint64_t>(roundShiftRight128(refined, 64 - kRefinedMantissaFracBits)), lead};
}

NormalizedMantissa rsqrt(uint64_t x) {
  if (x == 0)
    x = 1;
  const unsigned halfExponent = leadingOnePosition(x) / 2;
  // m = x / 4^k in [1,4]: offset (m - 1) with 16 fraction bits.
  const uint64_t offset = normalizeTo(x, 2 * halfExponent, 16) - (uint64_t(1) << 16);
  return {static_cast<uint64_t>(interpolate(rsqrtTable(), offset)), halfExponent};
}

namespace {

int64_t reluMinusResidual(int64_t x, const PiecewiseLinearTable &residual) {
  const uint64_t magnitude = static_cast<uint64_t>(x < 0 ? -x : x);
  int64_t h = 0; // Q.11
  if (magnitude < residual.inputSpan())
    h = roundShiftRight(interpolate(residual, magnitude),
                        residual.entryFracBits - kActivationFracBits);
  return (x > 0 ? x : 0) - h;
}

} // namespace

int64_t geluFixed(int64_t x, GeluForm form) {
  return reluMinusResidual(x, form == GeluForm::Erf ? geluErfResidualTable()
                                                    : geluTanhResidualTable());
}

int64_t siluFixed(int64_t x) {
  return reluMinusResidual(x, siluResidualTable());
}

SinCos sinCosFixed(uint64_t phaseQ48) {
  const uint64_t phase32 = roundedSelect(phaseQ48 & ((uint64_t(1) << 48) - 1), 16) &
                           0xffffffffull; // Q0.32 turns, a carry wraps to 0
  const unsigned quadrant = static_cast<unsigned>(phase32 >> 30);
  const uint64_t within = phase32 & ((uint64_t(1) << 30) - 1); // Q0.30 of a quarter turn
  const PiecewiseLinearTable &table = quarterSineTable();
  const unsigned drop = table.entryFracBits - kTrigFracBits;
  const int32_t rising = static_cast<int32_t>(roundShiftRight(interpolate(table, within), drop));
  const int32_t falling =
      static_cast<int32_t>(roundShiftRight(interpolate(table, (uint64_t(1) << 30) - within), drop));
  switch (quadrant) {
  case 0:
    return {rising, falling};
  case 1:
    return {falling, -rising};
  case 2:
    return {-rising, -falling};
  default:
    return {-falling, rising};
  }
}

} // namespace st::numerics
