// FIFO sizing by linear program (docs/fifo-sizing.md). The schedule: every node
// of a sim::TimingGraph runs a token curve (its events in the as-soon-as-possible run with FIFOs
// that never fill, optionally paced as late as its consumers allow) shifted by a start offset; the
// offsets are the LP's integer variables (CBC). Constraints: every token is pushed at least a
// cycle before it is popped, no event precedes the unbounded run, and the makespan is the
// unbounded run's, the shortest any depths give. Objective: the summed FIFO bits, each edge's
// depth above the convex hull of its exact tokens-in-flight curve. Each edge's depth is then the
// most tokens it holds under the chosen schedule. Because the schedule obeys every rule of the
// timing model, the simulated run with these depths never deadlocks and never ends later.
// Modes:
//  - lp (default): as above, on the nodes' own timing;
//  - conservative: every node first slowed so that its stream period (outputTokens x II) equals
//    the slowest node's, then as lp (fewer bits on rate-mismatched edges, more latency);
//  - deep: every FIFO `deepDepth` deep, offsets of the unbounded run (the yardstick).
// Op-generic: it reads only model::KernelTiming, token counts and token widths.
#pragma once

#include "sim/dataflow_timing_sim.h"

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
  sim::TimingGraph sizedGraph;

  std::vector<int64_t> depths() const;
};

/// The conservative mode's graph: every node's II raised to ceil(P / outputTokens), P = the
/// largest outputTokens x II of any node, and L adjusted (L' = L + (outputTokens - 1)(II' - II)).
sim::TimingGraph equalizeStreamPeriods(const sim::TimingGraph &graph);

/// Sizes every FIFO of `graph`. Throws st::Error naming the node or edge when the graph is
/// malformed, a node's timing is inconsistent, the budget cannot be met, or the solver fails.
FifoSizingResult sizeFifos(const sim::TimingGraph &graph, const FifoSizingOptions &options = {});

/// Most tokens a FIFO holds when the producer pushes token i in cycle push[i] and the consumer
/// pops token j in cycle pop[j] (snapshot semantics: push i needs fewer than depth tokens at the
/// start of its cycle). The result is the least depth that never blocks the producer.
int64_t tokensInFlight(const std::vector<int64_t> &push, int64_t pushOffset,
                       const std::vector<int64_t> &pop, int64_t popOffset);

/// tokensInFlight of one edge at many delays (the LP samples each edge's curve ~100 times).
/// Within a run of pushes in consecutive cycles the FIFO's fill never falls (at most one pop a
/// cycle), so only each run's last push can set the maximum: an evaluation costs a binary
/// search per run, not a pass over every token. The vectors must outlive it.
class InFlightCurve {
public:
  InFlightCurve(const std::vector<int64_t> &push, const std::vector<int64_t> &pop);
  /// tokensInFlight(push, 0, pop, popOffset).
  int64_t at(int64_t popOffset) const;

private:
  const std::vector<int64_t> &push_;
  const std::vector<int64_t> &pop_;
  std::vector<size_t> runEnds_;
};

} // namespace st::passes
