// Timing model of the DMA stream templates (st_read_dma_stream, st_write_dma_stream) as the
// FIFO-sizing LP sees them: a read DMA is a source that delivers its first token once the first
// burst is merged (up to MaxBurstLen address cycles) and HBM answers (the nominal latency), then
// one token per cycle; a write DMA is a sink taking one token per cycle. HBM timing is random in
// the testbench, so these figures are nominal, not exact: the LP uses them to place the sources,
// and the kernels' own models (exact) to size the FIFOs between them.
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

/// Nominal HBM read latency in kernel cycles that the model assumes.
constexpr int64_t kNominalHbmReadLatency = 24;

/// `tokens` tokens from `words` words of HBM, bursts of at most `maxBurstLen` beats.
KernelTiming readDmaStreamTiming(int64_t tokens, int64_t words, int64_t maxBurstLen = 64);
/// A sink of `tokens` tokens.
KernelTiming writeDmaStreamTiming(int64_t tokens);
/// A node that passes `tokens` tokens through with one cycle of delay (fork, view).
KernelTiming passThroughTiming(int64_t tokens, int64_t ports = 1);

} // namespace st::model
