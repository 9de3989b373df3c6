// Engine channel groups: the GEMV engine's pseudo-channels folded by symmetry for the step
// prediction (llm/engine_step_prediction.h). Each channel's DMA refills its own prefetch FIFO
// (llm/gemv_engine_join.h), so a channel whose K/V rows hold its refill back falls behind the
// others by up to its FIFO, and the engine takes a super-word when every FIFO holds a word.
// Channels that the same reads draw on (no read: the weights-only channels; the channels of one
// K slice set; ...) behave alike, so the prediction simulates one refill per group, its channels
// in lockstep, instead of one per channel.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/memory_stages.h"

namespace st::llm {

/// Channels 0 .. channels - 1 grouped by the reads of `reads` that draw on them (by index into
/// `reads`, and for a read with block channels by block; channels >= `channels` are ignored):
/// channels drawn on by the same reads (blocks) form one group. Groups in the order of their first
/// channel, channels ascending.
std::vector<std::vector<int>> engineChannelGroups(const std::vector<sim::MemoryRead> &reads,
                                                  int64_t channels);

} // namespace st::llm
