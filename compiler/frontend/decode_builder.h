// Builds the DecodeProgram of one decode step for a supported Hugging Face architecture, and
// checks every weight the program binds against the WeightStore (presence and shape, one
// st::Error naming the weight file and tensor). All architecture knowledge of the compiler
// (GPT-2's fused Conv1D qkv, Gemma 3's (1+w) norms and local/global layers, Qwen2's qkv
// biases, Qwen3's per-head q/k norms, Mistral's sliding window, tied LM heads, Llama 3 RoPE
// scaling) lives here; the program it returns uses only
// the generic named ops of ir/llm_ops.h.
#pragma once

#include <string>

#include "frontend/model_config.h"
#include "frontend/weight_store.h"
#include "ir/decode_program.h"

namespace st::frontend {

/// Builds the program; may add derived weights to `weights` (e.g. transposed GPT-2 Conv1D
/// weights split into q, k, v) under names containing '#'.
ir::DecodeProgram buildDecodeProgram(const ModelConfig &config, WeightStore &weights);

/// RoPE inverse frequencies of transformers' rope initialisation for `base` and the scaling.
std::vector<double> ropeFrequencies(int64_t headDim, double base, const RopeScaling &scaling);

/// A model directory read and built: config.json, weights, program.
struct LoadedModel {
  ModelConfig config;
  WeightStore weights;
  ir::DecodeProgram program;
};
/// Where the weights come from: the directory's safetensors, seeded random values of the
/// shapes the program needs (--random-weights: only config.json is read), or shapes only (to
/// build and size the program of a full-size config without allocating its weights).
enum class WeightSource { Checkpoint, Random, ShapeOnly };
LoadedModel loadModel(const std::string &modelDir, WeightSource source = WeightSource::Checkpoint,
                      uint64_t seed = 0);

} // namespace st::frontend
