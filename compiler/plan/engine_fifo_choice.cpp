// The GEMV engine's prefetch FIFO depth, by prediction (see engine_fifo_choice.h).
#include "plan/engine_fifo_choice.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "plan/kv_step_choice.h"
#include "plan/llm_plan.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::plan {

int64_t engineFifoChoiceContext(int64_t maxContext) {
  return std::max<int64_t>(2, std::min<int64_t>(512, maxContext));
}

int64_t choiceContextCycles(const ir::DecodeProgram &program,
                            const llm::AcceleratorOptions &options, const model::MemoryTiming &hbm,
                            int64_t context, llm::StepCache *cache) {
  if (options.engine != llm::LinearEngine::Gemv)
    throw Error("design choice", "candidate design",
                "the GEMV engine (a per-op design is not weighed)");
  const int64_t positions = context > 0 ? std::min(context, options.maxContext)
                                        : engineFifoChoiceContext(options.maxContext);
  const int64_t step = std::max<int64_t>(2, positions) - 1;
  if (cache)
    if (const std::optional<int64_t> known = cache->find(options, hbm, step))
      return *known;
  const llm::AcceleratorGraph g = llm::buildAcceleratorGraph(program, options);
  return llm::predictStepCycles(g, options, layerWindowsOf(program), {step}, hbm, cache).at(0);
}

int64_t fastestFittingDesign(const ir::DecodeProgram &program,
                             const std::vector<llm::AcceleratorOptions> &candidates,
                             const model::ResourceEstimate &budget, const model::MemoryTiming &hbm,
                             int64_t context, llm::StepCache *cache) {
  std::vector<size_t> fitting;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const model::ResourceEstimate r = designNeedsOf(program, candidates[i]).resources;
    if (r.lut <= budget.lut && r.ff <= budget.ff && r.dsp <= budget.dsp &&
        r.bram36 <= budget.bram36 && r.uram <= budget.uram)
      fitting.push_back(i);
  }
  // The fitting candidates' steps side by side (on the cores the budget has free).
  std::vector<int64_t> cycles(fitting.size());
  parallelFor(fitting.size(), [&](size_t f) {
    cycles[f] = choiceContextCycles(program, candidates[fitting[f]], hbm, context, cache);
  });
  int64_t best = -1;
  int64_t bestCycles = std::numeric_limits<int64_t>::max();
  for (size_t f = 0; f < fitting.size(); ++f)
    if (cycles[f] < bestCycles) {
      bestCycles = cycles[f];
      best = int64_t(fitting[f]);
    }
  return best;
}

int64_t chooseEngineFifoWords(const ir::DecodeProgram &program,
                              const llm::AcceleratorOptions &options,
                              const std::vector<int64_t> &candidates,
                              const model::ResourceEstimate &budget, const model::MemoryTiming &hbm,
                              llm::StepCache *cache) {
  if (options.engine != llm::LinearEngine::Gemv)
    return options.engineFifoWords;
  std::vector<llm::AcceleratorOptions> designs;
  for (int64_t words : candidates) {
    designs.push_back(options);
    designs.back().engineFifoWords = words;
  }
  const int64_t best = fastestFittingDesign(program, designs, budget, hbm, 0, cache);
  return best < 0 ? options.engineFifoWords : candidates[size_t(best)];
}

} // namespace st::plan
