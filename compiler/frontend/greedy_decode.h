// Greedy decoding over any step executor of a DecodeProgram (the fp32 FloatExecutor, the
// integer GoldenExecutor): feeds the prompt at positions 0, 1, ..., then each step's argmax.
#pragma once

#include <cstdint>
#include <vector>

#include "support/error.h"

namespace st::frontend {

/// The generated tokens and, per generated token, the (dequantized) logits it was chosen from.
struct GreedyResult {
  std::vector<int64_t> tokens;
  std::vector<std::vector<float>> logits;
};

/// Feeds `prompt`, then `steps` generated tokens. `Executor::step(token, pos)` returns a result
/// with `nextToken` (the argmax) and `logits`.
template <class Executor>
GreedyResult greedyDecode(Executor &executor, const std::vector<int64_t> &prompt, int64_t steps) {
  if (prompt.empty())
    throw Error("greedy decode", "prompt", "at least one token");
  GreedyResult result;
  typename Executor::StepResult last;
  int64_t pos = 0;
  for (int64_t token : prompt)
    last = executor.step(token, pos++);
  for (int64_t s = 0; s < steps; ++s) {
    result.tokens.push_back(last.nextToken);
    result.logits.push_back(last.logits);
    if (s + 1 < steps)
      last = executor.step(last.nextToken, pos++);
  }
  return result;
}

} // namespace st::frontend
