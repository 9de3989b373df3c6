// FloatExecutor: the fp32 reference of a DecodeProgram. Runs one decode step at a time (token,
// position) through the stage graphs with the stored weights, keeps the KV-cache state between
// steps, and returns the logits and the greedy next token. It interprets only the generic named
// ops of ir/llm_ops.h, so it knows no architecture. This is the float model the quantized golden
// model and the RTL are measured against; it matches Hugging Face transformers' fp32 forward to
// about 1e-6 relative (tests/unit/frontend/fixture_test.cpp asserts 1e-4).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/weight_store.h"
#include "frontend/greedy_decode.h"
#include "ir/decode_program.h"

namespace st::frontend {

class FloatExecutor {
public:
  /// stateRows: rows kept per KV-cache state tensor (0: the program's maxPositions); a smaller
  /// value lets calibration of a full-size config run short sequences without allocating the
  /// whole context.
  FloatExecutor(const ir::DecodeProgram &program, const WeightStore &weights,
                int64_t stateRows = 0);

  struct StepResult {
    std::vector<float> logits;
    int64_t nextToken = 0;
  };
  /// Runs the step for `token` at position `pos` (positions must be fed 0, 1, 2, ...).
  StepResult step(int64_t token, int64_t pos);
  /// Clears the KV cache.
  void reset() { state_.clear(); }
  /// Called with "stage/run/op" and the op's output after every op of every step (calibration).
  using Observer = std::function<void(const std::string &key, const std::vector<float> &value)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }

private:
  const ir::DecodeProgram &program_;
  const WeightStore &weights_;
  int64_t stateRows_;
  std::map<std::string, std::vector<float>> state_; ///< "stage/run/name" -> [P x width]
  Observer observer_;
};

} // namespace st::frontend
