// Element-wise non-linear functions in fixed point (docs/numerics.md §5): exp2 of a non-positive
// log2-domain value, normalized reciprocal (table seed, and one Newton step for the once-per-
// vector softmax normalizer) and reciprocal square root, GELU (erf and tanh forms), SiLU, and
// sin/cos of a RoPE phase. Each is a table lookup plus integer interpolation and the shifts
// around it: exactly what the RTL function units compute.
#pragma once

#include <cstdint>

namespace st::numerics {

/// Softmax exponent input: log2-domain value, signed, kExpInputFracBits fraction bits.
constexpr unsigned kExpInputFracBits = 16;
/// Softmax exponentials inside the kernel (sum and normalize): unsigned Q1.32.
constexpr unsigned kExpSumFracBits = 32;
/// Softmax probabilities: unsigned Q1.15 (1.0 = 32768).
constexpr unsigned kProbabilityFracBits = 15;
/// GELU/SiLU input and output: signed fixed point with 11 fraction bits.
constexpr unsigned kActivationFracBits = 11;
/// sin/cos output: signed Q1.15 in [-32768, 32768] (17-bit two's complement in RTL).
constexpr unsigned kTrigFracBits = 15;
/// Mantissas returned by reciprocal/rsqrt: unsigned Q1.17 in [2^16, 2^17].
constexpr unsigned kMantissaFracBits = 17;
/// Mantissa returned by reciprocalRefined: unsigned Q1.30 in [2^29, 2^30].
constexpr unsigned kRefinedMantissaFracBits = 30;

/// 2^(t / 2^16) for t <= 0 with outputFracBits fraction bits (<= 40): t = -(n + f), table
/// 2^-f in Q1.20, then a rounding right shift by n + 20 - outputFracBits (a left shift when
/// that is negative). Throws for t > 0.
uint64_t exp2Negative(int64_t log2Value, unsigned outputFracBits);

/// value = mantissa * 2^-(fracBits + exponent).
struct NormalizedMantissa {
  uint64_t mantissa = 0;
  unsigned exponent = 0;
};
/// 1/x for x >= 1, mantissa Q1.17: leading-one detect L, the 16 bits below it rounded (half up;
/// a carry into 2.0 selects the table's end point), table 1/m. Throws for x == 0.
NormalizedMantissa reciprocal(uint64_t x);
/// 1/x for x >= 1, mantissa Q1.30: m = x / 2^L with 30 fraction bits (rounded), r0 =
/// reciprocal(x) seed, one Newton step r1 = r0 * (2 - m * r0) computed exactly and rounded.
NormalizedMantissa reciprocalRefined(uint64_t x);
/// 1/sqrt(x), mantissa Q1.17, for x >= 1 (x = 0 is treated as 1): exponent k = floor(L/2),
/// m = x / 4^k in [1,4) with 16 fraction bits (rounded), table 1/sqrt(m).
NormalizedMantissa rsqrt(uint64_t x);

enum class GeluForm { Erf, Tanh };
/// GELU(x) = relu(x) - h(|x|), h(a) = a*Phi(-a) (erf) or a*(1-T(a)) (tanh), h = 0 for a >= 8.
/// Input and output Q.11 (any int64 whose magnitude is below 2^40).
int64_t geluFixed(int64_t x, GeluForm form);
/// SiLU(x) = relu(x) - h(|x|), h(a) = a*sigmoid(-a), h = 0 for a >= 16. Q.11 in and out.
int64_t siluFixed(int64_t x);

/// sin and cos of 2*pi*phase, phase in turns as unsigned Q0.48 (taken modulo 1), rounded to
/// Q0.32; the top 2 bits give the quadrant, the quarter-wave table the rest. Outputs Q1.15.
struct SinCos {
  int32_t sin = 0;
  int32_t cos = 0;
};
SinCos sinCosFixed(uint64_t phaseQ48);

} // namespace st::numerics
