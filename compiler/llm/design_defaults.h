// Design defaults: what `streamtensor compile` designs an LLM accelerator with when the command
// line does not say (the longest KV cache, the share of each device resource the automatic
// choices may fill), in one place for compile and the tests that weigh its choices.
#pragma once

#include <cstdint>

#include "ir/decode_program.h"
#include "model/kernel_timing.h"
#include "passes/compile_state.h"

namespace st::llm {

/// The longest default KV cache (--max-context): 4096 rows, enough for the decode benchmarks
/// and small next to a full-size model's weights in HBM.
inline constexpr int64_t kDefaultMaxContext = 4096;

/// The share of each of the device's resources up to which the automatic choices (heads in
/// parallel, plan/kv_step_choice.h; the attention tile; the engine FIFO) let the design grow:
/// room left for placement and routing.
inline constexpr double kResourceShare = 0.70;

/// The model's whole context, at most kDefaultMaxContext rows.
int64_t defaultMaxContext(const ir::DecodeProgram &program);

/// kResourceShare of each of the device's available resources.
model::ResourceEstimate designBudget(const passes::DeviceConstraints &device);

} // namespace st::llm
