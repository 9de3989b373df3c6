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
#include <memory>
#include <mutex>

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

/// One node's events: the cycle of every output and input token, of its first input and of its
/// last event.
struct NodeEvents {
  std::vector<int64_t> emit;
  std::vector<std::vector<int64_t>> consume;
  int64_t start = 0;
  int64_t done = 0;
};

/// Every node's events, shared between schedules: a pacing trial differs from the best schedule
/// in one node, so it shares the other nodes' events (a full-size GEMV has millions) rather than
/// copying them.
struct Schedule {
  std::vector<std::shared_ptr<const NodeEvents>> nodes;
  const std::vector<int64_t> &emit(size_t v) const { return nodes[v]->emit; }
  const std::vector<int64_t> &consume(size_t v, size_t p) const { return nodes[v]->consume[p]; }
  const std::vector<std::vector<int64_t>> &consume(size_t v) const { return nodes[v]->consume; }
  int64_t start(size_t v) const { return nodes[v]->start; }
  int64_t done(size_t v) const { return nodes[v]->done; }
};

/// Does the node's own rule set (dataflow_timing_sim.h) hold for these event cycles? Data,
/// space and other nodes are not its concern here.
bool obeysNodeRules(const model::KernelTiming &t, const sim::KernelCurves &c,
                    const std::vector<int64_t> &emit,
                    const std::vector<std::vector<int64_t>> &consume) {
  for (size_t k = 0; k < emit.size(); ++k) {
    if (k > 0 && emit[k] < emit[k - 1] + t.ii)
      return false;
    for (size_t p = 0; p < consume.size(); ++p) {
      const int64_t n = c.needed[p][k];
      if (n > 0 && emit[k] < consume[p][size_t(n - 1)] + c.lambda)
        return false;
    }
  }
  int64_t firstInput = std::numeric_limits<int64_t>::max();
  for (size_t p = 0; p < consume.size(); ++p) {
    if (consume[p].empty())
      continue;
    firstInput = std::min(firstInput, consume[p][0]);
    for (size_t j = 1; j < consume[p].size(); ++j)
      if (consume[p][j] < consume[p][j - 1] + 1)
        return false;
    // Token j may be popped once `emitted` outputs are out with j < the window's limit.
    int64_t emitted = 0;
    for (size_t j = 0; j < consume[p].size(); ++j) {
      auto limit = [&](int64_t e) {
        const int64_t last = e + c.window - 1;
        return (t.outputTokens == 0 || last >= t.outputTokens) ? t.inputTokens[p]
                                                               : c.needed[p][size_t(last)];
      };
      while (int64_t(j) >= limit(emitted))
        ++emitted;
      if (emitted > 0 && consume[p][j] < emit[size_t(emitted - 1)] + 1)
        return false;
    }
  }
  // Input order: when token j of port p is popped, every other port q has popped (in earlier
  // cycles) its tokens of lower rank. Both counts only grow with j: two pointers per pair.
  for (size_t p = 0; p < consume.size(); ++p)
    for (size_t q = 0; q < consume.size(); ++q) {
      if (q == p)
        continue;
      const std::vector<int64_t> &ranks = c.inputOrder[q];
      size_t before = 0, taken = 0;
      for (size_t j = 0; j < consume[p].size(); ++j) {
        while (before < ranks.size() && ranks[before] < c.inputOrder[p][j])
          ++before;
        while (taken < consume[q].size() && consume[q][taken] < consume[p][j])
          ++taken;
        if (taken < before)
          return false;
      }
    }
  if (!emit.empty()) {
    const int64_t origin = consume.empty() ? 0 : firstInput;
    if (emit[0] < origin + t.firstOutputDelay)
      return false;
  }
  return true;
}

