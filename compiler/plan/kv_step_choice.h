// The attention's heads in parallel: how many kv heads per cache token (llm/kv_striping.h) a
// design gets, and how many of the GEMV engine's channel pairs share their multipliers to make
// room for them. More heads per token read the cache over more pseudo-channels at once and need
// proportionally more multipliers (st_attention: Group x CacheLanes score and value products);
// a packed engine channel pair (numerics::GemvEngineShape::packedPairs) gives back KLanes DSPs
// for about 2,300 LUTs. The choice is the most heads per token that fit a resource budget with
// the fewest packed pairs.
#pragma once

#include <cstdint>

#include "ir/decode_program.h"
#include "llm/accelerator_graph.h"
#include "llm/step_prediction.h"
#include "model/kernel_timing.h"

namespace st::plan {

struct AttentionParallelism {
  int64_t kvStep = 0;      ///< llm::AcceleratorOptions::attentionKvStep
  int64_t headSplit = 1;   ///< llm::AcceleratorOptions::attentionHeadSplit
  int64_t readStep = 0;    ///< llm::AcceleratorOptions::attentionReadStep
  bool blockMajor = false; ///< llm::AcceleratorOptions::attentionBlockMajor
  int64_t packedPairs = 0; ///< llm::AcceleratorOptions::enginePackedPairs
  /// llm::AcceleratorOptions::attentionPositionSlices (with kvStep 1, blockMajor; readStep 0).
  int64_t positionSlices = 0;
  /// Sets the six options above to this choice (a caller's own overrides come after).
  void applyTo(llm::AcceleratorOptions &options) const;
};

/// The design of `options`: its estimated resources, the report's own estimate
/// (plan/design_resources.h: kernels on the joined graph, so the shared engine counts once, DMAs
/// with a striped cache's read one per slice, FIFOs at their sized depths, control, sequencers;
/// only the few st_vector_counters, tens of LUTs each, are left out: which kernels get one is
/// decided by the bindings of the quantized model), and its AXI masters.
struct DesignNeeds {
  model::ResourceEstimate resources;
  int64_t masters = 0;
};
DesignNeeds designNeedsOf(const ir::DecodeProgram &program, const llm::AcceleratorOptions &options);

/// The program's first attention op's attributes (they agree), or none.
const ir::AttentionAttrs *firstAttention(const ir::DecodeProgram &program);

/// The kv heads of the program's attention ops (they agree; 0 when there is none).
int64_t attentionKvHeads(const ir::DecodeProgram &program);

/// Whether the program's attention can walk block-major with `options`' kv step, head split and
/// read step (llm::kvBlockMajorApplies; false with the per-op engine or no attention).
bool attentionBlockMajorApplies(const ir::DecodeProgram &program,
                                const llm::AcceleratorOptions &options);

/// The widest cache token whose design (`options` with that attentionKvStep and
/// attentionHeadSplit and as few packed engine channel pairs as its DSPs need) is estimated
/// within `budget` on every resource (the estimate report.json gives the design,
/// plan/design_resources.h, less its few st_vector_counters) and has at most the AXI masters the
/// control's arguments allow: k whole kv heads per token, k the largest divisor of the kv heads
/// that fits; else, for a head wider than two bus words, the fewest tokens per head that fit
/// (llm/kv_striping.h); then the widest cache read (readStep, kvReadStripingOf) that still fits
/// with it, 0 when none wider does; st_attention's block-major walk (one kv-head block's value pass
/// beside the next block's score pass) wherever it applies (llm::kvBlockMajorApplies) and fits.
/// kvStep 0 (the unstriped cache, a bus word of a head per token: the fewest multipliers) when
/// nothing fits, and for a per-op design. At one kv head per token where block-major does not apply
/// (a head of one bus word, at least two kv heads, no sliding window), the positions striped over
/// two slices instead (positionSlices 2, llm::kvPositionStripingOf: block-major at a token a cycle)
/// when that design still fits, and over four when that design fits too and its step at
/// engineFifoChoiceContext is shorter by prediction (TinyLlama-1.1B: 353,531 cycles at 512
/// against 363,948 with two; Qwen2.5-0.5B's step grows). Builds the accelerator graph a few times
/// per candidate (only shapes are read: milliseconds); the four-slice comparison simulates the
/// step twice (`cache`: as choiceContextCycles).
AttentionParallelism chooseAttentionParallelism(const ir::DecodeProgram &program,
                                                const llm::AcceleratorOptions &options,
                                                const model::ResourceEstimate &budget,
                                                llm::StepCache *cache = nullptr);

} // namespace st::plan
