// Step prediction: the cycles of each decode step of the LLM accelerator, predicted from the
// compiler's own timing machinery, for comparison with the testbench's measured step boundaries.
//
// Step t (0-based; the prompt's steps first, then the generated ones) runs the prologue, the
// block once per layer and the epilogue, one after another (the layer loop feeds layer l + 1 with
// layer l's output, the token source waits for the argmax). Each stage's cycles are the makespan
// of its lowered graph (lowerAcceleratorStage, at the FIFO depths of the built design) in the
// cycle-level timing simulation (passes/dataflow_timing_sim), with:
//   - attention of layer l reading frontend::cacheRowsAt rows at step t: t, or min(t, window - 1)
//     on a sliding-window layer (step 0 reads none; it is simulated as 1 row);
//   - every HBM read DMA as the memory and DMA stages of model/memory_read_model.h under the
//     testbench memory's mean behaviour (model::MemoryTiming): KV-cache reads get the first
//     burst's merge and the mean latency, then words at the memory's mean rate (a ready
//     probability below one, capped by the pseudo-channel's bandwidth) into the DMA's buffer;
//     weight streams have fixed addresses and are read ahead (no latency, same rate). Writes
//     are taken at one per cycle.
// The step's cycles depend only on t (not on the prompt length or token count): the prediction
// of a run of P prompt and N generated tokens is steps 0 .. P + N - 2 of the table.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "llm/accelerator_graph.h"
#include "model/memory_read_model.h"
#include "passes/dataflow_timing_sim.h"

namespace st::llm {

/// Stage `index` of a built design (its lowering, at the design's FIFO depths) simulated at any
/// cache length, each length once. The kernels whose timing does not depend on the cache length
/// keep their curves from one simulation to the next (passes::sharedKernelCurves).
class StageTimer {
public:
  StageTimer(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
             const model::MemoryTiming &hbm);
  /// Cycles of one run of the stage at `cacheLength` cached rows (the makespan; exact). Safe to
  /// call from several threads.
  int64_t cyclesAt(int64_t cacheLength);
  /// Distinct cache lengths simulated so far.
  int64_t simulations() const { return static_cast<int64_t>(known_.size()); }

private:
  const AcceleratorGraph &g_;
  AcceleratorOptions options_;
  int index_;
  model::MemoryTiming hbm_;
  std::map<std::string, int64_t> builtDepths_;
  std::map<int64_t, int64_t> known_;
  std::mutex mutex_;
};

/// Cycles of stage `index` of `g` (built with `options`) at `cacheLength` cached rows.
int64_t stageCyclesAt(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                      int64_t cacheLength, const model::MemoryTiming &hbm);

/// A stage's cycles as a function of the cache length, from a few exact simulations: exact at
/// each sample, the chord between neighbouring samples elsewhere. The makespan is the longest
/// path through the run's events, each path's length affine in the cache length (the cache
/// streams add the same events per row): piecewise affine, with a few kinks where another path
/// becomes the longest (measured: a full-size block is concave with one kink, e.g. GPT-2 Medium
/// 33 cycles a row up to 64 rows, 17 after), up to the rounding of rate cadences (a few cycles).
/// On an interval where it is convex or concave, sampleCacheLengthCurve bounds the chord's error:
///  - tolerance > 0 (full-size blocks): sandwiching. Each open interval also knows the lengths
///    just outside it, hence the slopes at its ends; the function lies between the chord and the
///    two end tangents, so the chord is within the tolerance wherever its distance to the
///    tangents at their crossing is. Else the pair of lengths at the crossing is sampled and
///    splits the interval (the midpoint, if the slopes fit neither shape).
///  - tolerance 0 (small blocks, sampled until the chords are exact), or CurveSampling::Bisection:
///    bisection. Both ends, then the midpoint of every interval whose midpoint misses the chord
///    by more than the tolerance, recursively; where such a function meets its chord at the
///    midpoint it is affine.
/// Sandwiching needs exact local slopes. A GEMV-engine step is affine per piece only on average:
/// its slope per cached row alternates by a few percent (the channels' word rate is a cadence,
/// e.g. 1032, 984, 1032 cycles a row on GPT-2 Medium), which makes every tangent test fail and
/// sandwiching sample 135 of 1024 steps; bisection takes a few dozen and still meets the chord
/// within the tolerance where it is checked (unit test against fresh simulations).
/// Each round's lengths are simulated in parallel.
struct CacheLengthCurve {
  std::vector<std::pair<int64_t, int64_t>> samples; ///< (cache length, cycles), ascending
  /// The cycles at `cacheLength` (first <= cacheLength <= last sample).
  int64_t at(int64_t cacheLength) const;
};
enum class CurveSampling {
  Sandwich, ///< exact slopes (a per-op block): sandwiching when tolerance > 0
  Bisection ///< slopes with a cadence (a GEMV-engine step): bisection at any tolerance
};
CacheLengthCurve sampleCacheLengthCurve(const std::function<int64_t(int64_t)> &cyclesAt,
                                        int64_t first, int64_t last, int64_t tolerance,
                                        CurveSampling sampling = CurveSampling::Sandwich);

/// The tolerance predictStepCycles samples the block with: 0.005 % of the cycles at the longest
/// cache (0 below 20,000 cycles: a small block is sampled until the chords are exact).
int64_t cacheCurveTolerance(int64_t cyclesAtLongest);
/// The tolerance predictStepCycles samples a GEMV-engine design's steps with (each sample is a
/// whole step): 0.1 % of the cycles of the shortest step, step 1 (0 below 1,000 cycles).
int64_t engineStepTolerance(int64_t cyclesAtShortest);

/// Predicted cycles of steps 0 .. steps - 1. `layerWindows` holds each layer's attention sliding
/// window (0: none; empty: no layer has one). The block's cycles come from its
/// CacheLengthCurve over the cache lengths the steps read. Throws st::Error when steps exceeds
/// the context.
std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows, int64_t steps,
                                       const model::MemoryTiming &hbm,
                                       CacheLengthCurve *blockCurve = nullptr);

/// Cached rows attention reads at step t with sliding window `window` (0: none): as
/// frontend::cacheRowsAt.
int64_t cachedRowsAt(int64_t window, int64_t step);

} // namespace st::llm

namespace st::llm {

/// The prediction of one run of steps S .. S + P + N - 2 (S: the first step, > 0 when the run
/// resumes over a prefilled KV cache) from the step table: mean cycles per prompt step
/// (S .. S + P - 1) and per generated step (S + P .. S + P + N - 2; 0 when N == 1), as sim
/// measures them.
struct RunPrediction {
  double promptCyclesPerToken = 0;
  double generatedCyclesPerToken = 0;
  std::vector<int64_t> stepCycles; ///< the run's steps S .. S + P + N - 2
};

/// Throws st::Error when the table is shorter than the run's S + P + N - 1 steps.
RunPrediction predictRun(const std::vector<int64_t> &stepCycles, int64_t promptTokens,
                         int64_t newTokens, int64_t firstStep = 0);

} // namespace st::llm
