// The attention's heads in parallel: how many kv heads per cache token (llm/kv_striping.h) a
// design gets. More heads per token read the cache over more pseudo-channels at once and need
// proportionally more multipliers (st_attention: Group x CacheLanes score and value products),
// so the choice is the largest that keeps the design's estimated DSPs within a budget.
#pragma once

#include <cstdint>

#include "ir/decode_program.h"
#include "llm/accelerator_graph.h"

namespace st::llm {

/// The largest divisor k of the block's kv heads for which the design of `options` (with
/// attentionKvStep k) is estimated at most `dspBudget` DSPs (the kernels' resource models: the
/// engine, attention, norms, ...) and has at most the AXI masters the control's arguments
/// allow. 0 (the unstriped cache, part of a head per token: the fewest multipliers) when no k
/// fits, and for a per-op design. Builds the accelerator graph once per candidate tried (only
/// shapes are read: milliseconds).
int64_t chooseAttentionKvStep(const ir::DecodeProgram &program, const AcceleratorOptions &options,
                              int64_t dspBudget);

} // namespace st::llm
