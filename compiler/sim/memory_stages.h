// Memory stages: a timing graph's HBM read DMAs made into the two stages of
// model/memory_read_model.h (the memory's words at its mean rate, then the DMA's buffer and
// unpack), so that a simulation of the graph predicts what the testbench measures. The FIFO
// sizing keeps the nominal one-node DMA; predictions of measured cycles use this.
#pragma once

#include <cstdint>
#include <vector>

#include "model/memory_read_model.h"
#include "sim/dataflow_timing_sim.h"

namespace st::sim {

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
  /// A read whose runs of blockWords words lie on different channels (a block-major KV cache
  /// whose kv-head blocks have channels of their own): word k draws on
  /// blockChannels[(k / blockWords) mod blockChannels.size()] instead of `channels`. Empty:
  /// every word on `channels`.
  std::vector<std::vector<int>> blockChannels;
  int64_t blockWords = 0;
  /// Goes first on its channels: it takes their words before any read without `first`
  /// (TimingNode::channelFirst), as a KV read whose master claims its channels while the
  /// engine's weight DMAs there hold their bursts (st_channel_claim).
  bool first = false;
  /// Index (into the same `reads`) of the read that the same DMA serves just before this one
  /// (the previous layer's command of a block-stage DMA), or SIZE_MAX: none. One DMA issues its
  /// commands' addresses in order through one buffer, so this read's first word comes right
  /// after that read's last (two cycles; its start delay is then ignored), not from the step's
  /// start.
  size_t after = SIZE_MAX;
  /// Words the DMA fetched before the start (at most its buffer; none with `after`): the read
  /// of the step's first layer, which the DMA serves right after the previous step's last
  /// layer, in that step's tail. They are in the buffer at cycle 0, draw no bandwidth, and the
  /// rest follow at the rate.
  int64_t prefetchedWords = 0;
  /// Cycles from the DMA's buffer having a burst's room again, after it was full, to that
  /// burst's first word (model::memoryRestartDelay); 0: the memory resumes at once.
  int64_t restartDelay = 0;
};

/// Turns each listed node into the DMA's unpack stage fed by a new memory node (appended to the
/// graph, named "<node>.memory") through an edge as deep as the DMA's buffer; `depths` (one per
/// edge) gets that edge's depth. A read with `after` gets its memory node fed by the earlier
/// read's memory node (an edge of its words, deep enough never to hold it back). Throws
/// st::Error naming a node that is not a source, or an `after` that is not an earlier read.
void addMemoryStages(TimingGraph &graph, std::vector<int64_t> &depths,
                     const std::vector<MemoryRead> &reads, model::Cadence rate);

} // namespace st::sim
