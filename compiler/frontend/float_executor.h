// FloatExecutor: the fp32 reference of a DecodeProgram. Runs one decode step at a time (token,
// position) through the stage graphs with the stored weights, keeps the KV-cache state between
// steps, and returns the logits and the greedy next token. It interprets only the generic named
// ops of ir/llm_ops.h, so it knows no architecture. This is the float model the quantized golden
// model and the RTL are measured against; it matches Hugging Face transformers' fp32 forward to
// about 1e-6 relative (tests/unit/frontend/fixture_test.cpp asserts 1e-4).
//
// One interpreter serves two entry points: step() runs one column (token, position) against the
// executor's own KV cache; runTeacherForced() runs every (sequence, position) column of whole
// token sequences together, op by op and layer by layer, so each linear is one pass over its
// weights for all columns (frontend/float_linear.h). Every column computes exactly the arithmetic
// of a step, so both give the same bits.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/greedy_decode.h"
#include "frontend/weight_store.h"
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
  /// Under runTeacherForced it is called for every op with each column's output in turn, in
  /// (sequence, position) order, so each key sees the same values in the same order as reset()
  /// and step() over the sequences one after the other would give it.
  using Observer = std::function<void(const std::string &key, const std::vector<float> &value)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }

  /// Teacher-forced decoding of whole sequences: sequence s is fed at positions 0, 1, ... with a
  /// KV cache of its own (the executor's step() cache is left untouched), all columns at once.
  /// Returns, per sequence and position, what reset() and step(sequence[p], p) for p = 0, 1, ...
  /// return, bit for bit. Throws st::Error for an empty sequence, a token outside the vocabulary
  /// or a sequence longer than the state rows.
  std::vector<std::vector<StepResult>>
  runTeacherForced(const std::vector<std::vector<int64_t>> &sequences);

private:
  /// "stage/run/name" -> [rows x width] of one KV cache.
  using StateMap = std::map<std::string, std::vector<float>>;
  /// One column of a run: a token at a position against a KV cache.
  struct Column {
    int64_t token = 0;
    int64_t pos = 0;
    StateMap *state = nullptr;
  };
  /// The interpreter: runs the program for every column; a new state tensor gets `stateRows`.
  std::vector<StepResult> run(const std::vector<Column> &columns, int64_t stateRows);

  const ir::DecodeProgram &program_;
  const WeightStore &weights_;
  int64_t stateRows_;
  StateMap state_; ///< step()'s KV cache
  Observer observer_;
};

} // namespace st::frontend
