// ModelConfig: the architecture hyper-parameters read from a Hugging Face config.json, for the
// four supported families (GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM,
// Gemma3ForCausalLM text). Values are normalized (GPT-2's n_embd becomes hiddenSize, defaults
// filled in as transformers fills them) and validated: an unsupported architecture or a value
// the builders cannot honour (e.g. a softcap, an unknown activation, a rope scaling type other
// than llama3/linear) ends in one st::Error naming config.json and the field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace st::frontend {

enum class Architecture { Gpt2, Llama, Qwen2, Gemma3 };
std::string toString(Architecture a);

/// Llama 3 RoPE frequency scaling ("rope_type": "llama3") or linear scaling ("linear").
struct RopeScaling {
  enum class Type { None, Linear, Llama3 } type = Type::None;
  double factor = 1.0;
  double lowFreqFactor = 1.0;
  double highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
};

struct ModelConfig {
  std::string file; ///< the config.json path, for error messages
  Architecture architecture = Architecture::Llama;
  int64_t vocabSize = 0;
  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  int64_t maxPositions = 0;
  double normEps = 1e-5;
  bool tiedEmbeddings = false;
  std::string hiddenAct;      ///< gelu_new, gelu, silu, gelu_pytorch_tanh
  bool attentionBias = false; ///< bias on q, k, v (Qwen2 always; Llama's attention_bias)
  bool outputBias = false;    ///< bias on o_proj (Llama's attention_bias)
  bool mlpBias = false;
  double ropeTheta = 10000.0;
  double ropeLocalTheta = 10000.0; ///< Gemma 3 sliding-window layers
  RopeScaling ropeScaling;
  double attentionScale = 0.0;      ///< multiplies q.k
  int64_t slidingWindow = 0;        ///< Gemma 3 local layers' window
  std::vector<bool> layerIsSliding; ///< per layer (Gemma 3)
};

/// Reads and validates <modelDir>/config.json.
ModelConfig readModelConfig(const std::string &modelDir);
/// Parses config.json text (`file` names it in errors).
ModelConfig parseModelConfig(const std::string &text, const std::string &file);

} // namespace st::frontend
