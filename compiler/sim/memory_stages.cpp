// Memory stages of HBM read DMAs in a timing graph (see memory_stages.h).
#include "sim/memory_stages.h"

#include <algorithm>

#include "support/error.h"

namespace st::sim {

void addMemoryStages(TimingGraph &graph, std::vector<int64_t> &depths,
                     const std::vector<MemoryRead> &reads, model::Cadence rate) {
  std::vector<size_t> memoryNode; // per read, its memory node
  for (size_t i = 0; i < reads.size(); ++i) {
    const MemoryRead &r = reads[i];
    const std::string dmaName = graph.nodes.at(r.node).name;
    model::KernelTiming &dma = graph.nodes.at(r.node).timing;
    if (!dma.inputTokens.empty())
      throw Error("node '" + dmaName + "'", "memory stage", "a read DMA (a source node)");
    dma = model::readDmaUnpackTiming(r.words, dma.outputTokens);
    TimingNode memory;
    memory.name = dmaName + ".memory";
    if (r.prefetchedWords > 0) {
      if (r.after != SIZE_MAX || !r.schedule.empty() ||
          r.prefetchedWords > std::min(r.words, model::kReadDmaBufferWords))
        throw Error("node '" + dmaName + "'", "memory stage",
                    "prefetched words only on a read that follows none, without a schedule, "
                    "at most its words and the DMA's buffer");
      memory.timing = model::memoryWordsTiming(r.words, 0, rate);
      memory.timing.rateFrom = r.prefetchedWords;
      memory.timing.totalLatency = memory.timing.spanTo(r.words - 1);
      memory.prefetchedOutputs = r.prefetchedWords;
    } else if (r.after == SIZE_MAX) {
      memory.timing = r.schedule.empty() ? model::memoryWordsTiming(r.words, r.startDelay, rate)
                                         : model::memoryWordsTiming(r.schedule, rate);
    } else {
      if (r.after >= i)
        throw Error("node '" + dmaName + "'", "memory stage",
                    "a read that follows an earlier read of the list");
      memory.timing = model::memoryWordsAfterTiming(r.words, reads[r.after].words, rate);
    }
    memory.channels = r.channels;
    memory.channelFirst = r.first;
    if (!r.blockChannels.empty()) {
      if (r.blockWords < 1)
        throw Error("node '" + dmaName + "'", "memory stage",
                    "at least one word per block of its block channels");
      memory.blockChannels = r.blockChannels;
      memory.blockOutputs = r.blockWords;
    }
    if (r.restartDelay > 0) {
      memory.restartRoom = model::kReadDmaMaxBurstLen;
      memory.restartDelay = r.restartDelay;
    }
    graph.nodes.push_back(memory);
    memoryNode.push_back(graph.nodes.size() - 1);
    if (r.after != SIZE_MAX) {
      TimingEdge chain;
      chain.name = graph.nodes[memoryNode[r.after]].name + "->" + memory.name;
      chain.src = memoryNode[r.after];
      chain.dst = memoryNode.back();
      chain.tokens = reads[r.after].words;
      chain.tokenBits = 1;
      graph.edges.push_back(chain);
      depths.push_back(chain.tokens);
    }
    TimingEdge edge;
    edge.name = memory.name + "->" + dmaName;
    edge.src = graph.nodes.size() - 1;
    edge.dst = r.node;
    edge.dstPort = 0;
    edge.tokens = r.words;
    edge.tokenBits = 512;
    graph.edges.push_back(edge);
    depths.push_back(model::kReadDmaBufferWords);
  }
}

} // namespace st::sim
