// SignalRef: a type-erased reference to one port of a Verilated model (CData, SData, IData,
// QData or VlWide<N>), read and written as Bits. Lets the testbench library drive any width
// without templates in every component.
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>

#include "bits.h"
#include "verilated.h"

namespace st::tb {

class SignalRef {
public:
  SignalRef() = default;

  template <typename Integral,
            typename = std::enable_if_t<std::is_integral_v<std::remove_const_t<Integral>>>>
  SignalRef(Integral &sig, unsigned width) : width_(width) {
    reader_ = [&sig, width]() { return Bits(width, static_cast<uint64_t>(sig)); };
    if constexpr (!std::is_const_v<Integral>) {
      writer_ = [&sig](const Bits &b) {
        sig = static_cast<std::remove_const_t<Integral>>(b.toU64());
      };
    }
  }

  template <std::size_t Words>
  SignalRef(VlWide<Words> &sig, unsigned width) : width_(width) {
    reader_ = [&sig, width]() { return Bits::fromWords(width, sig.data()); };
    writer_ = [&sig](const Bits &b) {
      for (std::size_t i = 0; i < Words; ++i)
        sig.at(i) = i < b.words().size() ? b.words()[i] : 0u;
    };
  }

  unsigned width() const { return width_; }
  bool valid() const { return static_cast<bool>(reader_); }
  Bits read() const { return reader_(); }
  bool readBool() const { return reader_().toU64() != 0; }
  uint64_t readU64() const { return reader_().toU64(); }
  void write(const Bits &value) const { writer_(value); }
  void write(uint64_t value) const { writer_(Bits(width_, value)); }

  /// Bits [lo, lo+width) of this signal as a signal of its own, e.g. one stream of N flattened
  /// onto one port. Writing it reads, modifies and writes back the whole port.
  SignalRef slice(unsigned lo, unsigned width) const {
    SignalRef part;
    part.width_ = width;
    auto wholeRead = reader_;
    part.reader_ = [wholeRead, lo, width]() { return wholeRead().slice(lo, width); };
    if (writer_) {
      auto wholeWrite = writer_;
      part.writer_ = [wholeRead, wholeWrite, lo](const Bits &b) {
        Bits whole = wholeRead();
        whole.setSlice(lo, b);
        wholeWrite(whole);
      };
    }
    return part;
  }

private:
  unsigned width_ = 0;
  std::function<Bits()> reader_;
  std::function<void(const Bits &)> writer_;
};

/// The three signals of one valid/ready stream as seen from the testbench.
struct StreamPins {
  SignalRef valid;
  SignalRef ready;
  SignalRef data; ///< may be left empty for a data-less handshake
};

} // namespace st::tb
