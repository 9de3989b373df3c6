// Resource model of st_fifo (rtl_templates/stream/st_fifo.sv): which memory its RamStyle "auto"
// picks for a Width x Depth FIFO (the same rule as the RTL), and the LUT/FF/BRAM/URAM that costs.
// Structural: the payload storage (flip-flops, LUTRAM slices, RAMB18/RAMB36 or URAM288 tiles)
// plus the read multiplexer or the BRAM/URAM prefetch registers, plus control logic (pointers,
// occupancy counter, optional high-water mark) whose constants are calibrated on the
// synth.fifo.* Yosys runs (tests/rtl/fifo, synth.fifo.*.vs_model prints the comparison).
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

enum class FifoMemory { Registers, Distributed, Block, Ultra };

/// st_fifo's RamStyle "auto" choice: Depth <= 4 registers, <= 64 LUTRAM, >= 4096 with
/// Depth * Width >= 147,456 bits URAM, otherwise BRAM.
FifoMemory fifoMemoryOf(int64_t width, int64_t depth);
const char *toString(FifoMemory memory);

/// RAMB36 equivalents (a RAMB18 counts 0.5) of a width x depth memory built from the cheapest
/// aspect ratio of RAMB18E2 (1Kx18, 512x36, ...) or RAMB36E2 (1Kx36, 512x72, ...) tiles.
double blockRamTiles(int64_t width, int64_t depth);

/// One st_fifo #(.Width(width), .Depth(depth)) with RamStyle "auto". `profiled`: its
/// max_count_o output is used (the compiler's top leaves count_o and max_count_o open, so
/// synthesis removes the high-water-mark register; a standalone synthesis keeps it).
ResourceEstimate fifoResources(int64_t width, int64_t depth, bool profiled = false);

} // namespace st::model
