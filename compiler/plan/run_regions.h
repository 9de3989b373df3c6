// The run regions in the HBM image plan (llm/run_layout.h says what a decode run leaves in HBM):
// addRunRegions places the tokens region and the tap buffers in the image plan
// (plan::addRunBuffer); runLayoutOf reads every region (tokens, KV caches, taps) back from a plan,
// for the check of a run against the golden model.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/quantized_model.h"
#include "ir/decode_program.h"
#include "llm/run_layout.h"
#include "plan/hbm_plan.h"

namespace st::plan {

/// Adds the run buffers to `plan` (made by plan::planHbmImage for `program` / `model`): the
/// tokens region "run/tokens" (kind run_tokens, plan.maxContext u32 ids) and one buffer
/// "<stage>/<op>.tap" (kind run_tap) per tap, maxContext * runs rows, or a ring of the last
/// 2^k steps when that exceeds `tapRingBytes`. Throws st::Error naming the tap for an unknown
/// stage or op or a code width other than 8, 16 or 32.
void addRunRegions(HbmImagePlan &plan, const ir::DecodeProgram &program,
                   const frontend::QuantizedModel &model, const std::vector<llm::TapSpec> &taps,
                   int64_t tapRingBytes = llm::kTapRingBytes);

/// Reads the run layout from a plan that addRunRegions has extended. Throws st::Error naming
/// the buffer when the plan lacks the tokens region or a tap.
llm::RunLayout runLayoutOf(const HbmImagePlan &plan, const ir::DecodeProgram &program,
                           const frontend::QuantizedModel &model,
                           const std::vector<llm::TapSpec> &taps);

} // namespace st::plan
