// Worst-case error of every fixed-point non-linear function against the real function (double)
// over its whole input range, by enumeration of every input code (or a dense sweep where the
// input is wider than 2^22 codes). The bounds asserted here are the ones in docs/numerics.md §5.
#include <gtest/gtest.h>

#include "fixed_point.h"
#include "nonlinear_functions.h"
#include "nonlinear_tables.h"

#include <cmath>
#include <cstdio>
#include <random>

using namespace st::numerics;

namespace {

/// Largest and mean absolute error of one sweep, with the worst input for the message.
struct ErrorStats {
  double maxError = 0;
  double sumError = 0;
  uint64_t count = 0;
  double worstInput = 0;
  void add(double error, double input) {
    error = std::fabs(error);
    if (error > maxError) {
      maxError = error;
      worstInput = input;
    }
    sumError += error;
    ++count;
  }
  double mean() const { return count ? sumError / count : 0; }
  void print(const char *name, const char *unit) const {
    std::printf("[numerics] %-16s max %.4g %s, mean %.4g %s over %llu inputs (worst at %.9g)\n",
                name, maxError, unit, mean(), unit, static_cast<unsigned long long>(count),
                worstInput);
  }
};

// Documented bounds (docs/numerics.md §5).
constexpr double kExp2BoundLsb = 0.65;             // Q1.15 LSBs
constexpr double kExp2WideBound = 5.5e-6;          // relative, beyond 0.5 LSB of Q1.32
constexpr double kReciprocalRefinedBound = 2.0e-9; // relative, Q1.30
constexpr double kReciprocalBound = 2.3e-5;        // relative
constexpr double kRsqrtBound = 1.7e-5;             // relative
constexpr double kGeluBoundLsb = 0.70;             // Q.11 LSBs
constexpr double kSiluBoundLsb = 0.65;             // Q.11 LSBs
constexpr double kSinCosBoundLsb = 0.78;           // Q1.15 LSBs

} // namespace

TEST(NonlinearExp2, EveryInputCodeWithinBound) {
  ErrorStats stats;
  const int64_t lowest = -(int64_t(20) << kExpInputFracBits); // beyond 2^-17 everything is 0
  for (int64_t t = 0; t >= lowest; --t) {
    const double exact =
        std::exp2(std::ldexp(static_cast<double>(t), -int(kExpInputFracBits))) * 32768.0;
    stats.add(double(exp2Negative(t, 15)) - exact, static_cast<double>(t));
  }
  EXPECT_EQ(exp2Negative(0, 15), 32768u);
  EXPECT_EQ(exp2Negative(0, 32), uint64_t(1) << 32);
  EXPECT_EQ(exp2Negative(INT64_MIN / 2, 32), 0u);
  stats.print("exp2(t<=0)", "LSB");
  EXPECT_LE(stats.maxError, kExp2BoundLsb) << "worst t = " << stats.worstInput;
}

TEST(NonlinearExp2, WideOutputRelativeErrorOnEveryInputCode) {
  // The softmax path (Q1.32 output), every t down to the last non-zero output: the error
  // beyond the output's own 0.5 LSB rounding, relative to the exact value.
  ErrorStats stats;
  for (int64_t t = 0; t >= -(int64_t(34) << kExpInputFracBits); --t) {
    const double exact = std::exp2(std::ldexp(double(t), -int(kExpInputFracBits)) + 32);
    const double beyondRounding = std::fabs(double(exp2Negative(t, 32)) - exact) - 0.5;
    stats.add(std::max(0.0, beyondRounding) / exact, double(t));
  }
  stats.print("exp2 (Q1.32)", "rel");
  EXPECT_LE(stats.maxError, kExp2WideBound) << "worst t = " << stats.worstInput;
}

namespace {

double reciprocalRelativeError(uint64_t x) {
  const NormalizedMantissa r = reciprocal(x);
  const double value =
      std::ldexp(static_cast<double>(r.mantissa), -int(kMantissaFracBits) - int(r.exponent));
  return value * static_cast<double>(x) - 1.0;
}

double rsqrtRelativeError(uint64_t x) {
  const NormalizedMantissa r = rsqrt(x);
  const double value =
      std::ldexp(static_cast<double>(r.mantissa), -int(kMantissaFracBits) - int(r.exponent));
  return value * std::sqrt(static_cast<double>(x)) - 1.0;
}

} // namespace

TEST(NonlinearReciprocal, EveryMantissaAtEveryExponentWithinBound) {
  ErrorStats stats;
  // Every integer below 2^22 (exact mantissas), then every 17-bit mantissa (all the table sees)
  // at each exponent up to 63 with random low bits below it.
  for (uint64_t x = 1; x < (uint64_t(1) << 22); ++x)
    stats.add(reciprocalRelativeError(x), static_cast<double>(x));
  std::mt19937_64 rng(4);
  for (unsigned lead = 22; lead < 64; lead += 3)
    for (uint64_t m = 0; m < (uint64_t(1) << 16); ++m) {
      const uint64_t below = rng() & ((uint64_t(1) << (lead - 16)) - 1);
      const uint64_t x = ((uint64_t(1) << 16 | m) << (lead - 16)) | below;
      stats.add(reciprocalRelativeError(x), static_cast<double>(x));
    }
  stats.print("reciprocal", "rel");
  EXPECT_LE(stats.maxError, kReciprocalBound) << "worst x = " << stats.worstInput;
}

