// The GEMV engine's prefetch FIFO depth, by prediction (see engine_fifo_choice.h).
#include "llm/engine_fifo_choice.h"

#include <algorithm>
#include <limits>

#include "llm/engine_step_prediction.h"
#include "llm/kv_step_choice.h"
#include "plan/llm_plan.h"

namespace st::llm {

int64_t engineFifoChoiceContext(int64_t maxContext) {
  return std::max<int64_t>(2, std::min<int64_t>(512, maxContext));
}

int64_t choiceContextCycles(const ir::DecodeProgram &program, const AcceleratorOptions &options,
                            const model::MemoryTiming &hbm) {
  const AcceleratorGraph g = buildAcceleratorGraph(program, options);
  EngineStepTimer timer(g, options, plan::layerWindowsOf(program), hbm);
  return timer.cyclesAt(engineFifoChoiceContext(options.maxContext) - 1);
}

int64_t chooseEngineFifoWords(const ir::DecodeProgram &program, const AcceleratorOptions &options,
                              const std::vector<int64_t> &candidates,
                              const model::ResourceEstimate &budget,
                              const model::MemoryTiming &hbm) {
  if (options.engine != LinearEngine::Gemv)
    return options.engineFifoWords;
  int64_t best = options.engineFifoWords;
  int64_t bestCycles = std::numeric_limits<int64_t>::max();
  for (int64_t words : candidates) {
    AcceleratorOptions candidate = options;
    candidate.engineFifoWords = words;
    const model::ResourceEstimate r = designNeedsOf(program, candidate).resources;
    if (r.lut > budget.lut || r.ff > budget.ff || r.dsp > budget.dsp || r.bram36 > budget.bram36 ||
        r.uram > budget.uram)
      continue;
    const int64_t cycles = choiceContextCycles(program, candidate, hbm);
    if (cycles < bestCycles) {
      bestCycles = cycles;
      best = words;
    }
  }
  return best;
}

} // namespace st::llm
