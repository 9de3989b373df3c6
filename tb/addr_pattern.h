// AddrPattern: the software model of st_addr_gen and of the DMAs' burst split. An iteration
// space of nested loops (loop 0 outermost) with a base address, trip counts and signed byte
// strides; its address sequence; the INCR bursts a DMA makes of it (st_axi_burst_former's greedy
// rule); and the flat configuration vectors the RTL takes. Used by the DMA tests and by
// generated testbenches.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bits.h"

namespace st::tb {

struct AddrPattern {
  uint64_t base = 0;
  std::vector<uint32_t> tripCounts; ///< loop 0 outermost
  std::vector<int64_t> strides;     ///< bytes, same length as tripCounts

  uint64_t points() const {
    uint64_t n = 1;
    for (uint32_t t : tripCounts)
      n *= t;
    return n;
  }

  /// Calls f(address) for every point, in loop order (addresses wrap modulo 2^64).
  template <class F> void forEach(F &&f) const {
    const size_t loops = tripCounts.size();
    if (points() == 0)
      return;
    std::vector<uint32_t> index(loops, 0);
    for (;;) {
      uint64_t addr = base;
      for (size_t i = 0; i < loops; ++i)
        addr += static_cast<uint64_t>(strides[i]) * index[i];
      f(addr);
      size_t level = loops;
      while (level > 0) {
        --level;
        if (++index[level] < tripCounts[level])
          break;
        index[level] = 0;
        if (level == 0)
          return;
      }
      if (loops == 0)
        return;
    }
  }

  std::vector<uint64_t> addresses() const {
    std::vector<uint64_t> out;
    out.reserve(points());
    forEach([&](uint64_t a) { out.push_back(a); });
    return out;
  }

  /// The pattern with `numLoops` loops: missing outer loops get trip count 1 and stride 0.
  AddrPattern padded(unsigned numLoops) const {
    AddrPattern p = *this;
    while (p.tripCounts.size() < numLoops) {
      p.tripCounts.insert(p.tripCounts.begin(), 1);
      p.strides.insert(p.strides.begin(), 0);
    }
    return p;
  }

  /// trip_counts_i: loop i at bits [32i, 32i+32). Pads to numLoops loops first.
  Bits packedTripCounts(unsigned numLoops) const {
    AddrPattern p = padded(numLoops);
    Bits v(32 * numLoops);
    for (unsigned i = 0; i < numLoops; ++i)
      v.setSliceU64(32 * i, 32, p.tripCounts[i]);
    return v;
  }

  /// strides_i: loop i at bits [64i, 64i+64), two's complement. Pads to numLoops loops first.
  Bits packedStrides(unsigned numLoops) const {
    AddrPattern p = padded(numLoops);
    Bits v(64 * numLoops);
    for (unsigned i = 0; i < numLoops; ++i)
      v.setSliceU64(64 * i, 64, static_cast<uint64_t>(p.strides[i]));
    return v;
  }

  std::string toString() const {
    std::string s = "base 0x";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(base));
    s += buf;
    s += " trips [";
    for (size_t i = 0; i < tripCounts.size(); ++i)
      s += (i ? "," : "") + std::to_string(tripCounts[i]);
    s += "] strides [";
    for (size_t i = 0; i < strides.size(); ++i)
      s += (i ? "," : "") + std::to_string(strides[i]);
    return s + "]";
  }
};

struct BurstSpec {
  uint64_t addr = 0;
  unsigned beats = 0;
  bool operator==(const BurstSpec &o) const { return addr == o.addr && beats == o.beats; }
};

/// The greedy split of a word-address sequence into INCR bursts: a burst grows while the next
/// address is the next word, up to maxBurstLen beats and never into a new 4 KB page.
inline std::vector<BurstSpec> splitIntoBursts(const std::vector<uint64_t> &addresses,
                                              unsigned wordBytes, unsigned maxBurstLen) {
  std::vector<BurstSpec> bursts;
  for (uint64_t a : addresses) {
    if (!bursts.empty()) {
      BurstSpec &b = bursts.back();
      uint64_t next = b.addr + uint64_t(b.beats) * wordBytes;
      if (a == next && b.beats < maxBurstLen && next % 4096 != 0) {
        ++b.beats;
        continue;
      }
    }
    bursts.push_back({a, 1});
  }
  return bursts;
}

} // namespace st::tb
