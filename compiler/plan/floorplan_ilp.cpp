// Floorplan ILP (see floorplan_ilp.h).
#include "plan/floorplan_ilp.h"

#include <coin/CbcModel.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>

#include "support/error.h"

namespace st::plan {

namespace {

constexpr std::array<const char *, 5> kResourceNames = {"LUT", "FF", "DSP", "BRAM36", "URAM"};

double resourceOf(const model::ResourceEstimate &e, size_t r) {
  switch (r) {
  case 0:
    return double(e.lut);
  case 1:
    return double(e.ff);
  case 2:
    return double(e.dsp);
  case 3:
    return e.bram36;
  default:
    return double(e.uram);
  }
}

/// "SLR0 270816, SLR1 255024, SLR2 276528" for resource r.
std::string budgetsOf(const FloorplanProblem &p, size_t r) {
  std::ostringstream os;
  for (size_t s = 0; s < p.slrs.size(); ++s)
    os << (s ? ", " : "") << p.slrs[s].name << " " << resourceOf(p.slrs[s].budget, r);
  return os.str();
}

/// The checks that name one resource before the program runs: the design's total against the
/// sum of the budgets, each SLR's pinned items against its budget, each item against the largest
/// budget.
void checkResources(const FloorplanProblem &p) {
  for (size_t r = 0; r < kResourceNames.size(); ++r) {
    double total = 0, budgets = 0, largest = 0;
    std::vector<double> pinned(p.slrs.size(), 0);
    for (const auto &it : p.items) {
      total += resourceOf(it.resources, r);
      if (it.pinned >= 0)
        pinned.at(size_t(it.pinned)) += resourceOf(it.resources, r);
    }
    for (const auto &s : p.slrs) {
      budgets += resourceOf(s.budget, r);
      largest = std::max(largest, resourceOf(s.budget, r));
    }
    const std::string name = kResourceNames[r];
    if (total > budgets + 1e-6)
      throw Error(p.where, "floorplan " + name,
                  "a design within the SLR budgets (" + budgetsOf(p, r) + "; " +
                      std::to_string(std::lround(budgets)) + " in all), got " +
                      std::to_string(std::lround(total)) + " " + name);
    for (size_t s = 0; s < p.slrs.size(); ++s)
      if (pinned[s] > resourceOf(p.slrs[s].budget, r) + 1e-6)
        throw Error(p.where, "floorplan " + name + " of " + p.slrs[s].name,
                    "the logic pinned there (AXI masters wired to HBM) within its budget (" +
                        budgetsOf(p, r) + "), got " + std::to_string(std::lround(pinned[s])));
    for (const auto &it : p.items)
      if (resourceOf(it.resources, r) > largest + 1e-6)
        throw Error(p.where, "floorplan " + name + " of '" + it.name + "'",
                    "an item within one SLR's budget (" + budgetsOf(p, r) + "), got " +
                        std::to_string(std::lround(resourceOf(it.resources, r))));
  }
}

/// The resource the design fills most, for the error of a program without a solution.
std::string tightestResource(const FloorplanProblem &p) {
  size_t best = 0;
  double bestRatio = -1;
  for (size_t r = 0; r < kResourceNames.size(); ++r) {
    double total = 0, budgets = 0;
    for (const auto &it : p.items)
      total += resourceOf(it.resources, r);
    for (const auto &s : p.slrs)
      budgets += resourceOf(s.budget, r);
    const double ratio = budgets > 0 ? total / budgets : (total > 0 ? 1e9 : 0);
    if (ratio > bestRatio) {
      bestRatio = ratio;
      best = r;
    }
  }
  std::ostringstream os;
  os << kResourceNames[best] << " (" << std::lround(bestRatio * 100) << " % of the SLR budgets "
     << budgetsOf(p, best) << ")";
  return os.str();
}

/// Which limits leave no assignment: the SLR budgets alone (the tightest resource), or the
/// SLL limits (then the crossing bits the budgets force, solved without the limits).
std::string whyNoneFits(const FloorplanProblem &p) {
  FloorplanProblem relaxed = p;
  bool limited = false;
  for (int64_t &b : relaxed.boundaryBits) {
    limited = limited || b < std::numeric_limits<int32_t>::max();
    b = std::numeric_limits<int32_t>::max();
  }
  std::optional<FloorplanSolution> without;
  if (limited) {
    try {
      without = solveFloorplan(relaxed);
    } catch (const Error &) {
    }
  }
  std::ostringstream os;
  if (!without) {
    os << "The SLR budgets alone admit none; tightest resource: " << tightestResource(p)
       << ". Raise --slr-budget or shrink the design";
    return os.str();
  }
  os << "The SLR budgets admit assignments, the SLL limits none: within the budgets the fewest "
        "crossing bits need";
  for (size_t b = 0; b < p.boundaryBits.size(); ++b)
    os << (b ? "," : "") << " " << p.slrs[b].name << "-" << p.slrs[b + 1].name << " "
       << without->boundaryBits[b] << " bits (limit " << p.boundaryBits[b] << ")";
  os << ". Raise --sll-budget (or --slr-budget, to keep more in one SLR) or narrow the streams";
  return os.str();
}

/// This thread's CPU time (CBC solves on the calling thread; the step prediction may run on
/// another meanwhile).
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

/// The program's columns: x[i][s] first, then c[n][b].
struct Columns {
  size_t items, slrs, nets, boundaries;
  int x(size_t i, size_t s) const { return int(i * slrs + s); }
  int c(size_t n, size_t b) const { return int(items * slrs + n * boundaries + b); }
  size_t count() const { return items * slrs + nets * boundaries; }
};

/// Adds +sign * above_b(i) to `row`.
void addAbove(CoinPackedVector &row, const Columns &col, size_t i, size_t b, double sign) {
  for (size_t s = b + 1; s < col.slrs; ++s)
    row.insert(col.x(i, s), sign);
}

} // namespace

int netCrossings(const FloorplanProblem::Net &n, const std::vector<int> &slrOf) {
  int lo = slrOf.at(n.driver), hi = lo;
  for (size_t l : n.loads) {
    lo = std::min(lo, slrOf.at(l));
    hi = std::max(hi, slrOf.at(l));
  }
  return hi - lo;
}

FloorplanSolution solveFloorplan(const FloorplanProblem &p) {
  if (p.slrs.empty() || p.boundaryBits.size() + 1 != p.slrs.size())
    throw Error(p.where, "floorplan", "SLRs and one SLL limit per boundary between them");
  checkResources(p);
  const Columns col{p.items.size(), p.slrs.size(), p.nets.size(), p.boundaryBits.size()};
  std::vector<double> objective(col.count(), 0), lower(col.count(), 0), upper(col.count(), 1);
  for (size_t i = 0; i < col.items; ++i)
    if (p.items[i].pinned >= 0)
      for (size_t s = 0; s < col.slrs; ++s)
        upper[size_t(col.x(i, s))] = int(s) == p.items[i].pinned ? 1 : 0;
  CoinPackedMatrix rows(false, 0, 0);
  rows.setDimensions(0, int(col.count()));
  std::vector<double> rowLower, rowUpper;
  auto addRow = [&](const CoinPackedVector &row, double lo, double hi) {
    rows.appendRow(row);
    rowLower.push_back(lo);
    rowUpper.push_back(hi);
  };
  for (size_t i = 0; i < col.items; ++i) {
    CoinPackedVector row;
    for (size_t s = 0; s < col.slrs; ++s)
      row.insert(col.x(i, s), 1.0);
    addRow(row, 1, 1);
  }
  for (size_t s = 0; s < col.slrs; ++s)
    for (size_t r = 0; r < kResourceNames.size(); ++r) {
      CoinPackedVector row;
      for (size_t i = 0; i < col.items; ++i)
        if (resourceOf(p.items[i].resources, r) > 0)
          row.insert(col.x(i, s), resourceOf(p.items[i].resources, r));
      if (row.getNumElements() > 0)
        addRow(row, -COIN_DBL_MAX, resourceOf(p.slrs[s].budget, r));
    }
  for (size_t n = 0; n < col.nets; ++n)
    for (size_t b = 0; b < col.boundaries; ++b) {
      objective[size_t(col.c(n, b))] = double(p.nets[n].bits);
      for (size_t load : p.nets[n].loads)
        for (double sign : {1.0, -1.0}) {
          // c[n][b] - sign * (above_b(load) - above_b(driver)) >= 0
          CoinPackedVector row;
          row.insert(col.c(n, b), 1.0);
          addAbove(row, col, load, b, -sign);
          addAbove(row, col, p.nets[n].driver, b, sign);
          addRow(row, 0, COIN_DBL_MAX);
        }
    }
  for (const auto &[a, b] : p.ordered) {
    // sum_s s x[a][s] <= sum_s s x[b][s]
    CoinPackedVector row;
    for (size_t s = 1; s < col.slrs; ++s) {
      row.insert(col.x(a, s), double(s));
      row.insert(col.x(b, s), -double(s));
    }
    addRow(row, -COIN_DBL_MAX, 0);
  }
  for (size_t b = 0; b < col.boundaries; ++b) {
    CoinPackedVector row;
    for (size_t n = 0; n < col.nets; ++n)
      row.insert(col.c(n, b), double(p.nets[n].bits));
    addRow(row, -COIN_DBL_MAX, double(p.boundaryBits[b]));
  }

  // CBC and CLP keep some state of their own: one solve at a time in the process.
  static std::mutex solverMutex;
  std::unique_lock<std::mutex> lock(solverMutex);
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(rows, lower.data(), upper.data(), objective.data(), rowLower.data(),
                     rowUpper.data());
  for (size_t i = 0; i < col.items; ++i)
    for (size_t s = 0; s < col.slrs; ++s)
      solver.setInteger(col.x(i, s));
  const auto began = std::chrono::steady_clock::now();
  const double beganCpu = threadCpuSeconds();
  CbcModel model(solver);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  // A floorplan within 5 % of the fewest crossing bits is as good for placement: stop there
  // (the proof of the last percent is most of the search). A node limit, not a time limit,
  // bounds the search, so that a loaded machine gives the same floorplan.
  model.setAllowableFractionGap(0.05);
  model.setMaximumNodes(3000);
  model.branchAndBound();
  FloorplanSolution sol;
  sol.solveSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  sol.solveCpuSeconds = threadCpuSeconds() - beganCpu;
  if (model.bestSolution() == nullptr) {
    const bool proven = model.isProvenInfeasible();
    lock.unlock(); // whyNoneFits solves again
    throw Error(p.where, "floorplan",
                "an assignment of its " + std::to_string(col.items) +
                    " items to the SLRs within every budget; none fits (" +
                    (proven ? "proven by CBC" : "none found within the node limit") + "). " +
                    whyNoneFits(p));
  }
  const double *x = model.bestSolution();
  sol.slrOf.assign(col.items, 0);
  sol.used.assign(col.slrs, {});
  for (size_t i = 0; i < col.items; ++i) {
    for (size_t s = 0; s < col.slrs; ++s)
      if (x[col.x(i, s)] > 0.5)
        sol.slrOf[i] = int(s);
    sol.used[size_t(sol.slrOf[i])] += p.items[i].resources;
  }
  sol.boundaryBits.assign(col.boundaries, 0);
  for (const auto &n : p.nets) {
    int lo = sol.slrOf[n.driver], hi = lo;
    for (size_t l : n.loads) {
      lo = std::min(lo, sol.slrOf[l]);
      hi = std::max(hi, sol.slrOf[l]);
    }
    for (int b = lo; b < hi; ++b)
      sol.boundaryBits[size_t(b)] += n.bits;
    sol.weightedBits += int64_t(hi - lo) * n.bits;
  }
  return sol;
}

} // namespace st::plan
