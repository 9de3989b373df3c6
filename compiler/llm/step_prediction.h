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
//   - every HBM read DMA given the testbench memory's mean behaviour (HbmTiming): the first beat
//     after the address merge + mean read latency (latency + jitter / 2), then words at the rate
//     the memory offers them (ready probability, capped by the pseudo-channel's bandwidth), not
//     one per cycle. A KernelTiming has an integer II, so a DMA slower than one token per cycle
//     is modelled as a later start at one token per cycle: its last token comes when the slow
//     stream's would. Writes are taken at one per cycle.
// The step's cycles depend only on t (not on the prompt length or token count): the prediction
// of a run of P prompt and N generated tokens is steps 0 .. P + N - 2 of the table.
#pragma once

#include <cstdint>
#include <vector>

#include "llm/accelerator_graph.h"
#include "model/kernel_timing.h"

namespace st::llm {

/// The testbench memory (tb/axi_memory.h) whose mean behaviour the prediction assumes: the
/// defaults of `streamtensor sim` (latency 24, jitter 40, ready probability 0.8, 250 MHz).
struct HbmTiming {
  double readLatency = 24;
  double readLatencyJitter = 40; ///< uniform 0 .. jitter extra cycles per burst
  double readyProbability = 0.8; ///< chance per cycle that an R beat is offered
  double kernelClockMhz = 250;   ///< bandwidth cap: channelPeakGBps per pseudo-channel
  double channelPeakGBps = 14.375;
  int64_t wordBytes = 64;
  /// Mean cycles from the AR handshake to the first beat.
  double meanReadLatency() const { return readLatency + readLatencyJitter / 2; }
  /// Mean words per cycle one read stream receives: ready probability, capped by bandwidth.
  double wordsPerCycle() const;
};

/// A read DMA's timing under `hbm`: `tokens` tokens from `words` 512-bit words, first burst of at
/// most `maxBurstLen` beats (the nominal model of model/dma_stream_model with the mean latency
/// and the memory's word rate).
model::KernelTiming hbmReadDmaTiming(int64_t tokens, int64_t words, const HbmTiming &hbm,
                                     int64_t maxBurstLen = 64);

/// Cycles of stage `index` of `g` (built with `options`) at `cacheLength` cached rows.
int64_t stageCyclesAt(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                      int64_t cacheLength, const HbmTiming &hbm);

/// Predicted cycles of steps 0 .. steps - 1. `layerWindows` holds each layer's attention sliding
/// window (0: none; empty: no layer has one). Throws st::Error when steps exceeds the context.
std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g,
                                       const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows, int64_t steps,
                                       const HbmTiming &hbm);

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
