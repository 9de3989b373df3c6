// Bits: arbitrary-width two-state values for testbench payloads.
#include "bits.h"

#include <cstdio>
#include <stdexcept>

namespace st::tb {

Bits::Bits(unsigned width, uint64_t value) : width_(width), words_((width + 31) / 32, 0) {
  if (!words_.empty())
    words_[0] = static_cast<uint32_t>(value);
  if (words_.size() > 1)
    words_[1] = static_cast<uint32_t>(value >> 32);
  mask();
}

Bits Bits::random(unsigned width, std::mt19937_64 &rng) {
  Bits b(width);
  for (auto &w : b.words_)
    w = static_cast<uint32_t>(rng());
  b.mask();
  return b;
}

Bits Bits::fromWords(unsigned width, const uint32_t *words) {
  Bits b(width);
  for (size_t i = 0; i < b.words_.size(); ++i)
    b.words_[i] = words[i];
  b.mask();
  return b;
}

void Bits::mask() {
  if (width_ % 32 != 0 && !words_.empty())
    words_.back() &= (uint32_t{1} << (width_ % 32)) - 1;
}

uint64_t Bits::toU64() const {
  uint64_t v = 0;
  if (!words_.empty())
    v = words_[0];
  if (words_.size() > 1)
    v |= uint64_t{words_[1]} << 32;
  return v;
}

bool Bits::bit(unsigned index) const {
  if (index >= width_)
    throw std::out_of_range("Bits::bit index " + std::to_string(index) + " >= width " +
                            std::to_string(width_));
  return (words_[index / 32] >> (index % 32)) & 1u;
}

void Bits::setBit(unsigned index, bool value) {
  if (index >= width_)
    throw std::out_of_range("Bits::setBit index " + std::to_string(index) + " >= width " +
                            std::to_string(width_));
  uint32_t m = uint32_t{1} << (index % 32);
  if (value)
    words_[index / 32] |= m;
  else
    words_[index / 32] &= ~m;
}

Bits Bits::slice(unsigned lo, unsigned width) const {
  if (lo + width > width_)
    throw std::out_of_range("Bits::slice [" + std::to_string(lo) + "+:" + std::to_string(width) +
                            "] outside width " + std::to_string(width_));
  Bits out(width);
  for (unsigned i = 0; i < width; ++i)
    if (bit(lo + i))
      out.setBit(i, true);
  return out;
}

void Bits::setSlice(unsigned lo, const Bits &value) {
  if (lo + value.width() > width_)
    throw std::out_of_range("Bits::setSlice outside width " + std::to_string(width_));
  for (unsigned i = 0; i < value.width(); ++i)
    setBit(lo + i, value.bit(i));
}

bool Bits::operator==(const Bits &other) const {
  return width_ == other.width_ && words_ == other.words_;
}

std::string Bits::toString() const {
  std::string s = std::to_string(width_) + "'h";
  bool leading = true;
  for (size_t i = words_.size(); i-- > 0;) {
    char buf[16];
    std::snprintf(buf, sizeof buf, leading ? "%x" : "%08x", words_[i]);
    if (leading && words_[i] == 0 && i != 0)
      continue;
    s += buf;
    leading = false;
  }
  if (words_.empty())
    s += "0";
  return s;
}

} // namespace st::tb
