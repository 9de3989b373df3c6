// StreamWord: one word of a kernel's input stream as the golden side builds it (the weight stream
// of st_linear, model/weight_stream.h; the GEMV engine's channels, gemv_stream.h).
#pragma once

#include <cstdint>
#include <vector>

namespace st::numerics {

/// One stream word, WordBits wide, as little-endian 32-bit limbs (limb 0 holds bits 0..31; the
/// layout of Verilator's VlWide and of tb::Bits), bits above WordBits zero.
using StreamWord = std::vector<uint32_t>;

} // namespace st::numerics
