// The depth of the GEMV engine's weight prefetch FIFOs (llm::AcceleratorOptions::engineFifoWords),
// chosen per design by the step prediction. A deeper FIFO lets each channel's weights stream on
// longer while the engine waits (attention, norms, the step's boundary), but its refill also
// shares the K/V slices' channels for longer during attention's passes: by prediction
// Qwen2.5-0.5B's step at 512 is 0.6 % shorter with 8,192 words than with 4,096, GPT-2 Medium's
// at 1024 1.9 % longer (2.2 % at 512). So compile simulates each candidate's step at one context
// and keeps the fastest that fits the budget: one simulation per candidate, beside the
// calibration (at 64 the depths tie for all five full-size configs; at 512 the choice is the one
// that is also right at the max context for Qwen2.5-0.5B, TinyLlama-1.1B and GPT-2 Medium).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/decode_program.h"
#include "llm/accelerator_graph.h"
#include "llm/step_prediction.h"
#include "model/kernel_timing.h"
#include "model/memory_read_model.h"

namespace st::plan {

/// The context the choice weighs a design at: 512, or the max context when shorter (>= 2).
int64_t engineFifoChoiceContext(int64_t maxContext);

/// The predicted cycles of `options`' design at the step of a cache of `context` positions
/// (0: engineFifoChoiceContext): one simulation of the unrolled step (llm::EngineStepTimer), how
/// compile weighs candidate designs. With `cache`, a step simulated before is not simulated
/// again (llm::StepCache; so are the steps the later prediction of the kept design needs).
int64_t choiceContextCycles(const ir::DecodeProgram &program,
                            const llm::AcceleratorOptions &options,
                            const model::MemoryTiming &hbm = {}, int64_t context = 0,
                            llm::StepCache *cache = nullptr);

/// Among `candidates` (designs, in order of preference), the index of the one within `budget`
/// (designNeedsOf) that predicts the fewest cycles at the step of `context` (0:
/// engineFifoChoiceContext; one simulation of the unrolled step each, side by side); ties go to
/// the earlier candidate; -1 when none fits.
int64_t fastestFittingDesign(const ir::DecodeProgram &program,
                             const std::vector<llm::AcceleratorOptions> &candidates,
                             const model::ResourceEstimate &budget,
                             const model::MemoryTiming &hbm = {}, int64_t context = 0,
                             llm::StepCache *cache = nullptr);

/// The depths compile weighs by default (words per channel, in order of preference).
inline const std::vector<int64_t> kEngineFifoCandidates = {4096, 8192};

/// Among `candidates` (words per channel, in order of preference), the depth whose design (the
/// GEMV engine, `options` otherwise) is within `budget` (designNeedsOf) and predicts the fewest
/// cycles at the step of engineFifoChoiceContext (one simulation of the unrolled step,
/// llm::EngineStepTimer); ties go to the earlier candidate. `options.engineFifoWords` for a
/// per-op design or when no candidate fits.
int64_t chooseEngineFifoWords(const ir::DecodeProgram &program,
                              const llm::AcceleratorOptions &options,
                              const std::vector<int64_t> &candidates,
                              const model::ResourceEstimate &budget,
                              const model::MemoryTiming &hbm = {}, llm::StepCache *cache = nullptr);

} // namespace st::plan
