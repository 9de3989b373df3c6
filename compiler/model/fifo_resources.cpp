// Resource model of st_fifo (see fifo_resources.h). Calibration (Yosys synth_xilinx -family
// xcup, profiled): d4_w32 registers LUT 55 FF 142; d64_w32 LUTRAM LUT 85 FF 34; d1024_w32 BRAM
// LUT 154 FF 121 BRAM36 1; d4096_w72 URAM LUT 266 FF 211 URAM 1.
#include "model/fifo_resources.h"

#include <algorithm>

#include "support/int_math.h"

namespace st::model {

FifoMemory fifoMemoryOf(int64_t width, int64_t depth) {
  if (depth <= 4)
    return FifoMemory::Registers;
  if (depth <= 64)
    return FifoMemory::Distributed;
  if (depth >= 4096 && width * depth >= 147456)
    return FifoMemory::Ultra;
  return FifoMemory::Block;
}

const char *toString(FifoMemory memory) {
  switch (memory) {
  case FifoMemory::Registers:
    return "registers";
  case FifoMemory::Distributed:
    return "distributed";
  case FifoMemory::Block:
    return "block";
  case FifoMemory::Ultra:
    return "ultra";
  }
  return "?";
}

double blockRamTiles(int64_t width, int64_t depth) {
  // {depth, width} of one tile; RAMB18 tiles cost 0.5, RAMB36 tiles 1.
  static const int64_t ramb18[][2] = {{16384, 1}, {8192, 2},  {4096, 4},
                                      {2048, 9},  {1024, 18}, {512, 36}};
  static const int64_t ramb36[][2] = {{32768, 1}, {16384, 2}, {8192, 4}, {4096, 9},
                                      {2048, 18}, {1024, 36}, {512, 72}};
  double best = 1e30;
  for (const auto &t : ramb18)
    best = std::min(best, 0.5 * double(ceilDiv(depth, t[0]) * ceilDiv(width, t[1])));
  for (const auto &t : ramb36)
    best = std::min(best, double(ceilDiv(depth, t[0]) * ceilDiv(width, t[1])));
  return best;
}

ResourceEstimate fifoResources(int64_t width, int64_t depth, bool profiled) {
  const FifoMemory memory = fifoMemoryOf(width, depth);
  const int64_t countBits = ceilLog2(depth + 1);
  const int64_t addrBits = depth > 1 ? ceilLog2(depth) : 1;
  ResourceEstimate r;
  // Control: read and write pointers, the occupancy counter (and its high-water mark), full and
  // valid flags; the counter's +-1 and compare logic and the pointer increments.
  r.ff = 2 * addrBits + countBits * (profiled ? 2 : 1) + 6;
  r.lut = 8 + 2 * addrBits + countBits * (profiled ? 4 : 2);
  switch (memory) {
  case FifoMemory::Registers:
    // Depth x Width payload flip-flops; an up-to-4:1 read multiplexer is one LUT per bit.
    r.ff += depth * width;
    r.lut += depth > 1 ? width : 0;
    break;
  case FifoMemory::Distributed:
    // RAM32M16 (32 x 14 bits, simple dual port) or RAM64M8 (64 x 7), eight LUTs each.
    r.lut += 8 * (depth <= 32 ? ceilDiv(width, 14) : ceilDiv(width, 7));
    break;
  case FifoMemory::Block:
  case FifoMemory::Ultra:
    // Registered read: a two-entry prefetch register (2 x Width flip-flops, each entry loaded
    // from data_i or the RAM output), plus the RAM output valid/skip logic.
    r.ff += 2 * width + 9;
    r.lut += 2 * width + 18;
    if (memory == FifoMemory::Block)
      r.bram36 = blockRamTiles(width, depth);
    else
      r.uram = ceilDiv(width, 72) * ceilDiv(depth, 4096);
    break;
  }
  return r;
}

} // namespace st::model
