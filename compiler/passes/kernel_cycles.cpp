// Kernel cycles of a graph design under the testbench memory (see kernel_cycles.h).
#include "passes/kernel_cycles.h"

#include <algorithm>
#include <cmath>

#include "ir/hbm_layout.h"
#include "passes/pass_pipeline.h"
#include "sim/dataflow_timing_sim.h"
#include "sim/memory_stages.h"
#include "support/error.h"

namespace st::passes {

/// Cycles of the write DMA's own pipeline around the memory's response, beyond the timing
/// node's last event (its D = 2 already counts the pack register and the W beat): the B
/// handshake into done (measured on the deterministic memory: the last W beat in the write node's
/// last cycle, B 1 + latency / 2 later, done 2 after B, kernel cycles = done - start).
constexpr int64_t kWritePipelineCycles = 2;

int64_t writeTailCycles(const model::MemoryTiming &memory) {
  // tb/hbm_model.h: a write's response comes latency / 2 + U[0, jitter] after its last W beat,
  // and the B beat is offered with the ready probability each cycle (a geometric wait).
  const double ready = std::clamp(memory.readyProbability, 1e-3, 1.0);
  const double response = std::floor(memory.readLatency / 2) + memory.readLatencyJitter / 2 +
                          (1 / ready - 1) + (1 / ready - 1);
  return kWritePipelineCycles + static_cast<int64_t>(std::llround(response));
}

namespace {

/// Runs of the timing graph a prediction under a random memory averages, and the first seed.
constexpr int kMemoryDraws = 64;
constexpr uint64_t kFirstDrawSeed = 1;

/// The kernel's cycles in one run of the timing graph: under the memory's means, or with `draws`
/// under one run's drawn delays (each read's bursts and beats, each write's response).
KernelCycles kernelCyclesOnce(const ir::DataflowGraph &df, const model::MemoryTiming &memory,
                              model::MemoryDraws *draws) {
  std::vector<ir::StreamId> streams;
  sim::TimingGraph graph = timingGraphOf(df, streams);
  // timingGraphOf numbers the nodes in topological order.
  const std::vector<ir::NodeId> order = df.topologicalOrder();
  std::vector<sim::MemoryRead> reads;
  std::vector<size_t> writes;
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::DataflowNode &node = df.node(order[i]);
    // A fork or a view is wiring between FIFOs in the RTL: no cycle of its own.
    graph.nodes[i].wire = node.kind == ir::NodeKind::Fork || node.kind == ir::NodeKind::View;
    if (node.kind == ir::NodeKind::WriteDma)
      writes.push_back(i);
    if (node.kind != ir::NodeKind::ReadDma)
      continue;
    const ir::HbmTensorLayout layout = ir::hbmLayoutOf(node.outputs[0].type);
    sim::MemoryRead r;
    r.node = i;
    r.words = layout.wordsStreamed();
    r.schedule = model::readDmaWordSchedule(layout.burstLengths(), memory, draws);
    reads.push_back(r);
  }
  // The RTL instantiates at least a two-entry FIFO (a register slice) on every stream.
  std::vector<int64_t> depths;
  for (ir::StreamId s : streams)
    depths.push_back(std::max<int64_t>(2, df.stream(s).fifoDepth));
  sim::addMemoryStages(graph, depths, reads, model::cadenceOf(memory.wordsPerCycle()));
  const sim::TimingSimResult r = sim::simulateDataflowTiming(graph, depths);
  if (r.deadlock)
    return {std::nullopt, r.deadlockReport};
  if (!draws)
    return {kKernelStartCycles + r.makespan + (writes.empty() ? 0 : writeTailCycles(memory)), {}};
  // ap_done waits for every write's response, each drawn.
  int64_t done = r.makespan;
  for (size_t w : writes)
    done = std::max(done, r.doneCycle[w] + 1 + kWritePipelineCycles + draws->writeResponse());
  return {kKernelStartCycles + done, {}};
}

} // namespace

KernelCycles predictKernelCycles(const ir::DataflowGraph &df, const model::MemoryTiming &memory) {
  if (memory.readLatencyJitter <= 0 && memory.readyProbability >= 1)
    return kernelCyclesOnce(df, memory, nullptr);
  // A random memory: the mean over runs under drawn delays. The kernel waits for the latest of
  // its inputs, so the mean of its cycles exceeds its cycles under the mean delays.
  int64_t sum = 0;
  for (int d = 0; d < kMemoryDraws; ++d) {
    model::MemoryDraws draws(memory, kFirstDrawSeed + uint64_t(d));
    const KernelCycles k = kernelCyclesOnce(df, memory, &draws);
    if (!k.cycles)
      return k;
    sum += *k.cycles;
  }
  return {static_cast<int64_t>(std::llround(double(sum) / kMemoryDraws)), {}};
}

} // namespace st::passes
