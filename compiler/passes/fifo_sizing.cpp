// FIFO sizing by linear program, solved with CBC (see fifo_sizing.h and docs/fifo-sizing.md).
#include "passes/fifo_sizing.h"

#include "support/error.h"

#include <coin/CbcModel.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#include <gmpxx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace st::passes {

namespace {

const std::string kWhere = "FIFO sizing";

/// Least dst start - src start with which every token of the edge is in the FIFO at least one
/// cycle before the consumer, running its ideal curve, pops it.
int64_t minimumDelay(const std::vector<int64_t> &push, const std::vector<int64_t> &pop) {
  int64_t delay = std::numeric_limits<int64_t>::min();
  for (size_t j = 0; j < pop.size(); ++j)
    delay = std::max(delay, push[j] + 1 - pop[j]);
  return pop.empty() ? 0 : delay;
}

} // namespace

FifoSizingMode parseFifoSizingMode(const std::string &text, const std::string &field) {
  if (text == "lp")
    return FifoSizingMode::Lp;
  if (text == "conservative")
    return FifoSizingMode::Conservative;
  if (text == "deep")
    return FifoSizingMode::Deep;
  throw Error(kWhere, field, "one of lp, conservative, deep, got '" + text + "'");
}

const char *fifoSizingModeName(FifoSizingMode mode) {
  switch (mode) {
  case FifoSizingMode::Lp:
    return "lp";
  case FifoSizingMode::Conservative:
    return "conservative";
  case FifoSizingMode::Deep:
    return "deep";
  }
  return "?";
}

std::vector<int64_t> FifoSizingResult::depths() const {
  std::vector<int64_t> d;
  d.reserve(edges.size());
  for (const EdgeFifo &e : edges)
    d.push_back(e.depth);
  return d;
}

int64_t tokensInFlight(const std::vector<int64_t> &push, int64_t pushOffset,
                       const std::vector<int64_t> &pop, int64_t popOffset) {
  // Before push i the FIFO holds i - #{pops in earlier cycles}; push i needs that < depth.
  int64_t most = 0;
  size_t popped = 0;
  for (size_t i = 0; i < push.size(); ++i) {
    const int64_t cycle = push[i] + pushOffset;
    while (popped < pop.size() && pop[popped] + popOffset < cycle)
      ++popped;
    most = std::max(most, int64_t(i) - int64_t(popped) + 1);
  }
  return most;
}

TimingGraph equalizeStreamPeriods(const TimingGraph &graph) {
  int64_t slowest = 1;
  for (const TimingNode &n : graph.nodes)
    slowest = std::max(slowest, n.timing.outputTokens * n.timing.ii);
  TimingGraph slowed = graph;
  for (TimingNode &n : slowed.nodes) {
    model::KernelTiming &t = n.timing;
    if (t.outputTokens < 1)
      continue;
    const int64_t ii = std::max(t.ii, (slowest + t.outputTokens - 1) / t.outputTokens);
    t.totalLatency += (t.outputTokens - 1) * (ii - t.ii);
    t.ii = ii;
  }
  return slowed;
}

