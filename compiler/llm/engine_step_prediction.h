// Engine step prediction: the cycles of one decode step of a design whose linears run on the
// shared GEMV engine (AcceleratorOptions::engine = Gemv), from one timing simulation of the whole
// step. The step is unrolled: the prologue, the block once per layer (attention at that layer's
// cache rows) and the epilogue are lowered (lowerAcceleratorStage) and chained through the
// exchanged vector x, and every call node of every layer becomes one invocation of a single
// sequenced engine node (sim::SequencedEngine, the rules of model/gemv_engine_model.h) in
// program order, with the x loads and reuse of the built engine (g.engine). The engine's words
// come from one source at the testbench memory's mean word rate per pseudo-channel (the
// channels stream in lockstep) through the DMA's buffer and the prefetch FIFO. Other HBM reads are
// the memory and DMA stages of model/memory_read_model.h, as in step_prediction.h; FIFO depths are
// the built design's.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "llm/accelerator_graph.h"
#include "model/memory_read_model.h"

namespace st::llm {

class EngineStepTimer {
public:
  /// `layerWindows`: per layer the attention's sliding window (0: none).
  EngineStepTimer(const AcceleratorGraph &g, const AcceleratorOptions &options,
                  std::vector<int64_t> layerWindows, const model::MemoryTiming &hbm);
  /// Cycles of decode step `step` (0-based), from the token's arrival to the last event of the
  /// step. Safe to call from several threads; each step is simulated once.
  int64_t cyclesAt(int64_t step);

private:
  int64_t simulate(int64_t step) const;

  const AcceleratorGraph &g_;
  AcceleratorOptions options_;
  std::vector<int64_t> layerWindows_;
  model::MemoryTiming hbm_;
  std::map<std::string, int64_t> builtDepths_; ///< stage stream name -> depth, per stage
  std::map<int64_t, int64_t> known_;
  std::mutex mutex_;
};

} // namespace st::llm
