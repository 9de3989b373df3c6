// Unit tests of the fixed-point primitives: round half away from zero, saturation, FixedScale
// conversion precision and the exactness of applyScale.
#include <gtest/gtest.h>

#include "fixed_point.h"

#include <cmath>
#include <random>

using namespace st::numerics;

TEST(RoundShiftRight, RoundsHalfAwayFromZero) {
  EXPECT_EQ(roundShiftRight(3, 1), 2);   // 1.5
  EXPECT_EQ(roundShiftRight(-3, 1), -2); // -1.5
  EXPECT_EQ(roundShiftRight(5, 2), 1);   // 1.25
  EXPECT_EQ(roundShiftRight(-5, 2), -1);
  EXPECT_EQ(roundShiftRight(6, 2), 2); // 1.5
  EXPECT_EQ(roundShiftRight(-6, 2), -2);
  EXPECT_EQ(roundShiftRight(-2, 2), -1); // -0.5
  EXPECT_EQ(roundShiftRight(-1, 2), 0);  // -0.25
  EXPECT_EQ(roundShiftRight(7, 0), 7);
  EXPECT_EQ(roundShiftRight(INT64_MAX / 2, 70), 0);
}

TEST(RoundShiftRight, MatchesRealRoundingOnRandomValues) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; ++i) {
    const int64_t v = static_cast<int64_t>(rng() >> 20) - (int64_t(1) << 43);
    const unsigned s = static_cast<unsigned>(rng() % 30);
    EXPECT_EQ(roundShiftRight(v, s),
              static_cast<int64_t>(std::round(std::ldexp(double(v), -int(s)))))
        << v << " >> " << s;
  }
}

TEST(Saturate, ClampsToTheWidth) {
  EXPECT_EQ(saturateSigned(200, 8), 127);
  EXPECT_EQ(saturateSigned(-200, 8), -128);
  EXPECT_EQ(saturateSigned(-8, 4), -8);
  EXPECT_EQ(saturateSigned(9, 4), 7);
  EXPECT_EQ(saturateSigned(INT64_MIN, 64), INT64_MIN);
  EXPECT_EQ(saturateUnsigned(-1, 16), 0);
  EXPECT_EQ(saturateUnsigned(70000, 16), 65535);
  EXPECT_TRUE(fitsSigned(-32768, 16));
  EXPECT_FALSE(fitsSigned(32768, 16));
}

TEST(FixedScale, RelativeErrorAtMostTwoToMinus24) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> exponent(-40.0, 23.9);
  for (int i = 0; i < 100000; ++i) {
    const double m = std::exp2(exponent(rng));
    const FixedScale s = fixedScaleFromReal(m);
    EXPECT_GE(s.mantissa, 1u << 23) << m;
    EXPECT_LT(s.mantissa, 1u << 24) << m;
    EXPECT_LE(std::fabs(s.value() / m - 1.0), std::ldexp(1.0, -24)) << m;
  }
  EXPECT_EQ(fixedScaleFromReal(0).mantissa, 0u);
  EXPECT_EQ(fixedScaleFromReal(1.0).value(), 1.0);
  EXPECT_THROW(fixedScaleFromReal(16777216.0), std::invalid_argument);
  EXPECT_THROW(fixedScaleFromReal(-1.0), std::invalid_argument);
  EXPECT_THROW(fixedScaleFromReal(NAN), std::invalid_argument);
}

TEST(FixedScale, ApplyScaleIsExactRoundingOfTheProduct) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const FixedScale s{static_cast<uint32_t>(rng() & 0xffffff), static_cast<uint8_t>(rng() % 50)};
    const int64_t v = static_cast<int64_t>(rng() >> 26) - (int64_t(1) << 37);
    const long double exact = static_cast<long double>(v) * s.mantissa / std::ldexp(1.0L, s.shift);
    EXPECT_EQ(applyScale(v, s), static_cast<int64_t>(std::roundl(exact)));
  }
  EXPECT_EQ(requantizeValue(1 << 20, fixedScaleFromReal(1.0), 8), 127);
  EXPECT_EQ(requantizeValue(-(1 << 20), fixedScaleFromReal(1.0), 8), -128);
}

TEST(BitHelpers, LeadingOneAndCeilLog2) {
  EXPECT_EQ(leadingOnePosition(1), 0u);
  EXPECT_EQ(leadingOnePosition(~0ull), 63u);
  EXPECT_EQ(ceilLog2(8192), 13u);
  EXPECT_EQ(ceilLog2(8193), 14u);
  EXPECT_THROW(leadingOnePosition(0), std::invalid_argument);
}