/// Moves node v's events in `s` as late as its consumers' pops in `s` allow, never earlier than
/// they are. A node without consumers, or whose moved events would break its own rules, keeps
/// its events (returns false).
bool paceNode(const sim::TimingGraph &g, const sim::KernelCurves &curve, size_t v, Schedule &s) {
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  const model::KernelTiming &t = g.nodes[v].timing;
  std::vector<const sim::TimingEdge *> outs;
  for (const sim::TimingEdge &edge : g.edges)
    if (edge.src == v)
      outs.push_back(&edge);
  if (outs.empty())
    return false;
  const NodeEvents &was = *s.nodes[v];
  auto paced = std::make_shared<NodeEvents>();
  std::vector<int64_t> &emit = paced->emit;
  emit = was.emit;
  for (size_t k = emit.size(); k-- > 0;) {
    int64_t latest = k + 1 < emit.size() ? emit[k + 1] - t.ii : kNone;
    for (const sim::TimingEdge *edge : outs)
      latest = std::min(latest, s.consume(edge->dst, edge->dstPort)[k] - 1);
    emit[k] = std::max(was.emit[k], latest);
  }
  std::vector<std::vector<int64_t>> &consume = paced->consume;
  consume = was.consume;
  for (size_t p = 0; p < consume.size(); ++p) {
    const std::vector<int64_t> &need = curve.needed[p];
    int64_t k = int64_t(emit.size()) - 1; // the first output needing token j, walking j down
    for (size_t j = consume[p].size(); j-- > 0;) {
      while (k > 0 && need[size_t(k - 1)] > int64_t(j))
        --k;
      int64_t latest = j + 1 < consume[p].size() ? consume[p][j + 1] - 1 : kNone;
      if (k >= 0 && !emit.empty() && need[size_t(k)] > int64_t(j))
        latest = std::min(latest, emit[size_t(k)] - curve.lambda);
      else if (latest == kNone)
        latest = was.consume[p][j];
      consume[p][j] = std::max(was.consume[p][j], latest);
    }
  }
  if (emit == was.emit && consume == was.consume)
    return false;
  if (!obeysNodeRules(t, curve, emit, consume))
    return false;
  int64_t first = kNone, last = emit.empty() ? 0 : emit.back();
  for (const std::vector<int64_t> &port : consume)
    if (!port.empty()) {
      first = std::min(first, port.front());
      last = std::max(last, port.back());
    }
  paced->start = first == kNone ? emit.front() - t.firstOutputDelay : first;
  paced->done = last;
  s.nodes[v] = std::move(paced);
  return true;
}

