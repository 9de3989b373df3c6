// config.json reader (see model_config.h). Field names and defaults follow transformers'
// GPT2Config, LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config and Gemma3TextConfig (4.57
// and 5.x agree on every default read here); RoPE keys in either form are read by rope_config.cpp.
#include "frontend/model_config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace st::frontend {

using nlohmann::json;

std::string toString(Architecture a) {
  switch (a) {
  case Architecture::Gpt2:
    return "GPT2LMHeadModel";
  case Architecture::Llama:
    return "LlamaForCausalLM";
  case Architecture::Mistral:
    return "MistralForCausalLM";
  case Architecture::Qwen2:
    return "Qwen2ForCausalLM";
  case Architecture::Qwen3:
    return "Qwen3ForCausalLM";
  case Architecture::Gemma3:
    return "Gemma3ForCausalLM";
  }
  return "?";
}

namespace {

/// Typed access to config.json fields with errors naming the file and the field.
class ConfigFields {
public:
  ConfigFields(const json &j, std::string file) : j_(j), file_(std::move(file)) {}

  bool has(const std::string &key) const { return j_.contains(key) && !j_[key].is_null(); }

  int64_t positiveInt(const std::string &key) const {
    if (!has(key))
      fail(key, "a positive integer (the field is missing)");
    return positiveIntValue(key, j_[key]);
  }
  int64_t positiveInt(const std::string &key, int64_t fallback) const {
    return has(key) ? positiveIntValue(key, j_[key]) : fallback;
  }
  double positiveNumber(const std::string &key, double fallback) const {
    if (!has(key))
      return fallback;
    if (!j_[key].is_number() || !(j_[key].get<double>() > 0))
      fail(key, "a positive number, got " + j_[key].dump());
    return j_[key].get<double>();
  }
  bool boolean(const std::string &key, bool fallback) const {
    if (!has(key))
      return fallback;
    if (!j_[key].is_boolean())
      fail(key, "true or false, got " + j_[key].dump());
    return j_[key].get<bool>();
  }
  std::string string(const std::string &key, const std::string &fallback) const {
    if (!has(key))
      return fallback;
    if (!j_[key].is_string())
      fail(key, "a string, got " + j_[key].dump());
    return j_[key].get<std::string>();
  }
  void mustBeNull(const std::string &key, const std::string &why) const {
    if (has(key))
      fail(key, "null or absent (" + why + "), got " + j_[key].dump());
  }
  [[noreturn]] void fail(const std::string &key, const std::string &expected) const {
    throw Error(file_, key, expected);
  }
  const json &raw() const { return j_; }

private:
  int64_t positiveIntValue(const std::string &key, const json &v) const {
    if (!v.is_number_integer() || v.get<int64_t>() < 1)
      fail(key, "a positive integer, got " + v.dump());
    return v.get<int64_t>();
  }
  const json &j_;
  std::string file_;
};

constexpr const char *kFullAttention = "full_attention";
constexpr const char *kSlidingAttention = "sliding_attention";

/// dtype (transformers >= 4.56) and torch_dtype (older): informative, but both must agree.
std::string readDtype(const ConfigFields &f) {
  std::string dtype;
  for (const char *key : {"dtype", "torch_dtype"}) {
    if (!f.has(key))
      continue;
    const std::string v = f.string(key, "");
    if (v != "float32" && v != "float16" && v != "bfloat16")
      f.fail(key, "float32, float16 or bfloat16, got '" + v + "'");
    if (!dtype.empty() && v != dtype)
      f.fail(key, "the same dtype as dtype ('" + dtype +
                      "'): the config carries both forms and they must agree; got '" + v + "'");
    dtype = v;
  }
  return dtype;
}

/// layer_types as sliding flags, one entry per layer: full_attention, or sliding_attention where
/// the family has sliding-window layers (else rejected, saying `whyNoSliding`).
std::vector<bool> readLayerTypes(const ConfigFields &f, int64_t numLayers, bool slidingAllowed,
                                 const std::string &whyNoSliding) {
  const json &types = f.raw()["layer_types"];
  if (!types.is_array() || static_cast<int64_t>(types.size()) != numLayers)
    f.fail("layer_types", "a list of " + std::to_string(numLayers) +
                              " layer types (num_hidden_layers), got " + types.dump());
  std::vector<bool> sliding;
  for (size_t l = 0; l < types.size(); ++l) {
    const std::string s = types[l].is_string() ? types[l].get<std::string>() : types[l].dump();
    const std::string key = "layer_types[" + std::to_string(l) + "]";
    if (s == kSlidingAttention && !slidingAllowed)
      f.fail(key, "full_attention (" + whyNoSliding + "), got 'sliding_attention'");
    if (s != kSlidingAttention && s != kFullAttention)
      f.fail(key, std::string(slidingAllowed ? "sliding_attention or full_attention"
                                             : "full_attention") +
                      ", got '" + s + "'");
    sliding.push_back(s == kSlidingAttention);
  }
  return sliding;
}

/// Gemma 3: layer_types, or the older sliding_window_pattern (every pattern-th layer is global;
/// transformers' default 6); both present must agree. transformers 4.5x also writes
/// "_sliding_window_pattern", a private copy it never reads back: ignored.
std::vector<bool> readGemmaLayerKinds(const ConfigFields &f, int64_t numLayers) {
  std::vector<bool> fromPattern;
  const int64_t pattern = f.positiveInt("sliding_window_pattern", 6);
  for (int64_t l = 0; l < numLayers; ++l)
    fromPattern.push_back((l + 1) % pattern != 0);
  if (!f.has("layer_types"))
    return fromPattern;
  std::vector<bool> fromTypes = readLayerTypes(f, numLayers, true, "");
  if (f.has("sliding_window_pattern") && fromTypes != fromPattern)
    f.fail("sliding_window_pattern",
           "a pattern that gives layer_types (the config carries both forms and they must "
           "agree), got " +
               std::to_string(pattern));
  return fromTypes;
}

/// Keys whose non-default values change the math in a way the builders do not implement.
void rejectUnsupported(const ConfigFields &f) {
  if (f.has("quantization_config"))
    f.fail("quantization_config",
           "null or absent (pre-quantized checkpoints are not supported: streamtensor quantizes "
           "floating-point weights itself), got " +
               f.raw()["quantization_config"].dump());
}

/// num_key_value_heads when the key is absent, as each family's transformers config class.
int64_t defaultKvHeads(Architecture a, int64_t numHeads) {
  switch (a) {
  case Architecture::Gemma3:
    return 4;
  case Architecture::Mistral:
    return 8;
  case Architecture::Qwen2:
  case Architecture::Qwen3:
    return 32;
  default:
    return numHeads;
  }
}

/// Mistral: sliding_window is every layer's window (MistralConfig's default 4096 when absent);
/// null means full attention. The local layers use the same RoPE as the others.
void readMistralWindow(const ConfigFields &f, ModelConfig &c) {
  if (f.raw().contains("sliding_window") && !f.has("sliding_window"))
    return; // null: full attention on every layer
  c.slidingWindow = f.positiveInt("sliding_window", 4096);
  c.layerIsSliding.assign(static_cast<size_t>(c.numLayers), true);
  c.ropeLocal = c.rope;
}

/// The keys of one family beyond the shared ones (after the head shape and RoPE are read):
/// tied head, activation, biases, q/k norms, sliding windows and Gemma 3's attention scale.
void readFamilyKeys(const ConfigFields &f, ModelConfig &c) {
  switch (c.architecture) {
  case Architecture::Llama:
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", false);
    c.hiddenAct = f.string("hidden_act", "silu");
    c.attentionBias = c.outputBias = f.boolean("attention_bias", false);
    c.mlpBias = f.boolean("mlp_bias", false);
    if (f.has("layer_types"))
      readLayerTypes(f, c.numLayers, false, "Llama has no sliding-window layers");
    break;
  case Architecture::Mistral:
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", false);
    c.hiddenAct = f.string("hidden_act", "silu");
    readMistralWindow(f, c);
    break;
  case Architecture::Qwen2:
  case Architecture::Qwen3: {
    const bool qwen3 = c.architecture == Architecture::Qwen3;
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", false);
    c.hiddenAct = f.string("hidden_act", "silu");
    // Qwen2 always has q/k/v biases; Qwen3 has none unless attention_bias (then o_proj too).
    c.attentionBias = !qwen3 || f.boolean("attention_bias", false);
    c.outputBias = qwen3 && c.attentionBias;
    c.qkNorm = qwen3;
    const std::string family = qwen3 ? "Qwen3" : "Qwen2";
    if (f.boolean("use_sliding_window", false))
      f.fail("use_sliding_window",
             "false (" + family + " sliding-window attention is not supported), got true");
    if (f.has("layer_types"))
      readLayerTypes(f, c.numLayers, false, family + " sliding-window attention is not supported");
    break;
  }
  case Architecture::Gemma3: {
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", true);
    c.hiddenAct = f.string("hidden_activation", "gelu_pytorch_tanh");
    c.attentionBias = c.outputBias = f.boolean("attention_bias", false);
    f.mustBeNull("final_logit_softcapping", "logit softcapping is not supported");
    f.mustBeNull("attn_logit_softcapping", "attention softcapping is not supported");
    if (f.boolean("use_bidirectional_attention", false))
      f.fail("use_bidirectional_attention",
             "false (decoding is causal; bidirectional attention is not supported), got true");
    if (f.raw().contains("sliding_window") && !f.has("sliding_window"))
      f.fail("sliding_window", "a positive integer (the local layers' window), got null");
    c.slidingWindow = f.positiveInt("sliding_window", 4096);
    const double queryScalar = f.positiveNumber("query_pre_attn_scalar", 256);
    c.attentionScale = 1.0 / std::sqrt(queryScalar);
    c.layerIsSliding = readGemmaLayerKinds(f, c.numLayers);
    c.qkNorm = true;
    break;
  }
  case Architecture::Gpt2:
    break;
  }
  if (c.architecture != Architecture::Gemma3 && c.hiddenAct != "silu")
    f.fail("hidden_act", "silu, got '" + c.hiddenAct + "'");
  if (c.architecture == Architecture::Gemma3 && c.hiddenAct != "gelu_pytorch_tanh" &&
      c.hiddenAct != "gelu_new")
    f.fail("hidden_activation", "gelu_pytorch_tanh or gelu_new, got '" + c.hiddenAct + "'");
}

} // namespace