FifoSizingResult sizeFifos(const TimingGraph &input, const FifoSizingOptions &options) {
  FifoSizingResult result;
  result.mode = options.mode;
  result.sizedGraph =
      options.mode == FifoSizingMode::Conservative ? equalizeStreamPeriods(input) : input;
  const TimingGraph &g = result.sizedGraph;
  checkTimingGraph(g);
  const std::vector<KernelCurves> curves = deriveAllCurves(g);
  const size_t nodeCount = g.nodes.size(), edgeCount = g.edges.size();
  if (options.mode == FifoSizingMode::Deep && options.deepDepth < 2)
    throw Error(kWhere, "deepDepth", "a depth >= 2, got " + std::to_string(options.deepDepth));

  // The curves the schedule shifts: every node's events in the as-soon-as-possible run with
  // FIFOs that never fill. Each node's curve is thereby paced by its real inputs (a fast kernel
  // behind a slow one consumes at the slow one's pace) and the run's makespan is the shortest
  // any depths can give.
  std::vector<int64_t> unbounded(edgeCount);
  for (size_t e = 0; e < edgeCount; ++e)
    unbounded[e] = std::max<int64_t>(2, g.edges[e].tokens + 1);
  const TimingSimResult run = simulateDataflowTiming(g, curves, unbounded);
  if (run.deadlock)
    throw Error("node '" + run.blockedNode + "'", "inputs",
                "a graph that completes with unbounded FIFOs, got " + run.deadlockReport);
  const int64_t makespan = run.makespan;
  size_t lastNode = 0;
  for (size_t v = 0; v < nodeCount; ++v)
    if (run.doneCycle[v] > run.doneCycle[lastNode])
      lastNode = v;
  if (options.maxMakespan > 0 && makespan > options.maxMakespan)
    throw Error("node '" + g.nodes[lastNode].name + "'", "makespan",
                "a schedule within the budget of " + std::to_string(options.maxMakespan) +
                    " cycles, but the shortest one ends with this node at cycle " +
                    std::to_string(makespan));
  const int64_t horizon = options.maxMakespan > 0 ? options.maxMakespan : makespan;

  // Sources (read DMAs) are then paced by their consumers: each token as late as the consumers'
  // pops and the source's II allow (never earlier than in the run, so D still holds). A source
  // that would stream far ahead of a consumer waiting for other inputs (weights ahead of a GEMV
  // still reading x) thus fills no FIFO; back-pressure does the same in hardware at no cost.
  std::vector<std::vector<int64_t>> emitCycle = run.emitCycle;
  for (size_t v = 0; v < nodeCount; ++v) {
    if (!g.nodes[v].timing.inputTokens.empty() || emitCycle[v].empty())
      continue;
    std::vector<int64_t> &emit = emitCycle[v];
    int64_t later = std::numeric_limits<int64_t>::max();
    for (size_t i = emit.size(); i-- > 0;) {
      int64_t latest =
          later == std::numeric_limits<int64_t>::max() ? later : later - g.nodes[v].timing.ii;
      for (const TimingEdge &edge : g.edges)
        if (edge.src == v)
          latest = std::min(latest, run.consumeCycle[edge.dst][edge.dstPort][i] - 1);
      if (latest == std::numeric_limits<int64_t>::max())
        latest = emit[i]; // a source feeding nothing
      emit[i] = std::max(emit[i], latest);
      later = emit[i];
    }
  }

  // The difference constraints shift[dst] - shift[src] >= minShift[e] (<= 0: the unbounded run
  // itself satisfies them): every token is pushed at least a cycle before it is popped.
  std::vector<int64_t> minShift(edgeCount);
  for (size_t e = 0; e < edgeCount; ++e) {
    const TimingEdge &edge = g.edges[e];
    minShift[e] = minimumDelay(emitCycle[edge.src], run.consumeCycle[edge.dst][edge.dstPort]);
  }
  std::vector<int64_t> doneCycle = run.doneCycle;
  std::vector<int64_t> start(nodeCount, 0); // shift of each node's unbounded-run curve
  if (options.mode != FifoSizingMode::Deep && edgeCount > 0) {
    // Objective: sum over edges of tokenBits / II(src) x (start[dst] - start[src]), the slope of
    // the edge's FIFO bits in its delay. Scaled exactly (GMP) to integers by the LCM of the IIs.
    mpz_class lcm = 1;
    for (const TimingEdge &edge : g.edges)
      mpz_lcm_ui(lcm.get_mpz_t(), lcm.get_mpz_t(), (unsigned long)g.nodes[edge.src].timing.ii);
    std::vector<mpz_class> weight(nodeCount, 0);
    for (const TimingEdge &edge : g.edges) {
      const mpz_class coefficient =
          mpz_class(lcm / (unsigned long)g.nodes[edge.src].timing.ii) * (long)edge.tokenBits;
      weight[edge.dst] += coefficient;
      weight[edge.src] -= coefficient;
    }
    mpz_class largest = 1;
    for (const mpz_class &w : weight)
      largest = std::max<mpz_class>(largest, abs(w));
    // Keep coefficients exact in a double; beyond 2^52 scale down (a rational made coarse).
    const double scale = largest > mpz_class(1) << 52 ? std::ldexp(1.0, 52) / largest.get_d() : 1.0;

    std::vector<double> objective(nodeCount), lower(nodeCount, 0), upper(nodeCount);
    for (size_t v = 0; v < nodeCount; ++v) {
      objective[v] = weight[v].get_d() * scale;
      upper[v] = double(horizon - 1 - doneCycle[v]);
    }
    CoinPackedMatrix rows(false, 0, 0);
    rows.setDimensions(0, int(nodeCount));
    std::vector<double> rowLower, rowUpper;
    for (size_t e = 0; e < edgeCount; ++e) {
      CoinPackedVector row;
      row.insert(int(g.edges[e].dst), 1.0);
      row.insert(int(g.edges[e].src), -1.0);
      rows.appendRow(row);
      rowLower.push_back(double(minShift[e]));
      rowUpper.push_back(COIN_DBL_MAX);
    }
    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(rows, lower.data(), upper.data(), objective.data(), rowLower.data(),
                       rowUpper.data());
    for (size_t v = 0; v < nodeCount; ++v)
      solver.setInteger(int(v));
    const auto began = std::chrono::steady_clock::now();
    CbcModel model(solver);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    model.branchAndBound();
    result.solveSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (model.isProvenInfeasible() || model.bestSolution() == nullptr)
      throw Error("node '" + g.nodes[lastNode].name + "'", "FIFO-sizing LP",
                  "a feasible schedule within " + std::to_string(horizon) +
                      " cycles, but CBC found none");
    if (model.isContinuousUnbounded())
      throw Error(kWhere, "FIFO-sizing LP", "a bounded program, but CBC reports it unbounded");
    const double *solution = model.bestSolution();
    for (size_t v = 0; v < nodeCount; ++v)
      start[v] = std::llround(solution[v]);
  }

  // Check the schedule exactly, then size each FIFO from it.
  result.nodeStart.resize(nodeCount);
  result.predictedMakespan = 0;
  for (size_t v = 0; v < nodeCount; ++v) {
    if (start[v] < 0 || start[v] + doneCycle[v] + 1 > horizon)
      throw Error("node '" + g.nodes[v].name + "'", "start offset",
                  "a shift in 0 .. " + std::to_string(horizon - 1 - doneCycle[v]) +
                      " from the solver, got " + std::to_string(start[v]));
    result.nodeStart[v] = run.startCycle[v] + start[v];
    result.predictedMakespan = std::max(result.predictedMakespan, start[v] + doneCycle[v] + 1);
  }
  for (size_t e = 0; e < edgeCount; ++e) {
    const TimingEdge &edge = g.edges[e];
    EdgeFifo fifo;
    fifo.edge = edge.name;
    const int64_t startGap = run.startCycle[edge.dst] - run.startCycle[edge.src];
    fifo.minDelay = startGap + minShift[e];
    fifo.delay = result.nodeStart[edge.dst] - result.nodeStart[edge.src];
    if (fifo.delay < fifo.minDelay)
      throw Error("edge '" + edge.name + "'", "delay",
                  "a delay >= " + std::to_string(fifo.minDelay) + " from the solver, got " +
                      std::to_string(fifo.delay));
    if (options.mode == FifoSizingMode::Deep)
      fifo.depth = options.deepDepth;
    else
      fifo.depth = std::max<int64_t>(2, tokensInFlight(emitCycle[edge.src], start[edge.src],
                                                       run.consumeCycle[edge.dst][edge.dstPort],
                                                       start[edge.dst]));
    fifo.bits = fifo.depth * edge.tokenBits;
    result.totalFifoBits += fifo.bits;
    result.edges.push_back(fifo);
  }
  return result;
}

} // namespace st::passes
