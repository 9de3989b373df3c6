// config.json reader (see model_config.h). Field names and defaults follow transformers'
// GPT2Config, LlamaConfig, Qwen2Config and Gemma3TextConfig.
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
  case Architecture::Qwen2:
    return "Qwen2ForCausalLM";
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

void readRopeScaling(const ConfigFields &f, ModelConfig &c) {
  if (!f.has("rope_scaling"))
    return;
  const json &r = f.raw()["rope_scaling"];
  if (!r.is_object())
    f.fail("rope_scaling", "an object or null");
  std::string type;
  if (r.contains("rope_type") && r["rope_type"].is_string())
    type = r["rope_type"].get<std::string>();
  else if (r.contains("type") && r["type"].is_string())
    type = r["type"].get<std::string>();
  auto number = [&](const char *key, double fallback) {
    if (!r.contains(key))
      return fallback;
    if (!r[key].is_number() || !(r[key].get<double>() > 0))
      f.fail(std::string("rope_scaling.") + key, "a positive number, got " + r[key].dump());
    return r[key].get<double>();
  };
  if (type == "default") {
    return;
  } else if (type == "linear") {
    c.ropeScaling.type = RopeScaling::Type::Linear;
    c.ropeScaling.factor = number("factor", 1.0);
  } else if (type == "llama3") {
    c.ropeScaling.type = RopeScaling::Type::Llama3;
    c.ropeScaling.factor = number("factor", 8.0);
    c.ropeScaling.lowFreqFactor = number("low_freq_factor", 1.0);
    c.ropeScaling.highFreqFactor = number("high_freq_factor", 4.0);
    c.ropeScaling.originalMaxPositions =
        static_cast<int64_t>(number("original_max_position_embeddings", 8192));
    if (c.ropeScaling.highFreqFactor <= c.ropeScaling.lowFreqFactor)
      f.fail("rope_scaling.high_freq_factor", "a value above low_freq_factor");
  } else {
    f.fail("rope_scaling.rope_type", "default, linear or llama3, got '" + type + "'");
  }
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
  if (arch == "GPT2LMHeadModel")
    c.architecture = Architecture::Gpt2;
  else if (arch == "LlamaForCausalLM")
    c.architecture = Architecture::Llama;
  else if (arch == "Qwen2ForCausalLM")
    c.architecture = Architecture::Qwen2;
  else if (arch == "Gemma3ForCausalLM")
    c.architecture = Architecture::Gemma3;
  else
    f.fail("architectures", "one of GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM, "
                            "Gemma3ForCausalLM, got '" +
                                arch + "'");

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
      f.fail("n_head", "a divisor of n_embd (" + std::to_string(c.hiddenSize) + ")");
    c.headDim = c.hiddenSize / c.numHeads;
    if (!f.boolean("scale_attn_weights", true))
      f.fail("scale_attn_weights", "true (unscaled attention is not supported)");
    if (f.boolean("scale_attn_by_inverse_layer_idx", false))
      f.fail("scale_attn_by_inverse_layer_idx", "false (not supported)");
    c.attentionBias = c.outputBias = c.mlpBias = true;
    c.attentionScale = 1.0 / std::sqrt(static_cast<double>(c.headDim));
    return c;
  }

  c.vocabSize = f.positiveInt("vocab_size");
  c.hiddenSize = f.positiveInt("hidden_size");
  c.intermediateSize = f.positiveInt("intermediate_size");
  c.numLayers = f.positiveInt("num_hidden_layers");
  c.numHeads = f.positiveInt("num_attention_heads");
  c.numKvHeads = f.positiveInt("num_key_value_heads", c.numHeads);
  if (c.numHeads % c.numKvHeads != 0)
    f.fail("num_key_value_heads",
           "a divisor of num_attention_heads (" + std::to_string(c.numHeads) + ")");
  c.maxPositions = f.positiveInt("max_position_embeddings");
  c.normEps =
      f.positiveNumber("rms_norm_eps", c.architecture == Architecture::Gemma3 ? 1e-6 : 1e-6);
  c.ropeTheta = f.positiveNumber("rope_theta", c.architecture == Architecture::Gemma3 ? 1e6 : 1e4);
  readRopeScaling(f, c);
  if (f.has("head_dim"))
    c.headDim = f.positiveInt("head_dim");
  else if (c.hiddenSize % c.numHeads == 0)
    c.headDim = c.hiddenSize / c.numHeads;
  else
    f.fail("num_attention_heads", "a divisor of hidden_size or an explicit head_dim");
  if (c.headDim % 2 != 0)
    f.fail("head_dim",
           "an even head dimension (rotary embedding), got " + std::to_string(c.headDim));
  c.attentionScale = 1.0 / std::sqrt(static_cast<double>(c.headDim));

  switch (c.architecture) {
  case Architecture::Llama:
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", false);
    c.hiddenAct = f.string("hidden_act", "silu");
    c.attentionBias = c.outputBias = f.boolean("attention_bias", false);
    c.mlpBias = f.boolean("mlp_bias", false);
    break;
  case Architecture::Qwen2:
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", false);
    c.hiddenAct = f.string("hidden_act", "silu");
    c.attentionBias = true;
    if (f.boolean("use_sliding_window", false))
      f.fail("use_sliding_window", "false (Qwen2 sliding-window attention is not supported)");
    break;
  case Architecture::Gemma3: {
    c.tiedEmbeddings = f.boolean("tie_word_embeddings", true);
    c.hiddenAct = f.string("hidden_activation", "gelu_pytorch_tanh");
    c.attentionBias = c.outputBias = f.boolean("attention_bias", false);
    f.mustBeNull("final_logit_softcapping", "logit softcapping is not supported");
    f.mustBeNull("attn_logit_softcapping", "attention softcapping is not supported");
    c.ropeLocalTheta = f.positiveNumber("rope_local_base_freq", 10000.0);
    c.slidingWindow = f.positiveInt("sliding_window", 4096);
    const double queryScalar = f.positiveNumber("query_pre_attn_scalar", 256);
    c.attentionScale = 1.0 / std::sqrt(queryScalar);
    if (f.has("layer_types")) {
      const json &types = j["layer_types"];
      if (!types.is_array() || static_cast<int64_t>(types.size()) != c.numLayers)
        f.fail("layer_types", "a list of " + std::to_string(c.numLayers) + " layer types");
      for (const auto &t : types) {
        const std::string s = t.is_string() ? t.get<std::string>() : t.dump();
        if (s != "sliding_attention" && s != "full_attention")
          f.fail("layer_types", "sliding_attention or full_attention entries, got " + s);
        c.layerIsSliding.push_back(s == "sliding_attention");
      }
    } else {
      const int64_t pattern = f.positiveInt("sliding_window_pattern", 6);
      for (int64_t l = 0; l < c.numLayers; ++l)
        c.layerIsSliding.push_back((l + 1) % pattern != 0);
    }
    break;
  }
  case Architecture::Gpt2:
    break;
  }
  if (c.architecture != Architecture::Gemma3 && c.hiddenAct != "silu")
    f.fail("hidden_act", "silu, got '" + c.hiddenAct + "'");
  if (c.architecture == Architecture::Gemma3 && c.hiddenAct != "gelu_pytorch_tanh" &&
      c.hiddenAct != "gelu_new")
    f.fail("hidden_activation", "gelu_pytorch_tanh, got '" + c.hiddenAct + "'");
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
