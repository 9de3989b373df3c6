// Golden trace: what a correct LLM accelerator computes in a decode run of T = P + N - 1 steps
// (docs/accelerator.md §1, §4), from the golden model (frontend::GoldenExecutor). Step t feeds
// the prompt id t for t < P, else the argmax of step t - 1, at position t; the N generated ids
// are the argmax of steps P-1 .. T-1. Per step the trace keeps the codes of the ops the run
// check compares: every tap's op and every op whose output a KV cache appends (per run), and
// the step's argmax.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/quantized_model.h"
#include "ir/decode_program.h"
#include "llm/run_layout.h"

namespace st::llm {

struct GoldenStep {
  int64_t token = 0;  ///< the id fed at this step (position = the step's index)
  int64_t argmax = 0; ///< the step's argmax of the logits
  /// "stage/run/op" -> output codes, for the taps' ops and the KV append ops.
  std::map<std::string, std::vector<int32_t>> codes;
  /// The codes of `op` of run `run` of `stage`; throws st::Error naming the key when they were
  /// not recorded.
  const std::vector<int32_t> &at(const std::string &stage, int64_t run,
                                 const std::string &op) const;
};

struct GoldenTrace {
  std::vector<int64_t> prompt;
  std::vector<int64_t> generated; ///< N ids: the argmax of steps P-1 .. T-1
  std::vector<GoldenStep> steps;  ///< T = P + N - 1
  int64_t numSteps() const { return static_cast<int64_t>(steps.size()); }
  /// The step whose argmax is generated id k: P - 1 + k.
  int64_t stepOfToken(int64_t k) const { return static_cast<int64_t>(prompt.size()) - 1 + k; }
};

/// Runs the golden model over the prompt and `newTokens` (N >= 1) generated ids, recording the
/// codes of `taps` and of every KV append op (kvAppendOp) of every stage. Throws st::Error for
/// an empty prompt, an id outside the vocabulary, N < 1, or T = P + N - 1 steps more than
/// `maxContext` (the KV caches' rows; at most the program's maxPositions).
GoldenTrace runGoldenTrace(const ir::DecodeProgram &program, const frontend::QuantizedModel &model,
                           const std::vector<int64_t> &prompt, int64_t newTokens,
                           int64_t maxContext, const std::vector<TapSpec> &taps);

} // namespace st::llm
