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
#include <vector>

#include "llm/accelerator_graph.h"
#include "model/memory_read_model.h"

namespace st::llm {

/// Cycles of stage `index` of `g` (built with `options`) at `cacheLength` cached rows.
int64_t stageCyclesAt(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                      int64_t cacheLength, const model::MemoryTiming &hbm);

/// Predicted cycles of steps 0 .. steps - 1. `layerWindows` holds each layer's attention sliding
/// window (0: none; empty: no layer has one). Throws st::Error when steps exceeds the context.
std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows, int64_t steps,
                                       const model::MemoryTiming &hbm);

/// Cached rows attention reads at step t with sliding window `window` (0: none): as
/// frontend::cacheRowsAt.
int64_t cachedRowsAt(int64_t window, int64_t step);

} // namespace st::llm

namespace st::llm {

/// The prediction of one run from the step table: mean cycles per prompt step (steps 0 .. P - 1)
/// and per generated step (P .. P + N - 2; 0 when N == 1), as sim measures them.
struct RunPrediction {
  double promptCyclesPerToken = 0;
  double generatedCyclesPerToken = 0;
  std::vector<int64_t> stepCycles; ///< steps 0 .. P + N - 2
};

/// Throws st::Error when the table is shorter than the run's P + N - 1 steps.
RunPrediction predictRun(const std::vector<int64_t> &stepCycles, int64_t promptTokens,
                         int64_t newTokens);

} // namespace st::llm
