// Floorplan ILP: assigns items (instances of the top, each with its resource estimate) to the
// super logic regions of a stacked device so that every SLR stays within its budget of LUT, FF,
// DSP, BRAM36 and URAM, every boundary's crossing bits stay within its share of super long
// lines, pinned items (the logic of AXI masters wired to HBM) stay in their SLR, and the bits
// that cross boundaries, each weighted by the boundaries it crosses, are fewest.
//
// The program (solved with CBC, one solve per design): binary x[i][s] (item i in SLR s, one per
// item); per net n (a driver and its loads, `bits` wide) and boundary b a continuous
// c[n][b] >= 0 with c[n][b] >= above_b(p) - above_b(driver) and c[n][b] >= above_b(driver) -
// above_b(p) for every load p, where above_b(i) = sum of x[i][s] over s > b: at the optimum
// c[n][b] is 1 exactly when the net has pins on both sides of boundary b (a broadcast crosses a
// boundary once). Objective: min sum over n, b of bits(n) c[n][b]. Rows: per item
// sum_s x[i][s] = 1; per SLR and resource sum_i r_i x[i][s] <= budget; per boundary
// sum_n bits(n) c[n][b] <= its limit.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/kernel_timing.h"

namespace st::plan {

struct FloorplanProblem {
  struct Item {
    std::string name;
    model::ResourceEstimate resources;
    int pinned = -1; ///< the SLR it must go to, or -1
  };
  struct Net {
    std::string name;
    int64_t bits = 0;
    size_t driver = 0;
    std::vector<size_t> loads;
  };
  struct Slr {
    std::string name;
    model::ResourceEstimate budget;
  };
  std::vector<Item> items;
  std::vector<Net> nets;
  std::vector<Slr> slrs;             ///< bottom first
  std::vector<int64_t> boundaryBits; ///< per boundary slrs[b] | slrs[b + 1]: bits allowed
  /// Pairs (a, b) of interchangeable items (the same resources and the same kind of nets, e.g.
  /// the engine's channel instances): a's SLR <= b's, which removes the solutions that only
  /// swap them.
  std::vector<std::pair<size_t, size_t>> ordered;
  std::string where; ///< what the error messages name (the design)
};

struct FloorplanSolution {
  std::vector<int> slrOf;                    ///< per item
  std::vector<model::ResourceEstimate> used; ///< per SLR
  std::vector<int64_t> boundaryBits;         ///< per boundary: bits of the nets crossing it
  int64_t weightedBits = 0;                  ///< the objective
  double solveSeconds = 0;                   ///< wall clock
  double solveCpuSeconds = 0;                ///< the solving thread's CPU time
};

/// Solves `p` (see the file comment). Throws st::Error naming the resource (or the boundary)
/// and the SLR budgets when no assignment fits.
FloorplanSolution solveFloorplan(const FloorplanProblem &p);

/// The boundaries net `n` crosses under `slrOf` (its pins' lowest to highest SLR).
int netCrossings(const FloorplanProblem::Net &n, const std::vector<int> &slrOf);

} // namespace st::plan
