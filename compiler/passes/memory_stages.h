// Memory stages: a timing graph's HBM read DMAs made into the two stages of
// model/memory_read_model.h (the memory's words at its mean rate, then the DMA's buffer and
// unpack), so that a simulation of the graph predicts what the testbench measures. The FIFO
// sizing keeps the nominal one-node DMA; predictions of measured cycles use this.
#pragma once

#include <cstdint>
#include <vector>

#include "model/memory_read_model.h"
#include "passes/dataflow_timing_sim.h"

namespace st::passes {

/// A read DMA node of a timing graph and what its memory stage delivers.
struct MemoryRead {
  size_t node = 0;        ///< a source node of the graph (the DMA)
  int64_t words = 0;      ///< 512-bit words it reads
  int64_t startDelay = 0; ///< cycles to its first word (model::memoryStartDelay, or 0 if ahead)
  /// Per word, its cycle by the DMA's bursts (model::readDmaWordSchedule); empty: startDelay,
  /// then the rate.
  std::vector<int64_t> schedule;
  /// The pseudo-channels its words draw bandwidth from (TimingNode::channels); empty: none.
  std::vector<int> channels;
};

/// Turns each listed node into the DMA's unpack stage fed by a new memory node (appended to the
/// graph, named "<node>.memory") through an edge as deep as the DMA's buffer; `depths` (one per
/// edge) gets that edge's depth. Throws st::Error naming a node that is not a source.
void addMemoryStages(TimingGraph &graph, std::vector<int64_t> &depths,
                     const std::vector<MemoryRead> &reads, model::Cadence rate);

} // namespace st::passes
