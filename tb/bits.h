// Bits: an arbitrary-width two-state value, the payload type of every testbench stream.
// Stored as little-endian 32-bit words (the layout of Verilator's VlWide), masked to its width.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace st::tb {

class Bits {
public:
  Bits() = default;
  explicit Bits(unsigned width, uint64_t value = 0);

  static Bits random(unsigned width, std::mt19937_64 &rng);
  static Bits fromWords(unsigned width, const uint32_t *words);

  unsigned width() const { return width_; }
  const std::vector<uint32_t> &words() const { return words_; }
  uint32_t *data() { return words_.data(); }

  uint64_t toU64() const; ///< low 64 bits
  bool bit(unsigned index) const;
  void setBit(unsigned index, bool value);
  /// Bits [lo, lo+width) as a new value.
  Bits slice(unsigned lo, unsigned width) const;
  /// Overwrite bits [lo, lo+value.width()) with value.
  void setSlice(unsigned lo, const Bits &value);
  uint64_t sliceU64(unsigned lo, unsigned width) const { return slice(lo, width).toU64(); }
  void setSliceU64(unsigned lo, unsigned width, uint64_t value) { setSlice(lo, Bits(width, value)); }

  bool operator==(const Bits &other) const;
  bool operator!=(const Bits &other) const { return !(*this == other); }

  /// Hexadecimal, most significant digit first, e.g. "8'h3f".
  std::string toString() const;

private:
  void mask();
  unsigned width_ = 0;
  std::vector<uint32_t> words_;
};

} // namespace st::tb
