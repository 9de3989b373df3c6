// FIFO sizing by linear program (DESIGN.md §5, docs/fifo-sizing.md): chooses a start offset per
// node of a TimingGraph so that, with every node running its ideal token curves from its
// offset, no consumer waits for data and the makespan is the shortest the graph allows; among
// those schedules CBC picks the one with the fewest FIFO bits. Each edge's depth is then the most
// tokens it holds under that schedule. Modes:
//  - lp (default): as above, on the nodes' own timing;
//  - conservative: every node first slowed so that its stream period (outputTokens x II) equals
//    the slowest node's, then as lp (smaller FIFOs on rate-mismatched edges, more latency);
//  - deep: every FIFO `deepDepth` deep, offsets as soon as possible (the yardstick).
// Op-generic: it reads only model::KernelTiming, token counts and token widths.
#pragma once

#include "passes/dataflow_timing_sim.h"

#include <cstdint>
#include <string>
#include <vector>

namespace st::passes {

enum class FifoSizingMode { Lp, Conservative, Deep };

/// "lp", "conservative", "deep"; anything else is an st::Error naming `field`.
FifoSizingMode parseFifoSizingMode(const std::string &text, const std::string &field = "mode");
const char *fifoSizingModeName(FifoSizingMode mode);

struct FifoSizingOptions {
  FifoSizingMode mode = FifoSizingMode::Lp;
  /// Depth of every FIFO in `deep` mode.
  int64_t deepDepth = 8192;
  /// If > 0, a cycle budget: a graph whose shortest schedule is longer is an st::Error naming
  /// the node that ends last.
  int64_t maxMakespan = 0;
};

struct EdgeFifo {
  std::string edge;
  int64_t depth = 2;    ///< >= 2
  int64_t minDelay = 0; ///< least dst start - src start with which dst never waits for data
  int64_t delay = 0;    ///< chosen dst start - src start
  int64_t bits = 0;     ///< depth x tokenBits
};

struct FifoSizingResult {
  FifoSizingMode mode = FifoSizingMode::Lp;
  std::vector<EdgeFifo> edges;    ///< in graph edge order
  std::vector<int64_t> nodeStart; ///< chosen start offset per node (cycle of its first input)
  int64_t predictedMakespan = 0;  ///< cycles from the first source start to the last event
  int64_t totalFifoBits = 0;
  double solveSeconds = 0; ///< CBC's wall time (0 in deep mode)
  /// The timing the depths were sized for: the input graph, or in conservative mode the slowed
  /// one. Simulate this graph to check the depths.
  TimingGraph sizedGraph;

  std::vector<int64_t> depths() const;
};

/// The conservative mode's graph: every node's II raised to ceil(P / outputTokens), P = the
/// largest outputTokens x II of any node, and L adjusted (L' = L + (outputTokens - 1)(II' - II)).
TimingGraph equalizeStreamPeriods(const TimingGraph &graph);

/// Sizes every FIFO of `graph`. Throws st::Error naming the node or edge when the graph is
/// malformed, a node's timing is inconsistent, the budget cannot be met, or the solver fails.
FifoSizingResult sizeFifos(const TimingGraph &graph, const FifoSizingOptions &options = {});

/// Most tokens a FIFO holds when the producer pushes token i in cycle push[i] and the consumer
/// pops token j in cycle pop[j] (snapshot semantics: push i needs fewer than depth tokens at the
/// start of its cycle). The result is the least depth that never blocks the producer.
int64_t tokensInFlight(const std::vector<int64_t> &push, int64_t pushOffset,
                       const std::vector<int64_t> &pop, int64_t popOffset);

} // namespace st::passes
