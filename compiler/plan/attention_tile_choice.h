// Whether attention runs in one pass, and in tiles of how many positions
// (llm::AcceleratorOptions::attentionTilePositions), chosen per design by the step prediction. One
// pass reads K and V of a position together, the value walk a tile behind the score walk
// (st_attention's OnePass, docs/accelerator.md §7): a block's cache is read in about one pass of
// its positions instead of the two-pass form's block-major overlap of two. It applies to the
// block-major walk over cache tokens of whole kv heads (GPT-2 Medium, and the position-striped
// caches of TinyLlama-1.1B and Qwen2.5-0.5B); it changes the numerics (numerics::attentionTiled,
// the golden model's too), not their error against fp32 (docs/numerics.md §6).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/decode_program.h"
#include "llm/accelerator_graph.h"
#include "llm/step_prediction.h"
#include "model/kernel_timing.h"

namespace st::plan {

/// Whether one pass applies to `options`' design: the GEMV engine, and the lowering's
/// attention walks block-major over cache tokens of whole kv heads (llm::attentionOnePassApplies).
bool attentionOnePassAppliesTo(const ir::DecodeProgram &program,
                               const llm::AcceleratorOptions &options);

/// The tile among `tiles` (positions; 0: two passes), in order of preference, whose design fits
/// `budget` and predicts the fewest cycles at the design's max context (fastestFittingDesign:
/// the longest step it makes, where one pass gains most); tiles
/// larger than the max context or shorter than a tile's merge (headDim + 12 cycles) are
/// skipped. 0 when one pass does not apply or nothing fits. `cache`: as choiceContextCycles.
int64_t chooseAttentionTile(const ir::DecodeProgram &program,
                            const llm::AcceleratorOptions &options,
                            const std::vector<int64_t> &tiles,
                            const model::ResourceEstimate &budget, llm::StepCache *cache = nullptr);

/// The tiles compile weighs by default: two passes, then one pass in tiles of 64, 128 and 256.
inline const std::vector<int64_t> kAttentionTileCandidates = {0, 64, 128, 256};

} // namespace st::plan
