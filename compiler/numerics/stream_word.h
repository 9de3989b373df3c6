// StreamWord: one word of a kernel's input stream as the golden side builds it (the weight stream
// of st_linear, model/weight_stream.h; the GEMV engine's channels, gemv_stream.h).
#pragma once

#include <cstdint>
#include <vector>

namespace st::numerics {

/// One stream word, WordBits wide, as little-endian 32-bit limbs (limb 0 holds bits 0..31; the
/// layout of Verilator's VlWide and of tb::Bits), bits above WordBits zero.
using StreamWord = std::vector<uint32_t>;

/// Writes the low `width` bits of `value` at bit `lo` of `limbs` (the bits there are zero), a
/// limb-sized piece at a time.
inline void placeBits(StreamWord &limbs, int64_t lo, int64_t width, uint64_t value) {
  if (width < 64)
    value &= (uint64_t(1) << width) - 1;
  while (width > 0) {
    const int64_t bit = lo % 32;
    const int64_t take = width < 32 - bit ? width : 32 - bit;
    limbs[size_t(lo / 32)] |= uint32_t(value & ((uint64_t(1) << take) - 1)) << bit;
    value >>= take;
    lo += take;
    width -= take;
  }
}

} // namespace st::numerics
