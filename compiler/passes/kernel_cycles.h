// Kernel cycles of a graph design: what `streamtensor sim` measures as "kernel_cycles" (tb/
// kernel_span.h: from the control slave's start pulse to ap_done), predicted from the design's
// timing graph at its FIFO depths under the testbench memory's mean behaviour:
//   - every read DMA as the memory and DMA stages of model/memory_read_model.h (the first
//     burst's address merge, the mean read latency, words at the memory's mean rate);
//   - the control's start: running, then every DMA's start handshake (kKernelStartCycles);
//   - forks and views as the wiring they are (sim::TimingNode::wire: a token passes from the FIFO
//     before them to the FIFOs after them in one cycle), not the LP's nominal one-cycle node;
//   - the write DMAs' tail: after a write DMA's last token, its pack register and W beat and the
//     memory's mean write response latency (tb/hbm_model.h: half the read latency plus half the
//     jitter, B offered at the ready probability) before its done, which is ap_done.
// The FIFO-sizing LP keeps its nominal DMAs (model/dma_stream_model.h); this is the prediction
// that the measurement is compared with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/dataflow_graph.h"
#include "model/memory_read_model.h"

namespace st::passes {

/// Cycles from the start pulse to the first cycle a DMA's start handshake can happen.
constexpr int64_t kKernelStartCycles = 1;

/// Mean cycles from a write DMA's last token to its done pulse under `memory`.
int64_t writeTailCycles(const model::MemoryTiming &memory);

/// The kernel's predicted cycles, or why there are none.
struct KernelCycles {
  std::optional<int64_t> cycles;
  /// The timing graph's wait-for report when the design deadlocks at its FIFO depths (depths
  /// forced by --fifo-depth to reproduce a deadlock); empty otherwise.
  std::string deadlock;
};

/// The kernel's cycles (start pulse to ap_done) of `df` (FIFO depths sized) under `memory`.
KernelCycles predictKernelCycles(const ir::DataflowGraph &df, const model::MemoryTiming &memory);

} // namespace st::passes
