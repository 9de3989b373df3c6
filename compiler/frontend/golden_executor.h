// GoldenExecutor: the quantized, bit-exact golden model of a DecodeProgram. Same shape as the
// FloatExecutor (one decode step at a time, greedy decoding), but every op is a numerics:: golden
// kernel (docs/numerics.md §6) run on integer codes with the descriptors of a QuantizedModel;
// the KV cache is integer state (s8 codes per stage, run and name). It can record every op's
// output codes per step under "stage/run/op" (taps), from which the e2e simulation reports the
// first tensor, step and index where the RTL differs. A prefill runs the prompt's positions
// layer-major instead (every op over a block of rows at once, the linear layers as one batched
// integer matmul, the rows split over the cores) with the same per-row arithmetic: each row's
// codes, KV appends and argmax are the step's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/greedy_decode.h"
#include "frontend/quantized_model.h"
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
  /// What prefill keeps per row.
  struct PrefillOptions {
    /// With recordTaps(true): the "stage/run/op" keys to record (empty: every op).
    std::function<bool(const std::string &)> keepTap;
    bool logits = true;      ///< keep logitCodes and logits (else only nextToken)
    int64_t blockRows = 256; ///< rows run layer-major at a time (bounds the memory; >= 1)
  };
  /// Runs the steps of `tokens` at positions 0 .. P-1 on a fresh executor (after construction or
  /// reset()), as step(tokens[t], t) for t = 0 .. P-1 does: the same StepResult per row (taps
  /// as kept by `options`) and the same KV cache afterwards, so step(token, P) continues it.
  std::vector<StepResult> prefill(const std::vector<int64_t> &tokens,
                                  const PrefillOptions &options);
  void reset() { state_.clear(); }
  void recordTaps(bool on) { recordTaps_ = on; }

private:
  const ir::DecodeProgram &program_;
  const QuantizedModel &model_;
  int64_t stateRows_;
  bool recordTaps_ = false;
  std::map<std::string, std::vector<int32_t>> state_; ///< "stage/run/name" -> [rows x width]

  /// The cache of state tensor t of `stage`'s run `run`, zero-filled on first use.
  std::vector<int32_t> &stateOf(const ir::DecodeStage &stage, int64_t run, ir::TensorId t);
  /// One op of one stage run, as the program walk hands it to the op's computation.
  struct OpRun {
    const ir::DecodeStage &stage;
    int64_t run;
    const ir::Op &op;
    const QuantizedOp &quantized;
    /// The run's KV-cache tensors by id.
    const std::map<ir::TensorId, std::vector<int32_t> *> &states;
    /// The codes of the op's input i.
    std::function<const std::vector<int32_t> &(size_t)> in;
    /// Whether input i carries codes (a weight input's values are in the descriptor).
    std::function<bool(size_t)> hasCodes;
    std::string key() const { return QuantizedModel::key(stage.name, run, op.name); }
  };
  /// Walks every stage run in program order, each op in topological order, over `exchanged`
  /// (the stage inputs by name; each run's outputs are added): an op's output is what
  /// `compute` returns for it.
  void runProgram(std::map<std::string, std::vector<int32_t>> &exchanged,
                  const std::function<std::vector<int32_t>(const OpRun &)> &compute);
  /// Rows [first, first + rows) of the prompt, layer-major, into results[first ..].
  void prefillBlock(const std::vector<int64_t> &tokens, int64_t first, int64_t rows,
                    const PrefillOptions &options, std::vector<StepResult> &results);
};

} // namespace st::frontend