TEST(NonlinearReciprocal, NewtonRefinedOnEveryMantissa) {
  ErrorStats stats;
  std::mt19937_64 rng(7);
  for (uint64_t x = 1; x < (uint64_t(1) << 20); ++x) {
    const NormalizedMantissa r = reciprocalRefined(x);
    stats.add(std::ldexp(double(r.mantissa), -30 - int(r.exponent)) * double(x) - 1.0, double(x));
  }
  for (unsigned lead = 32; lead < 54; lead += 7)
    for (uint64_t m = 0; m < (uint64_t(1) << 16); ++m) {
      const uint64_t x =
          ((uint64_t(1) << 16 | m) << (lead - 16)) | (rng() & ((uint64_t(1) << (lead - 16)) - 1));
      const NormalizedMantissa r = reciprocalRefined(x);
      stats.add(static_cast<double>(static_cast<long double>(r.mantissa) * x /
                                        std::ldexp(1.0L, 30 + int(r.exponent)) -
                                    1.0L),
                double(x));
    }
  stats.print("reciprocal+newton", "rel");
  EXPECT_LE(stats.maxError, kReciprocalRefinedBound) << "worst x = " << stats.worstInput;
}

TEST(NonlinearRsqrt, EveryMantissaAtEvenAndOddExponentsWithinBound) {
  ErrorStats stats;
  for (uint64_t x = 1; x < (uint64_t(1) << 22); ++x)
    stats.add(rsqrtRelativeError(x), static_cast<double>(x));
  std::mt19937_64 rng(5);
  for (unsigned lead = 22; lead < 63; lead += 1) {
    if (lead % 5 != 0 && lead % 5 != 1)
      continue; // a mix of even and odd exponents, full mantissa sweep at each
    for (uint64_t m = 0; m < (uint64_t(1) << 16); ++m) {
      const uint64_t below = rng() & ((uint64_t(1) << (lead - 16)) - 1);
      const uint64_t x = ((uint64_t(1) << 16 | m) << (lead - 16)) | below;
      stats.add(rsqrtRelativeError(x), static_cast<double>(x));
    }
  }
  EXPECT_EQ(rsqrt(0).mantissa, rsqrt(1).mantissa) << "zero is treated as one";
  stats.print("rsqrt", "rel");
  EXPECT_LE(stats.maxError, kRsqrtBound) << "worst x = " << stats.worstInput;
}