ModelConfig parseModelConfig(const std::string &text, const std::string &file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception &e) {
    throw Error(file, "config", std::string("valid JSON (") + e.what() + ")");
  }
  if (!j.is_object())
    throw Error(file, "config", "a JSON object");
  ConfigFields f(j, file);
  ModelConfig c;
  c.file = file;
  if (!f.has("architectures") || !j["architectures"].is_array() || j["architectures"].size() != 1 ||
      !j["architectures"][0].is_string())
    f.fail("architectures", "a list with one architecture name");
  const std::string arch = j["architectures"][0].get<std::string>();
  bool known = false;
  std::string names;
  for (Architecture a : {Architecture::Gpt2, Architecture::Llama, Architecture::Mistral,
                         Architecture::Qwen2, Architecture::Qwen3, Architecture::Gemma3}) {
    names += (names.empty() ? "" : ", ") + toString(a);
    if (arch == toString(a)) {
      c.architecture = a;
      known = true;
    }
  }
  if (!known)
    f.fail("architectures", "one of " + names + ", got '" + arch + "'");

  c.dtype = readDtype(f);
  rejectUnsupported(f);

  if (c.architecture == Architecture::Gpt2) {
    c.vocabSize = f.positiveInt("vocab_size");
    c.hiddenSize = f.positiveInt("n_embd");
    c.numLayers = f.positiveInt("n_layer");
    c.numHeads = f.positiveInt("n_head");
    c.numKvHeads = c.numHeads;
    c.maxPositions = f.positiveInt("n_positions");
    c.intermediateSize = f.positiveInt("n_inner", 4 * c.hiddenSize);
    c.normEps = f.positiveNumber("layer_norm_epsilon", 1e-5);
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", true);
    c.hiddenAct = f.string("activation_function", "gelu_new");
    if (c.hiddenAct != "gelu_new" && c.hiddenAct != "gelu" && c.hiddenAct != "gelu_pytorch_tanh")
      f.fail("activation_function",
             "gelu_new, gelu or gelu_pytorch_tanh, got '" + c.hiddenAct + "'");
    if (c.hiddenSize % c.numHeads != 0)
      f.fail("n_head", "a divisor of n_embd (" + std::to_string(c.hiddenSize) + "), got " +
                           std::to_string(c.numHeads));
    c.headDim = c.hiddenSize / c.numHeads;
    if (!f.boolean("scale_attn_weights", true))
      f.fail("scale_attn_weights", "true (unscaled attention is not supported), got false");
    if (f.boolean("scale_attn_by_inverse_layer_idx", false))
      f.fail("scale_attn_by_inverse_layer_idx", "false (not supported), got true");
    if (f.boolean("add_cross_attention", false))
      f.fail("add_cross_attention",
             "false (a decoder-only model has no cross-attention), got true");
    c.attentionBias = c.outputBias = c.mlpBias = true;
    c.attentionScale = 1.0 / std::sqrt(static_cast<double>(c.headDim));
    return c;
  }

  const bool gemma = c.architecture == Architecture::Gemma3;
  c.vocabSize = f.positiveInt("vocab_size");
  c.hiddenSize = f.positiveInt("hidden_size");
  c.intermediateSize = f.positiveInt("intermediate_size");
  c.numLayers = f.positiveInt("num_hidden_layers");
  c.numHeads = f.positiveInt("num_attention_heads");
  // transformers' defaults when the key is absent: Gemma 3 4, Mistral 8, Qwen2 and Qwen3 32;
  // null (and Llama's absent) means one kv head per query head.
  if (f.raw().contains("num_key_value_heads") && !f.has("num_key_value_heads"))
    c.numKvHeads = c.numHeads;
  else
    c.numKvHeads = f.positiveInt("num_key_value_heads", defaultKvHeads(c.architecture, c.numHeads));
  if (c.numHeads % c.numKvHeads != 0)
    f.fail("num_key_value_heads", "a divisor of num_attention_heads (" +
                                      std::to_string(c.numHeads) + "), got " +
                                      std::to_string(c.numKvHeads));
  c.maxPositions = f.positiveInt("max_position_embeddings");
  c.normEps = f.positiveNumber("rms_norm_eps", 1e-6);
  RopeDefaults ropeDefaults;
  ropeDefaults.fullTheta = gemma ? 1e6 : 1e4;
  ropeDefaults.slidingTheta = 1e4;
  ropeDefaults.perLayerType = gemma;
  const RopeConfig rope = readRopeConfig(j, file, ropeDefaults);
  c.rope = rope.full;
  c.ropeLocal = rope.sliding;
  if (f.has("head_dim"))
    c.headDim = f.positiveInt("head_dim");
  else if (gemma)
    c.headDim = 256; // Gemma3TextConfig's default
  else if (c.architecture == Architecture::Qwen3)
    c.headDim = 128; // Qwen3Config's default (not hidden / heads)
  else if (c.hiddenSize % c.numHeads == 0)
    c.headDim = c.hiddenSize / c.numHeads;
  else
    f.fail("num_attention_heads", "a divisor of hidden_size or an explicit head_dim");
  if (c.headDim % 2 != 0)
    f.fail("head_dim",
           "an even head dimension (rotary embedding), got " + std::to_string(c.headDim));
  c.attentionScale = 1.0 / std::sqrt(static_cast<double>(c.headDim));

  readFamilyKeys(f, c);
  return c;
}

ModelConfig readModelConfig(const std::string &modelDir) {
  const std::string path = (std::filesystem::path(modelDir) / "config.json").string();
  std::ifstream in(path);
  if (!in)
    throw Error(path, "file", "a readable config.json in the model directory");
  std::stringstream text;
  text << in.rdbuf();
  return parseModelConfig(text.str(), path);
}

} // namespace st::frontend
