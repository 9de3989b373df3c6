// Integer helpers the models, the plans and the stream packers share: a division rounded up, a
// value rounded up to a multiple, and the bits that index or count a range (SystemVerilog's
// $clog2), so that every kernel model sizes its counters and widths the way the RTL does.
#pragma once

#include <cstdint>
#include <type_traits>

namespace st {

/// ceil(a / b) for a >= 0 and b > 0.
constexpr int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/// The smallest multiple of `to` (> 0) that is at least v (>= 0), in v's unsigned or signed type.
template <typename T> constexpr T roundUp(T v, std::common_type_t<T> to) {
  static_assert(std::is_integral_v<T>, "roundUp takes integers");
  return (v + to - 1) / to * to;
}

/// The smallest n with 2^n >= v (0 for v <= 1): SystemVerilog's $clog2, the bits of an index
/// over v values.
constexpr int64_t ceilLog2(int64_t v) {
  int64_t bits = 0;
  while ((int64_t(1) << bits) < v)
    ++bits;
  return bits;
}

/// The bits of a counter register over `values` values: ceilLog2(values), at least 1.
constexpr int64_t bitsFor(int64_t values) {
  return ceilLog2(values) > 1 ? ceilLog2(values) : 1;
}

} // namespace st