namespace {

double geluExact(double x, GeluForm form) {
  if (form == GeluForm::Erf)
    return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

double siluExact(double x) {
  return x / (1.0 + std::exp(-x));
}

/// Every Q.11 code with |x| < 64 (2^17 codes, the tables and the tails around them), then a
/// sparse sweep of the rest of the 32-bit input range where the function is relu(x) exactly.
template <typename Fixed, typename Exact> ErrorStats sweepActivation(Fixed fixed, Exact exact) {
  ErrorStats stats;
  const int64_t dense = int64_t(64) << kActivationFracBits;
  for (int64_t x = -dense; x <= dense; ++x)
    stats.add(fixed(x) - std::ldexp(exact(std::ldexp(double(x), -11)), 11), double(x) / 2048);
  for (int64_t x = dense; x < (int64_t(1) << 31); x += 9973) {
    stats.add(fixed(x) - std::ldexp(exact(std::ldexp(double(x), -11)), 11), double(x) / 2048);
    stats.add(fixed(-x) - std::ldexp(exact(std::ldexp(double(-x), -11)), 11), double(-x) / 2048);
  }
  return stats;
}

} // namespace

TEST(NonlinearGelu, ErfFormEveryInputWithinBound) {
  const ErrorStats stats = sweepActivation([](int64_t x) { return geluFixed(x, GeluForm::Erf); },
                                           [](double x) { return geluExact(x, GeluForm::Erf); });
  stats.print("gelu (erf)", "LSB");
  EXPECT_LE(stats.maxError, kGeluBoundLsb) << "worst x = " << stats.worstInput;
}

TEST(NonlinearGelu, TanhFormEveryInputWithinBound) {
  const ErrorStats stats = sweepActivation([](int64_t x) { return geluFixed(x, GeluForm::Tanh); },
                                           [](double x) { return geluExact(x, GeluForm::Tanh); });
  stats.print("gelu (tanh)", "LSB");
  EXPECT_LE(stats.maxError, kGeluBoundLsb) << "worst x = " << stats.worstInput;
}

TEST(NonlinearSilu, EveryInputWithinBound) {
  const ErrorStats stats = sweepActivation([](int64_t x) { return siluFixed(x); },
                                           [](double x) { return siluExact(x); });
  stats.print("silu", "LSB");
  EXPECT_LE(stats.maxError, kSiluBoundLsb) << "worst x = " << stats.worstInput;
}

TEST(NonlinearSinCos, EveryPhaseCodeWithinBound) {
  // Every value of the top 22 phase bits (2^14 points per table segment) with random low bits,
  // both outputs: a dense sweep of the 2^32 phase codes the function actually uses.
  ErrorStats stats;
  std::mt19937_64 rng(6);
  for (uint64_t top = 0; top < (uint64_t(1) << 22); ++top) {
    const uint64_t phase = (top << 26) | (rng() & ((uint64_t(1) << 26) - 1)); // Q0.48
    const SinCos sc = sinCosFixed(phase);
    const double angle = 2 * M_PI * std::ldexp(static_cast<double>(phase), -48);
    stats.add(sc.sin - 32768.0 * std::sin(angle), angle);
    stats.add(sc.cos - 32768.0 * std::cos(angle), angle);
  }
  EXPECT_EQ(sinCosFixed(0).cos, 32768);
  EXPECT_EQ(sinCosFixed(0).sin, 0);
  EXPECT_EQ(sinCosFixed(uint64_t(1) << 46).sin, 32768);  // quarter turn
  EXPECT_EQ(sinCosFixed(uint64_t(1) << 47).cos, -32768); // half turn
  stats.print("sin/cos", "LSB");
  EXPECT_LE(stats.maxError, kSinCosBoundLsb) << "worst angle = " << stats.worstInput;
}

TEST(NonlinearTables, SizesAndEntryWidthsAreTheDocumentedOnes) {
  struct Expected {
    const PiecewiseLinearTable *table;
    size_t entries;
    unsigned bits;
  };
  const Expected expected[] = {{&exp2NegativeFractionTable(), 129, 21},
                               {&reciprocalTable(), 257, 18},
                               {&rsqrtTable(), 385, 18},
                               {&geluErfResidualTable(), 257, 16},
                               {&geluTanhResidualTable(), 257, 16},
                               {&siluResidualTable(), 513, 16},
                               {&quarterSineTable(), 257, 18}};
  for (const Expected &e : expected) {
    EXPECT_EQ(e.table->entries.size(), e.entries) << e.table->function;
    EXPECT_EQ(e.table->entryBits, e.bits) << e.table->function;
    for (uint32_t v : e.table->entries)
      EXPECT_LT(v, uint32_t(1) << e.bits) << e.table->function;
  }
}

TEST(NonlinearTables, InterpolationHitsEntriesAndRejectsOffsetsPastTheEnd) {
  const PiecewiseLinearTable &t = reciprocalTable();
  for (size_t i = 0; i <= t.segments(); ++i)
    EXPECT_EQ(interpolate(t, uint64_t(i) << t.fractionBits), t.entries[i]);
  EXPECT_THROW(interpolate(t, t.inputSpan() + 1), std::out_of_range);
}

TEST(NonlinearTables, InterpolationRoundsHalfAwayFromZeroInEveryTable) {
  // The exact rule the RTL interpolator implements, checked against real arithmetic (exact in
  // double at these widths) at every segment: the midpoint and two random remainders.
  std::mt19937_64 rng(8);
  for (const PiecewiseLinearTable *t :
       {&exp2NegativeFractionTable(), &reciprocalTable(), &rsqrtTable(), &geluErfResidualTable(),
        &geluTanhResidualTable(), &siluResidualTable(), &quarterSineTable()})
    for (size_t i = 0; i < t->segments(); ++i) {
      const uint64_t step = uint64_t(1) << t->fractionBits;
      for (uint64_t r : {step / 2, rng() % step, rng() % step}) {
        const double slope = double(t->entries[i + 1]) - double(t->entries[i]);
        const double exact = t->entries[i] + std::round(slope * double(r) / double(step));
        ASSERT_EQ(interpolate(*t, (uint64_t(i) << t->fractionBits) + r), exact)
            << t->function << " segment " << i << " remainder " << r;
      }
    }
}

TEST(RopeTable, PhaseIncrementsFollowBaseAndHeadDim) {
  const RopeTable table = makeRopeTable(10000.0, 64);
  ASSERT_EQ(table.phaseIncrement.size(), 32u);
  for (size_t j = 0; j < 32; ++j) {
    const double turns = std::pow(10000.0, -2.0 * j / 64) / (2 * M_PI);
    EXPECT_NEAR(std::ldexp(double(table.phaseIncrement[j]), -48), turns, std::ldexp(1.0, -48));
  }
  EXPECT_THROW(makeRopeTable(10000.0, 63), std::invalid_argument);
}
