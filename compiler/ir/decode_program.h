// DecodeProgram: one decode step of a decoder-only LLM as a sequence of stage graphs. Each stage
// is a TensorGraph run `repeat` times (1 for the prologue and epilogue, numLayers for the block),
// with one LayerBinding per run saying which stored weight each constant tensor of the graph is
// for that run and which attribute values (e.g. a Gemma 3 local layer's window and RoPE base)
// replace those of named ops. Stages exchange named vector tensors: a stage input named like an
// output of an earlier stage (or of the previous run of the same stage, e.g. "x") takes its
// value. The runtime scalars are the inputs "token" and "pos" ([1], i32). State tensors (the KV
// cache) are kept per stage, run and name across steps. Weights are held by name elsewhere (the
// front-end's WeightStore); the program is architecture-neutral.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/llm_ops.h"
#include "ir/tensor_graph.h"

namespace st::ir {

struct LayerBinding {
  /// Constant tensor name in the stage graph -> stored weight name.
  std::map<std::string, std::string> weights;
  /// Op name -> attributes replacing the op's own for this run.
  std::map<std::string, LlmAttributes> attributes;
};

struct DecodeStage {
  std::string name;
  TensorGraph graph;
  int64_t repeat = 1;
  std::vector<LayerBinding> bindings; ///< one per run (size == repeat)
  /// Output tensor name -> the name it is exchanged under (default: its own name), e.g. the
  /// block's "x_next" is exported as "x" for the next run and the next stage.
  std::map<std::string, std::string> exportAs;

  std::string exportedName(const std::string &tensorName) const {
    auto it = exportAs.find(tensorName);
    return it == exportAs.end() ? tensorName : it->second;
  }
};

struct DecodeProgram {
  std::string architecture; ///< for messages only; nothing below the front-end branches on it
  int64_t vocabSize = 0;
  int64_t maxPositions = 0; ///< rows of every State tensor
  std::vector<DecodeStage> stages;

  /// Names of the runtime scalar inputs.
  static constexpr const char *kTokenInput = "token";
  static constexpr const char *kPositionInput = "pos";
  /// The epilogue tensors the step returns.
  static constexpr const char *kLogitsOutput = "logits";
  static constexpr const char *kNextTokenOutput = "next_token";

  /// Verifies every stage graph and binding: each constant bound in every run, bindings name
  /// existing tensors and ops with attributes of the op's kind, every non-scalar input fed by an
  /// earlier stage, the epilogue ends in logits and next_token. Throws st::Error.
  void verify() const;
  std::string toString() const;
  /// Elements of the distinct stored weights the stages bind (a tied embedding, bound as table
  /// and LM head, counts once): the model's parameters.
  int64_t parameterCount() const;
};

} // namespace st::ir
