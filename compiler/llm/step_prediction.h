// Step prediction: the cycles of each decode step of the LLM accelerator, predicted from the
// compiler's own timing machinery, for comparison with the testbench's measured step boundaries.
//
// Step t (0-based; the prompt's steps first, then the generated ones) runs the prologue, the
// block once per layer and the epilogue, one after another (the layer loop feeds layer l + 1 with
// layer l's output, the token source waits for the argmax). Each stage's cycles are the makespan
// of its lowered graph (lowerAcceleratorStage, at the FIFO depths of the built design) in the
// cycle-level timing simulation (sim/dataflow_timing_sim), with:
//   - attention of layer l reading frontend::cacheRowsAt rows at step t: t, or min(t, window - 1)
//     on a sliding-window layer (step 0 reads none; it is simulated as 1 row);
//   - every HBM read DMA as the memory and DMA stages of model/memory_read_model.h under the
//     testbench memory's mean behaviour (model::MemoryTiming): KV-cache reads get the first
//     burst's merge and the mean latency, then words at the memory's mean rate (a ready
//     probability below one, capped by the pseudo-channel's bandwidth) into the DMA's buffer;
//     weight streams have fixed addresses and are read ahead (no latency, same rate). Writes
//     are taken at one per cycle.
// (A GEMV-engine design simulates the whole step at once: llm/engine_step_prediction.h.)
// The step's cycles depend only on t (not on the prompt length or token count): the prediction
// of a run of P prompt and N generated tokens is the cycles of its steps 0 .. P + N - 2. Each
// predicted step is its own simulation: compile predicts the reported steps (reportedSteps),
// sim the steps of its run.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "llm/accelerator_graph.h"
#include "model/memory_read_model.h"
#include "sim/dataflow_timing_sim.h"

namespace st::llm {

/// Stage `index` of a built design (its lowering, at the design's FIFO depths) simulated at any
/// cache length, each length once. The kernels whose timing does not depend on the cache length
/// keep their curves from one simulation to the next (sim::sharedKernelCurves).
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

/// The steps compile predicts (report.json's step_prediction): step c - 1 of each reference
/// context c (kReportedContexts up to the max context, and the max context itself), ascending.
std::vector<int64_t> reportedSteps(int64_t maxContext);
/// The contexts reportedSteps predicts below the max context.
inline const std::vector<int64_t> kReportedContexts = {64, 512, 1024, 2048, 4096};

/// Steps of GEMV-engine designs already simulated, by design (its options, acceleratorOptionsJson),
/// memory timing and step. Compile's design choices and its step prediction share one, so that a
/// step the choices simulated on the design compile keeps is not simulated again. One cache
/// serves one program. Safe to use from several threads.
class StepCache {
public:
  std::optional<int64_t> find(const AcceleratorOptions &options, const model::MemoryTiming &hbm,
                              int64_t step) const;
  void add(const AcceleratorOptions &options, const model::MemoryTiming &hbm, int64_t step,
           int64_t cycles);

private:
  static std::string keyOf(const AcceleratorOptions &options, const model::MemoryTiming &hbm);
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int64_t>, int64_t> cycles_;
};

/// Predicted cycles of each of `steps` (each in 0 .. max context - 1), in the same order. Every
/// figure is one exact timing simulation, nothing is interpolated:
///  - a GEMV-engine design: the whole step (EngineStepTimer), once per distinct step;
///  - a per-op design: prologue + the block at each layer's cached rows + epilogue, the block
///    simulated once per distinct row count (StageTimer).
/// Step 0 reads no row and is simulated as step 1 (one row). `layerWindows` holds each layer's
/// attention sliding window (0: none; empty: no layer has one). The simulations run in parallel.
/// With `cache` (an engine design), steps found there are not simulated again and the simulated
/// ones are added. Throws st::Error for a step outside the
/// context or windows that are not one per layer.
std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows,
                                       const std::vector<int64_t> &steps,
                                       const model::MemoryTiming &hbm, StepCache *cache = nullptr);

/// Cached rows attention reads at step t with sliding window `window` (0: none): as
/// frontend::cacheRowsAt.
int64_t cachedRowsAt(int64_t window, int64_t step);

} // namespace st::llm

namespace st::llm {

/// The prediction of one run of steps S .. S + P + N - 2 (S: the first step, > 0 when the run
/// resumes over a prefilled KV cache) from the cycles of those steps (predictStepCycles): mean
/// cycles per prompt step (S .. S + P - 1) and per generated step (S + P .. S + P + N - 2; 0
/// when N == 1), as sim measures them.
struct RunPrediction {
  double promptCyclesPerToken = 0;
  double generatedCyclesPerToken = 0;
  std::vector<int64_t> stepCycles; ///< the run's steps S .. S + P + N - 2
};

/// The run's steps S .. S + P + N - 2, ascending.
std::vector<int64_t> runSteps(int64_t promptTokens, int64_t newTokens, int64_t firstStep = 0);
/// `runCycles`: the cycles of runSteps(promptTokens, newTokens, firstStep), in that order. Throws
/// st::Error when their counts differ or the run has no prompt or no new token.
RunPrediction predictRun(const std::vector<int64_t> &runCycles, int64_t promptTokens,
                         int64_t newTokens);

} // namespace st::llm
