// Memory stages of HBM read DMAs in a timing graph (see memory_stages.h).
#include "passes/memory_stages.h"

#include "support/error.h"

namespace st::passes {

void addMemoryStages(TimingGraph &graph, std::vector<int64_t> &depths,
                     const std::vector<MemoryRead> &reads, model::Cadence rate) {
  for (const MemoryRead &r : reads) {
    const std::string dmaName = graph.nodes.at(r.node).name;
    model::KernelTiming &dma = graph.nodes.at(r.node).timing;
    if (!dma.inputTokens.empty())
      throw Error("node '" + dmaName + "'", "memory stage", "a read DMA (a source node)");
    dma = model::readDmaUnpackTiming(r.words, dma.outputTokens);
    TimingNode memory;
    memory.name = dmaName + ".memory";
    memory.timing = r.schedule.empty() ? model::memoryWordsTiming(r.words, r.startDelay, rate)
                                       : model::memoryWordsTiming(r.schedule, rate);
    memory.channels = r.channels;
    graph.nodes.push_back(memory);
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

} // namespace st::passes
