// ModelConfig: the architecture hyper-parameters read from a Hugging Face config.json, for the
// six supported families (GPT2LMHeadModel, LlamaForCausalLM, MistralForCausalLM,
// Qwen2ForCausalLM, Qwen3ForCausalLM, Gemma3ForCausalLM text), in the forms transformers 4.x
// and 5.x write (rope_theta/rope_scaling or rope_parameters, sliding_window_pattern or layer_types,
// torch_dtype or dtype; where a config carries both forms they must agree). Values are normalized
// (GPT-2's n_embd becomes hiddenSize, defaults filled in as transformers fills them) and validated:
// an unsupported architecture or a value that would change the math in a way the builders do not
// implement (a softcap, an unknown activation or RoPE type, partial rotary, Qwen2/Qwen3 sliding
// windows, a pre-quantized checkpoint) ends in one st::Error naming config.json, the key and its
// value. Every key read, its default and the rejected values are tabled in docs/frontend.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/rope_config.h"

namespace st::frontend {

enum class Architecture { Gpt2, Llama, Mistral, Qwen2, Qwen3, Gemma3 };
std::string toString(Architecture a);

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
  bool attentionBias = false; ///< bias on q, k, v (Qwen2 always; attention_bias of the others)
  bool outputBias = false;    ///< bias on o_proj (attention_bias of Llama, Qwen3, Gemma 3)
  bool mlpBias = false;
  RopeSettings rope;                ///< full-attention layers (all layers but Gemma 3's local ones)
  RopeSettings ropeLocal;           ///< sliding-window layers (Gemma 3's; Mistral's: as `rope`)
  double attentionScale = 0.0;      ///< multiplies q.k
  int64_t slidingWindow = 0;        ///< Gemma 3 local layers' window, Mistral's (every layer)
  std::vector<bool> layerIsSliding; ///< per layer (Gemma 3; Mistral with a window: all)
  bool qkNorm = false;              ///< per-head RMSNorm of q and k (Gemma 3, Qwen3)
  /// The checkpoint's dtype ("float32", "float16", "bfloat16"; empty when the config names
  /// none). Informative: weights are converted to fp32 and the reference runs in fp32.
  std::string dtype;
};

/// Reads and validates <modelDir>/config.json.
ModelConfig readModelConfig(const std::string &modelDir);
/// Parses config.json text (`file` names it in errors).
ModelConfig parseModelConfig(const std::string &text, const std::string &file);

} // namespace st::frontend
