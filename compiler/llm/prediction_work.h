// Prediction work: a deterministic count of what the step simulations of a process have
// simulated (simulations run, layers unrolled in them, cycles simulated), with no timing in it.
// compile reports the count of its choices and step prediction in report.json
// (step_prediction.work), and a unit test holds it under a budget for every config, so that a
// change that makes the prediction simulate more shows as an exact figure, not a slower clock.
#pragma once

#include <cstdint>

namespace st::llm {

struct PredictionWork {
  int64_t stepSimulations = 0;  ///< simulations of a whole unrolled step (GEMV-engine designs)
  int64_t blockSimulations = 0; ///< simulations of one stage (per-op designs)
  int64_t layersSimulated = 0;  ///< block instances in those simulations
  int64_t cyclesSimulated = 0;  ///< their makespans, summed
  /// The work done since `before` (a snapshot of the same process).
  PredictionWork since(const PredictionWork &before) const;
};

/// The process's counts so far. The count of one piece of work is the difference of two
/// snapshots, exact while nothing else simulates steps meanwhile (compile runs its choices and
/// prediction in one thread of work).
PredictionWork predictionWork();

/// Adds one simulation to the process's counts: a whole step (else one stage), the block
/// instances it unrolled and its makespan.
void countStepSimulation(bool wholeStep, int64_t layers, int64_t cycles);

} // namespace st::llm
