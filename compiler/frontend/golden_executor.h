// GoldenExecutor: the quantized, bit-exact golden model of a DecodeProgram. Same shape as the
// FloatExecutor (one decode step at a time, greedy decoding), but every op is a numerics:: golden
// kernel (docs/numerics.md §6) run on integer codes with the descriptors of a QuantizedModel;
// the KV cache is integer state (s8 codes per stage, run and name). It can record every op's
// output codes per step under "stage/run/op" (taps), from which the e2e simulation reports the
// first tensor, step and index where the RTL differs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/quantized_model.h"
#include "frontend/greedy_decode.h"
#include "ir/decode_program.h"

namespace st::frontend {

class GoldenExecutor {
public:
  /// stateRows: rows kept per KV-cache tensor (0: the program's maxPositions).
  GoldenExecutor(const ir::DecodeProgram &program, const QuantizedModel &model,
                 int64_t stateRows = 0);

  struct StepResult {
    std::vector<int32_t> logitCodes; ///< s16 codes of the LM head
    std::vector<float> logits;       ///< logitCodes * the logits scale
    int64_t nextToken = 0;           ///< argmax of the codes (ties to the lowest id)
    /// With recordTaps(true): every op's output codes, "stage/run/op" -> codes.
    std::map<std::string, std::vector<int32_t>> taps;
  };
  /// Runs the step for `token` at position `pos` (positions must be fed 0, 1, 2, ...).
  StepResult step(int64_t token, int64_t pos);
  void reset() { state_.clear(); }
  void recordTaps(bool on) { recordTaps_ = on; }

private:
  const ir::DecodeProgram &program_;
  const QuantizedModel &model_;
  int64_t stateRows_;
  bool recordTaps_ = false;
  std::map<std::string, std::vector<int32_t>> state_; ///< "stage/run/name" -> [rows x width]
};

} // namespace st::frontend
