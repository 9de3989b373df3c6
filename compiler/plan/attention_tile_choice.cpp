// One-pass attention's tile, by prediction (see attention_tile_choice.h).
#include "plan/attention_tile_choice.h"

#include "llm/kv_striping.h"
#include "plan/engine_fifo_choice.h"
#include "plan/kv_step_choice.h"
#include "support/error.h"

namespace st::plan {

bool attentionOnePassAppliesTo(const ir::DecodeProgram &program,
                               const llm::AcceleratorOptions &options) {
  const ir::AttentionAttrs *a = firstAttention(program);
  if (options.engine != llm::LinearEngine::Gemv || !a)
    return false;
  try {
    const llm::AttentionStripings s = llm::attentionStripingsOf(
        a->numKvHeads, a->headDim, options.attentionKvStep, options.attentionHeadSplit,
        options.attentionReadStep, options.attentionBlockMajor, options.attentionPositionSlices);
    return llm::attentionOnePassApplies(a->headDim, s.kernel.cacheLanes, s.reading.blockMajor());
  } catch (const Error &) {
    return false; // bad steps: the lowering names the op and what it expected
  }
}

int64_t chooseAttentionTile(const ir::DecodeProgram &program,
                            const llm::AcceleratorOptions &options,
                            const std::vector<int64_t> &tiles,
                            const model::ResourceEstimate &budget, llm::StepCache *cache) {
  if (!attentionOnePassAppliesTo(program, options))
    return 0;
  const int64_t headDim = firstAttention(program)->headDim;
  std::vector<llm::AcceleratorOptions> designs;
  std::vector<int64_t> kept;
  for (int64_t tile : tiles) {
    // A tile shorter than its merge (headDim cycles and the pipeline's 12) stalls the value walk
    // on the merge two tiles back; the step prediction follows such stalls only approximately
    // (3 % short on gpt2_tiny at tiles of 8), so the choice keeps to tiles that never stall.
    if (tile > options.maxContext || (tile > 0 && tile < headDim + 12))
      continue;
    designs.push_back(options);
    designs.back().attentionTilePositions = tile;
    kept.push_back(tile);
  }
  // One pass saves a pass of the cache and costs a tile's lag and a merge per block: its gain
  // grows with the cache, so the tiles are weighed at the longest step the design makes.
  const int64_t best =
      fastestFittingDesign(program, designs, budget, {}, options.maxContext, cache);
  return best < 0 ? 0 : kept[size_t(best)];
}

} // namespace st::plan