/// `s` with each node's events moved by shift[node] (nodes that do not move keep their events).
Schedule shifted(const Schedule &s, const std::vector<int64_t> &shift) {
  Schedule moved = s;
  for (size_t v = 0; v < s.nodes.size(); ++v) {
    if (shift[v] == 0)
      continue;
    auto events = std::make_shared<NodeEvents>(*s.nodes[v]);
    for (int64_t &c : events->emit)
      c += shift[v];
    for (std::vector<int64_t> &port : events->consume)
      for (int64_t &c : port)
        c += shift[v];
    events->start += shift[v];
    events->done += shift[v];
    moved.nodes[v] = std::move(events);
  }
  return moved;
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

InFlightCurve::InFlightCurve(const std::vector<int64_t> &push, const std::vector<int64_t> &pop)
    : push_(push), pop_(pop) {
  for (size_t i = 0; i < push.size(); ++i)
    if (i + 1 == push.size() || push[i + 1] != push[i] + 1)
      runEnds_.push_back(i);
}

int64_t InFlightCurve::at(int64_t popOffset) const {
  int64_t most = 0;
  for (size_t i : runEnds_) {
    // Pops in cycles before push i's: pop[j] + popOffset < push[i].
    const int64_t popped =
        std::lower_bound(pop_.begin(), pop_.end(), push_[i] - popOffset) - pop_.begin();
    most = std::max(most, int64_t(i) - popped + 1);
  }
  return most;
}

sim::TimingGraph equalizeStreamPeriods(const sim::TimingGraph &graph) {
  int64_t slowest = 1;
  for (const sim::TimingNode &n : graph.nodes)
    slowest = std::max(slowest, n.timing.outputTokens * n.timing.ii);
  sim::TimingGraph slowed = graph;
  for (sim::TimingNode &n : slowed.nodes) {
    model::KernelTiming &t = n.timing;
    if (t.outputTokens < 1)
      continue;
    const int64_t ii = std::max(t.ii, (slowest + t.outputTokens - 1) / t.outputTokens);
    t.totalLatency += (t.outputTokens - 1) * (ii - t.ii);
    t.ii = ii;
  }
  return slowed;
}

namespace {

/// One choice of curves (a Schedule), the shifts the LP gives them and the FIFO depths that
/// follow.
struct Candidate {
  Schedule curves;
  std::vector<int64_t> shift, lowestShift, minShift;
  std::vector<int64_t> depth;
  int64_t bits = 0;
  bool feasible = true;
};

/// The FIFO-sizing LP of one graph: sizes the FIFOs for any choice of curves that obeys the
/// nodes' rules and never precedes the as-soon-as-possible run `asap`, within `horizon` cycles.
class ScheduleSolver {
public:
  ScheduleSolver(const sim::TimingGraph &g, const FifoSizingOptions &options, const Schedule &asap,
                 int64_t horizon, size_t lastNode, double &solveSeconds)
      : g_(g), options_(options), asap_(asap), horizon_(horizon), lastNode_(lastNode),
        solveSeconds_(solveSeconds) {}

  /// The LP picks each curve's shift, the depths follow. An infeasible program is a candidate
  /// that is not `feasible`, or an st::Error when `mustSucceed`.
  Candidate solve(Schedule curves, bool mustSucceed) const;

private:
  /// How far back towards the run each node's curve may move (never before it).
  std::vector<int64_t> lowestShifts(const Schedule &s) const;
  /// The edge's rows: its delay at least minShift, its depth above the lower convex hull of its
  /// tokens-in-flight curve.
  void addEdgeRows(const Candidate &c, size_t e, const std::vector<double> &lower,
                   const std::vector<double> &upper, CoinPackedMatrix &rows,
                   std::vector<double> &rowLower, std::vector<double> &rowUpper) const;
  /// Solves the LP for the shifts; false when CBC finds no feasible schedule.
  bool solveShifts(Candidate &c) const;
  /// Checks the shifts exactly and sizes each FIFO from them.
  void sizeFrom(Candidate &c) const;

  const sim::TimingGraph &g_;
  const FifoSizingOptions &options_;
  const Schedule &asap_;
  int64_t horizon_;
  size_t lastNode_;
  double &solveSeconds_;
};

Candidate ScheduleSolver::solve(Schedule curves, bool mustSucceed) const {
  const size_t nodeCount = g_.nodes.size(), edgeCount = g_.edges.size();
  Candidate c;
  c.curves = std::move(curves);
  const Schedule &s = c.curves;
  // The difference constraints shift[dst] - shift[src] >= minShift[e]: every token is pushed
  // at least a cycle before it is popped.
  c.minShift.resize(edgeCount);
  for (size_t e = 0; e < edgeCount; ++e)
    c.minShift[e] =
        minimumDelay(s.emit(g_.edges[e].src), s.consume(g_.edges[e].dst, g_.edges[e].dstPort));
  c.lowestShift = lowestShifts(s);
  c.shift.assign(nodeCount, 0);
  if (options_.mode != FifoSizingMode::Deep && edgeCount > 0 && !solveShifts(c)) {
    c.feasible = false; // only a mix of run and paced curves can be; the run's never is
    if (!mustSucceed)
      return c;
    throw Error("node '" + g_.nodes[lastNode_].name + "'", "FIFO-sizing LP",
                "a feasible schedule within " + std::to_string(horizon_) +
                    " cycles, but CBC found none");
  }
  sizeFrom(c);
  return c;
}

std::vector<int64_t> ScheduleSolver::lowestShifts(const Schedule &s) const {
  // A curve may move back towards the run, never before it: every event stays at or after
  // its as-soon-as-possible cycle, so a source never emits before its D and II allow.
  std::vector<int64_t> lowest(g_.nodes.size(), 0);
  for (size_t v = 0; v < g_.nodes.size(); ++v) {
    if (s.nodes[v] == asap_.nodes[v]) // the run's own events
      continue;
    int64_t back = std::numeric_limits<int64_t>::min();
    for (size_t k = 0; k < s.emit(v).size(); ++k)
      back = std::max(back, asap_.emit(v)[k] - s.emit(v)[k]);
    for (size_t p = 0; p < s.consume(v).size(); ++p)
      for (size_t j = 0; j < s.consume(v, p).size(); ++j)
        back = std::max(back, asap_.consume(v, p)[j] - s.consume(v, p)[j]);
    lowest[v] = back == std::numeric_limits<int64_t>::min() ? 0 : back;
  }
  return lowest;
}

void ScheduleSolver::addEdgeRows(const Candidate &c, size_t e, const std::vector<double> &lower,
                                 const std::vector<double> &upper, CoinPackedMatrix &rows,
                                 std::vector<double> &rowLower,
                                 std::vector<double> &rowUpper) const {
  const Schedule &s = c.curves;
  const sim::TimingEdge &edge = g_.edges[e];
  const int dst = int(edge.dst), src = int(edge.src), depthColumn = int(g_.nodes.size() + e);
  CoinPackedVector row;
  row.insert(dst, 1.0);
  row.insert(src, -1.0);
  rows.appendRow(row);
  rowLower.push_back(double(c.minShift[e]));
  rowUpper.push_back(COIN_DBL_MAX);

  const InFlightCurve curve(s.emit(edge.src), s.consume(edge.dst, edge.dstPort));
  auto inFlight = [&](int64_t d) { return curve.at(d); };
  // Sample only up to where f saturates (all tokens in flight): beyond, f is flat and a
  // convex hull through the flat part would call any delay almost free; the last segment
  // extended instead over-estimates there, which steers the LP away.
  const int64_t dLow = c.minShift[e];
  int64_t dHigh = std::max(dLow, int64_t(upper[edge.dst] - lower[edge.src]));
  const int64_t most = inFlight(dHigh);
  for (int64_t lo = dLow; lo < dHigh;) {
    const int64_t mid = lo + (dHigh - lo) / 2;
    if (inFlight(mid) >= most)
      dHigh = mid;
    else
      lo = mid + 1;
  }
  std::vector<int64_t> samples;
  for (int64_t d = dLow; d <= std::min(dHigh, dLow + 48); ++d)
    samples.push_back(d);
  for (int k = 1; k <= 32; ++k)
    samples.push_back(dLow + int64_t(double(dHigh - dLow) * (k / 32.0) * (k / 32.0)));
  std::sort(samples.begin(), samples.end());
  samples.erase(std::unique(samples.begin(), samples.end()), samples.end());
  std::vector<std::pair<int64_t, int64_t>> hull; // (d, f(d)), lower convex hull
  for (int64_t d : samples) {
    const std::pair<int64_t, int64_t> point{d, inFlight(d)};
    while (hull.size() >= 2) {
      const auto &a = hull[hull.size() - 2], &b = hull.back();
      const mpz_class cross =
          mpz_class((long)(b.first - a.first)) * mpz_class((long)(point.second - a.second)) -
          mpz_class((long)(b.second - a.second)) * mpz_class((long)(point.first - a.first));
      if (cross > 0)
        break;
      hull.pop_back(); // b lies on or above the segment a..point
    }
    hull.push_back(point);
  }
  // depth >= f(a) + (f(b) - f(a)) / (b - a) x (d - a), times (b - a) > 0.
  auto addSegment = [&](std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b) {
    const int64_t run = b.first - a.first, rise = b.second - a.second;
    CoinPackedVector segment;
    segment.insert(depthColumn, double(run));
    if (rise != 0) {
      segment.insert(dst, double(-rise));
      segment.insert(src, double(rise));
    }
    rows.appendRow(segment);
    rowLower.push_back(double(a.second * run - rise * a.first));
    rowUpper.push_back(COIN_DBL_MAX);
  };
  if (hull.size() == 1)
    addSegment(hull[0], {hull[0].first + 1, hull[0].second});
  for (size_t h = 1; h < hull.size(); ++h)
    addSegment(hull[h - 1], hull[h]);
}

bool ScheduleSolver::solveShifts(Candidate &c) const {
  // Columns: shift[v] (integer) per node, then depth[e] per edge. Objective: the summed
  // FIFO bits, sum of tokenBits x depth[e]. depth[e] lies above the lower convex hull of the
  // edge's exact tokens-in-flight curve f_e(d), d = shift[dst] - shift[src], sampled over
  // the delays the bounds allow; one row per hull segment, with integer coefficients
  // (hull built with exact GMP cross products). The depths are recomputed exactly after.
  const size_t nodeCount = g_.nodes.size(), edgeCount = g_.edges.size();
  const size_t columns = nodeCount + edgeCount;
  std::vector<double> objective(columns, 0), lower(columns, 0), upper(columns, COIN_DBL_MAX);
  for (size_t v = 0; v < nodeCount; ++v) {
    lower[v] = double(c.lowestShift[v]);
    upper[v] = double(horizon_ - 1 - c.curves.done(v));
  }
  CoinPackedMatrix rows(false, 0, 0);
  rows.setDimensions(0, int(columns));
  std::vector<double> rowLower, rowUpper;
  for (size_t e = 0; e < edgeCount; ++e) {
    objective[nodeCount + e] = double(g_.edges[e].tokenBits);
    addEdgeRows(c, e, lower, upper, rows, rowLower, rowUpper);
  }
  // CBC and CLP keep some state of their own (message handlers, statics): one solve at a
  // time in the process, whichever thread sizes which stage.
  static std::mutex solverMutex;
  const std::lock_guard<std::mutex> solverLock(solverMutex);
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
  solveSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (model.isProvenInfeasible() || model.bestSolution() == nullptr)
    return false;
  if (model.isContinuousUnbounded())
    throw Error(kWhere, "FIFO-sizing LP", "a bounded program, but CBC reports it unbounded");
  const double *solution = model.bestSolution();
  for (size_t v = 0; v < nodeCount; ++v)
    c.shift[v] = std::llround(solution[v]);
  return true;
}

void ScheduleSolver::sizeFrom(Candidate &c) const {
  const Schedule &s = c.curves;
  for (size_t v = 0; v < g_.nodes.size(); ++v)
    if (c.shift[v] < c.lowestShift[v] || c.shift[v] + s.done(v) + 1 > horizon_)
      throw Error("node '" + g_.nodes[v].name + "'", "start offset",
                  "a shift in " + std::to_string(c.lowestShift[v]) + " .. " +
                      std::to_string(horizon_ - 1 - s.done(v)) + " from the solver, got " +
                      std::to_string(c.shift[v]));
  for (size_t e = 0; e < g_.edges.size(); ++e) {
    const sim::TimingEdge &edge = g_.edges[e];
    if (c.shift[edge.dst] - c.shift[edge.src] < c.minShift[e])
      throw Error("edge '" + edge.name + "'", "delay",
                  "a shift difference >= " + std::to_string(c.minShift[e]) +
                      " from the solver, got " +
                      std::to_string(c.shift[edge.dst] - c.shift[edge.src]));
    const int64_t depth =
        options_.mode == FifoSizingMode::Deep
            ? options_.deepDepth
            : std::max<int64_t>(2,
                                InFlightCurve(s.emit(edge.src), s.consume(edge.dst, edge.dstPort))
                                    .at(c.shift[edge.dst] - c.shift[edge.src]));
    c.depth.push_back(depth);
    c.bits += depth * edge.tokenBits;
  }
}

/// Paces nodes by their consumers, consumers first (see sizeFifos): each event of the node as
/// late as the consumers' pops in the best schedule so far allow, the LP re-solved, and the
/// pacing kept if the bits fall; passes repeat while one helps, at most kPacingPasses.
Candidate paceByConsumers(const sim::TimingGraph &g, const std::vector<sim::SharedCurves> &curves,
                          const std::vector<size_t> &order, const ScheduleSolver &solver,
                          Candidate best) {
  constexpr int kPacingPasses = 4;
  for (int pass = 0; pass < kPacingPasses; ++pass) {
    const int64_t before = best.bits;
    // The best schedule with its shifts applied, made again only when the best changes.
    Schedule bestShifted;
    for (size_t i = order.size(); i-- > 0;) {
      if (bestShifted.nodes.empty())
        bestShifted = shifted(best.curves, best.shift);
      Schedule trialCurves = bestShifted;
      if (!paceNode(g, *curves[order[i]], order[i], trialCurves))
        continue;
      Candidate trial = solver.solve(std::move(trialCurves), false);
      if (trial.feasible && trial.bits < best.bits) {
        best = std::move(trial);
        bestShifted.nodes.clear();
      }
    }
    if (best.bits == before)
      break;
  }
  return best;
}

} // namespace

FifoSizingResult sizeFifos(const sim::TimingGraph &input, const FifoSizingOptions &options) {
  FifoSizingResult result;
  result.mode = options.mode;
  result.sizedGraph =
      options.mode == FifoSizingMode::Conservative ? equalizeStreamPeriods(input) : input;
  const sim::TimingGraph &g = result.sizedGraph;
  const std::vector<sim::SharedCurves> curves = sim::deriveAllCurves(g);
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
  const sim::TimingSimResult run = sim::simulateDataflowTiming(g, curves, unbounded);
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

  const std::vector<size_t> order = sim::checkTimingGraph(g);
  Schedule asap;
  for (size_t v = 0; v < nodeCount; ++v) {
    auto events = std::make_shared<NodeEvents>();
    events->emit = run.emitCycle[v];
    events->consume = run.consumeCycle[v];
    events->start = run.startCycle[v];
    events->done = run.doneCycle[v];
    asap.nodes.push_back(std::move(events));
  }

  const ScheduleSolver solver(g, options, asap, horizon, lastNode, result.solveSeconds);
  Candidate best = solver.solve(asap, true);
  // Then pace nodes by their consumers (a producer that would run ahead of a consumer waiting
  // for other inputs, as weights ahead of a GEMV still reading x, or a fast kernel before a slow
  // one, then fills no FIFO, as back-pressure does in hardware at no cost). A paced curve obeys
  // the node's rules and never precedes the run, so every candidate is a valid schedule; pacing
  // a consumer can open room for its producer, hence the passes.
  if (options.mode != FifoSizingMode::Deep)
    best = paceByConsumers(g, curves, order, solver, std::move(best));

  const Schedule &s = best.curves;
  result.nodeStart.resize(nodeCount);
  for (size_t v = 0; v < nodeCount; ++v) {
    result.nodeStart[v] = s.start(v) + best.shift[v];
    result.predictedMakespan = std::max(result.predictedMakespan, best.shift[v] + s.done(v) + 1);
  }
  for (size_t e = 0; e < edgeCount; ++e) {
    const sim::TimingEdge &edge = g.edges[e];
    EdgeFifo fifo;
    fifo.edge = edge.name;
    fifo.minDelay = s.start(edge.dst) - s.start(edge.src) + best.minShift[e];
    fifo.delay = result.nodeStart[edge.dst] - result.nodeStart[edge.src];
    fifo.depth = best.depth[e];
    fifo.bits = fifo.depth * edge.tokenBits;
    result.totalFifoBits += fifo.bits;
    result.edges.push_back(fifo);
  }
  return result;
}

} // namespace st::passes
