// Prediction work: the process's counts of step simulations (see prediction_work.h).
#include "llm/prediction_work.h"

#include <mutex>

namespace st::llm {

namespace {

std::mutex &workMutex() {
  static std::mutex mutex;
  return mutex;
}

PredictionWork &workSoFar() {
  static PredictionWork work;
  return work;
}

} // namespace

PredictionWork PredictionWork::since(const PredictionWork &before) const {
  PredictionWork d;
  d.stepSimulations = stepSimulations - before.stepSimulations;
  d.blockSimulations = blockSimulations - before.blockSimulations;
  d.layersSimulated = layersSimulated - before.layersSimulated;
  d.cyclesSimulated = cyclesSimulated - before.cyclesSimulated;
  return d;
}

PredictionWork predictionWork() {
  const std::lock_guard<std::mutex> lock(workMutex());
  return workSoFar();
}

void countStepSimulation(bool wholeStep, int64_t layers, int64_t cycles) {
  const std::lock_guard<std::mutex> lock(workMutex());
  PredictionWork &w = workSoFar();
  ++(wholeStep ? w.stepSimulations : w.blockSimulations);
  w.layersSimulated += layers;
  w.cyclesSimulated += cycles;
}

} // namespace st::llm
