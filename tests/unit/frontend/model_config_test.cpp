// config.json reader: every accepted form of every key read (transformers 4.x and 5.x), one test
// each, checking the normalized values; and one test per rejected key or value, checking that
// the error names config.json, the key (exactly) and the value. The tables below are the cases;
// each case is its own test (ModelConfigForms/<name>, ModelConfigRejects/<name>).
#include "frontend/model_config.h"

#include <functional>

#include <nlohmann/json.hpp>

#include "support/error.h"
#include "test_files.h"

namespace st::frontend {
namespace {

using namespace st::frontend::testing;
using nlohmann::json;

/// Minimal valid configs per family, in neither RoPE form (defaults apply).
json base(Architecture a) {
  switch (a) {
  case Architecture::Gpt2:
    return json::parse(R"({"architectures":["GPT2LMHeadModel"],"vocab_size":50,"n_embd":48,
      "n_layer":2,"n_head":3,"n_positions":64})");
  case Architecture::Llama:
    return json::parse(R"({"architectures":["LlamaForCausalLM"],"vocab_size":50,"hidden_size":32,
      "intermediate_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":2,"max_position_embeddings":64})");
  case Architecture::Qwen2:
    return json::parse(R"({"architectures":["Qwen2ForCausalLM"],"vocab_size":50,"hidden_size":32,
      "intermediate_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":1,"max_position_embeddings":64})");
  case Architecture::Mistral:
    return json::parse(R"({"architectures":["MistralForCausalLM"],"vocab_size":50,
      "hidden_size":32,"intermediate_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":2,"max_position_embeddings":64,"sliding_window":8})");
  case Architecture::Qwen3:
    return json::parse(R"({"architectures":["Qwen3ForCausalLM"],"vocab_size":50,"hidden_size":32,
      "intermediate_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "num_key_value_heads":2,"head_dim":16,"max_position_embeddings":64})");
  case Architecture::Gemma3:
    return json::parse(R"({"architectures":["Gemma3ForCausalLM"],"vocab_size":64,
      "hidden_size":32,"intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":2,
      "num_key_value_heads":1,"head_dim":24,"max_position_embeddings":128,"sliding_window":4,
      "query_pre_attn_scalar":16,"layer_types":["sliding_attention","full_attention"]})");
  }
  return {};
}

/// `base(a)` with the top-level keys of `patch` set (null values included) and `remove` removed.
std::string configText(Architecture a, const std::string &patch,
                       const std::vector<std::string> &remove = {}) {
  json j = base(a);
  const json changes = json::parse(patch);
  for (const auto &[key, value] : changes.items())
    j[key] = value;
  for (const auto &key : remove)
    j.erase(key);
  return j.dump();
}

const char *kLlama3 = R"("rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,
  "high_freq_factor":4.0,"original_max_position_embeddings":16)";

// ----------------------------------------------------------------------------------------------
// Accepted forms.

struct FormCase {
  std::string name;
  Architecture arch;
  std::string patch;
  std::vector<std::string> remove;
  std::function<void(const ModelConfig &)> check;
};

void PrintTo(const FormCase &t, std::ostream *os) {
  *os << t.name;
}

void expectLlama3(const RopeScaling &s) {
  EXPECT_EQ(s.type, RopeScaling::Type::Llama3);
  EXPECT_DOUBLE_EQ(s.factor, 8.0);
  EXPECT_DOUBLE_EQ(s.lowFreqFactor, 1.0);
  EXPECT_DOUBLE_EQ(s.highFreqFactor, 4.0);
  EXPECT_EQ(s.originalMaxPositions, 16);
}

std::vector<FormCase> formCases() {
  using A = Architecture;
  using T = RopeScaling::Type;
  return {
      {"LlamaDefaultsWithoutRopeKeys",
       A::Llama,
       "{}",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 10000.0);
         EXPECT_EQ(c.rope.scaling.type, T::None);
         EXPECT_EQ(c.headDim, 8);
         EXPECT_FALSE(c.tiedEmbeddings);
         EXPECT_EQ(c.dtype, "");
       }},
      {"LlamaRopeTheta",
       A::Llama,
       R"({"rope_theta":500000.0,"rope_scaling":null})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         EXPECT_EQ(c.rope.scaling.type, T::None);
       }},
      {"LlamaRopeScalingLlama3",
       A::Llama,
       std::string(R"({"rope_theta":500000.0,"rope_scaling":{)") + kLlama3 + "}}",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         expectLlama3(c.rope.scaling);
       }},
      {"LlamaRopeScalingLegacyTypeKey",
       A::Llama,
       R"({"rope_scaling":{"type":"linear","factor":2.0}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.rope.scaling.type, T::Linear);
         EXPECT_DOUBLE_EQ(c.rope.scaling.factor, 2.0);
       }},
      {"LlamaRopeScalingDefaultType",
       A::Llama,
       R"({"rope_scaling":{"rope_type":"default"}})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.rope.scaling.type, T::None); }},
      {"LlamaRopeParametersFlatDefault",
       A::Llama,
       R"({"rope_parameters":{"rope_type":"default","rope_theta":500000.0}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         EXPECT_EQ(c.rope.scaling.type, T::None);
       }},
      {"LlamaRopeParametersFlatWithoutType",
       A::Llama,
       R"({"rope_parameters":{"rope_theta":250000.0}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 250000.0);
         EXPECT_EQ(c.rope.scaling.type, T::None);
       }},
      {"LlamaRopeParametersFlatLlama3",
       A::Llama,
       std::string(R"({"rope_parameters":{"rope_theta":500000.0,)") + kLlama3 + "}}",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         expectLlama3(c.rope.scaling);
       }},
      {"LlamaRopeParametersFlatLinear",
       A::Llama,
       R"({"rope_parameters":{"rope_type":"linear","factor":4.0,"rope_theta":20000.0}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 20000.0);
         EXPECT_EQ(c.rope.scaling.type, T::Linear);
         EXPECT_DOUBLE_EQ(c.rope.scaling.factor, 4.0);
       }},
      {"LlamaRopeParametersPerLayerType",
       A::Llama,
       std::string(R"({"rope_parameters":{"full_attention":{"rope_theta":500000.0,)") + kLlama3 +
           "}}}",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         expectLlama3(c.rope.scaling);
       }},
      {"LlamaBothFormsAgreeing",
       A::Llama,
       std::string(R"({"rope_theta":500000.0,"rope_scaling":{)") + kLlama3 +
           R"(},"rope_parameters":{"rope_theta":500000.0,)" + kLlama3 + "}}",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         expectLlama3(c.rope.scaling);
       }},
      {"LlamaPartialRotaryFactorOne",
       A::Llama,
       R"({"partial_rotary_factor":1.0,"rope_parameters":{"rope_theta":1e4,
         "partial_rotary_factor":1}})",
       {},
       [](const ModelConfig &c) { EXPECT_DOUBLE_EQ(c.rope.theta, 10000.0); }},
      {"LlamaLayerTypesAllFull",
       A::Llama,
       R"({"layer_types":["full_attention","full_attention"]})",
       {},
       [](const ModelConfig &c) { EXPECT_TRUE(c.layerIsSliding.empty()); }},
      {"LlamaNullKvHeadsMeansOnePerHead",
       A::Llama,
       R"({"num_key_value_heads":null})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.numKvHeads, 4); }},
      {"LlamaAbsentKvHeadsMeansOnePerHead",
       A::Llama,
       "{}",
       {"num_key_value_heads"},
       [](const ModelConfig &c) { EXPECT_EQ(c.numKvHeads, 4); }},
      {"Qwen2RopeTheta",
       A::Qwen2,
       R"({"rope_theta":1000000.0,"rope_scaling":null})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
         EXPECT_TRUE(c.attentionBias);
       }},
      {"Qwen2RopeParametersFlat",
       A::Qwen2,
       R"({"rope_parameters":{"rope_type":"default","rope_theta":1000000.0}})",
       {},
       [](const ModelConfig &c) { EXPECT_DOUBLE_EQ(c.rope.theta, 1e6); }},
      {"Qwen2LayerTypesAllFull",
       A::Qwen2,
       R"({"layer_types":["full_attention","full_attention"],"use_sliding_window":false,
         "sliding_window":null,"max_window_layers":28})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.numLayers, 2); }},
      {"Qwen2AbsentKvHeadsIsTransformersDefault32",
       A::Qwen2,
       R"({"num_attention_heads":32,"hidden_size":64})",
       {"num_key_value_heads"},
       [](const ModelConfig &c) { EXPECT_EQ(c.numKvHeads, 32); }},
      {"Gemma3DefaultsWithoutRopeKeys",
       A::Gemma3,
       "{}",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
         EXPECT_DOUBLE_EQ(c.ropeLocal.theta, 1e4);
         EXPECT_EQ(c.rope.scaling.type, T::None);
         EXPECT_EQ(c.layerIsSliding, (std::vector<bool>{true, false}));
         EXPECT_DOUBLE_EQ(c.attentionScale, 0.25);
         EXPECT_EQ(c.slidingWindow, 4);
         EXPECT_TRUE(c.tiedEmbeddings);
       }},
      {"Gemma3LegacyRopeKeys",
       A::Gemma3,
       R"({"rope_theta":500000.0,"rope_local_base_freq":1000.0,
         "rope_scaling":{"rope_type":"linear","factor":8.0}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         EXPECT_EQ(c.rope.scaling.type, T::Linear);
         EXPECT_DOUBLE_EQ(c.rope.scaling.factor, 8.0);
         EXPECT_DOUBLE_EQ(c.ropeLocal.theta, 1000.0);
         EXPECT_EQ(c.ropeLocal.scaling.type, T::None); // rope_scaling is for global layers only
       }},
      {"Gemma3RopeParametersPerLayerType",
       A::Gemma3,
       R"({"rope_parameters":{"full_attention":{"rope_type":"linear","factor":8.0,
         "rope_theta":500000.0},"sliding_attention":{"rope_type":"default","rope_theta":1000.0}}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         EXPECT_EQ(c.rope.scaling.type, T::Linear);
         EXPECT_DOUBLE_EQ(c.ropeLocal.theta, 1000.0);
         EXPECT_EQ(c.ropeLocal.scaling.type, T::None);
       }},
      {"Gemma3RopeParametersScaledSlidingLayers",
       A::Gemma3,
       R"({"rope_parameters":{"sliding_attention":{"rope_type":"linear","factor":2.0}}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
         EXPECT_DOUBLE_EQ(c.ropeLocal.theta, 1e4);
         EXPECT_EQ(c.ropeLocal.scaling.type, T::Linear);
       }},
      {"Gemma3BothFormsAgreeing",
       A::Gemma3,
       R"({"rope_theta":500000.0,"rope_local_base_freq":1000.0,"rope_scaling":null,
         "rope_parameters":{"full_attention":{"rope_type":"default","rope_theta":500000.0},
         "sliding_attention":{"rope_type":"default","rope_theta":1000.0}}})",
       {},
       [](const ModelConfig &c) {
         EXPECT_DOUBLE_EQ(c.rope.theta, 500000.0);
         EXPECT_DOUBLE_EQ(c.ropeLocal.theta, 1000.0);
       }},
      {"Gemma3SlidingWindowPattern",
       A::Gemma3,
       R"({"num_hidden_layers":4,"sliding_window_pattern":2})",
       {"layer_types"},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.layerIsSliding, (std::vector<bool>{true, false, true, false}));
       }},
      {"Gemma3DefaultPatternIsSix",
       A::Gemma3,
       R"({"num_hidden_layers":7})",
       {"layer_types"},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.layerIsSliding,
                   (std::vector<bool>{true, true, true, true, true, false, true}));
       }},
      {"Gemma3LayerTypesAndPatternAgreeing",
       A::Gemma3,
       R"({"num_hidden_layers":4,"sliding_window_pattern":2,"layer_types":["sliding_attention",
         "full_attention","sliding_attention","full_attention"]})",
       {},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.layerIsSliding, (std::vector<bool>{true, false, true, false}));
       }},
      {"Gemma3PrivatePatternCopyIsIgnored",
       A::Gemma3,
       R"({"_sliding_window_pattern":6})",
       {},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.layerIsSliding, (std::vector<bool>{true, false}));
       }},
      {"Gemma3TransformersDefaultsForHeadShape",
       A::Gemma3,
       R"({"num_attention_heads":8,"hidden_size":64})",
       {"head_dim", "num_key_value_heads"},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.headDim, 256);
         EXPECT_EQ(c.numKvHeads, 4);
       }},
      {"Gemma3NullSoftcapsAndCausal",
       A::Gemma3,
       R"({"final_logit_softcapping":null,"attn_logit_softcapping":null,
         "use_bidirectional_attention":false,"quantization_config":null})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.slidingWindow, 4); }},
      {"DtypeKey",
       A::Llama,
       R"({"dtype":"bfloat16"})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.dtype, "bfloat16"); }},
      {"TorchDtypeKey",
       A::Qwen2,
       R"({"torch_dtype":"float16"})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.dtype, "float16"); }},
      {"DtypeAndTorchDtypeAgreeing",
       A::Gemma3,
       R"({"dtype":"float32","torch_dtype":"float32"})",
       {},
       [](const ModelConfig &c) { EXPECT_EQ(c.dtype, "float32"); }},
      {"MistralSlidingWindowOnEveryLayer",
       A::Mistral,
       R"({"rope_parameters":{"rope_type":"default","rope_theta":1e6},"head_dim":null})",
       {},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.slidingWindow, 8);
         EXPECT_EQ(c.layerIsSliding, (std::vector<bool>{true, true}));
         EXPECT_DOUBLE_EQ(c.ropeLocal.theta, 1e6);
         EXPECT_EQ(c.headDim, 8);
         EXPECT_FALSE(c.attentionBias || c.outputBias || c.qkNorm);
       }},
      {"MistralNullWindowIsFullAttention",
       A::Mistral,
       R"({"sliding_window":null,"rope_theta":1000000.0})",
       {},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.slidingWindow, 0);
         EXPECT_TRUE(c.layerIsSliding.empty());
         EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
       }},
      {"MistralTransformersDefaults",
       A::Mistral,
       R"({"num_attention_heads":32,"hidden_size":512})",
       {"sliding_window", "num_key_value_heads"},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.slidingWindow, 4096);
         EXPECT_EQ(c.numKvHeads, 8);
         EXPECT_FALSE(c.tiedEmbeddings);
       }},
      {"Qwen3QkNormNoBiasExplicitHeadDim",
       A::Qwen3,
       R"({"attention_bias":false,"use_sliding_window":false,"sliding_window":null,
         "layer_types":["full_attention","full_attention"],"rope_theta":1000000})",
       {},
       [](const ModelConfig &c) {
         EXPECT_TRUE(c.qkNorm);
         EXPECT_FALSE(c.attentionBias || c.outputBias);
         EXPECT_EQ(c.headDim, 16); // not hidden / heads = 8
         EXPECT_TRUE(c.layerIsSliding.empty());
         EXPECT_DOUBLE_EQ(c.rope.theta, 1e6);
       }},
      {"Qwen3AttentionBiasOnQkvAndO",
       A::Qwen3,
       R"({"attention_bias":true})",
       {},
       [](const ModelConfig &c) { EXPECT_TRUE(c.attentionBias && c.outputBias); }},
      {"Qwen3TransformersDefaults",
       A::Qwen3,
       R"({"num_attention_heads":32})",
       {"head_dim", "num_key_value_heads"},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.headDim, 128);
         EXPECT_EQ(c.numKvHeads, 32);
         EXPECT_FALSE(c.tiedEmbeddings);
       }},
      {"Gpt2Defaults",
       A::Gpt2,
       R"({"n_inner":null,"dtype":"float32"})",
       {},
       [](const ModelConfig &c) {
         EXPECT_EQ(c.intermediateSize, 192);
         EXPECT_EQ(c.headDim, 16);
         EXPECT_TRUE(c.tiedEmbeddings);
         EXPECT_EQ(c.hiddenAct, "gelu_new");
       }},
  };
}

class ModelConfigForms : public ::testing::TestWithParam<FormCase> {};

TEST_P(ModelConfigForms, Reads) {
  const FormCase &t = GetParam();
  const ModelConfig c = parseModelConfig(configText(t.arch, t.patch, t.remove), "config.json");
  EXPECT_EQ(c.architecture, t.arch);
  t.check(c);
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelConfigForms, ::testing::ValuesIn(formCases()),
                         [](const auto &info) { return info.param.name; });

// ----------------------------------------------------------------------------------------------
// Rejected keys and values: one error naming config.json, the key and the value.

struct RejectCase {
  std::string name;
  Architecture arch;
  std::string patch;
  std::string key;      ///< Error::field(), exactly
  std::string contains; ///< a part of the message (the value, what was expected)
  std::vector<std::string> remove = {};
};

void PrintTo(const RejectCase &t, std::ostream *os) {
  *os << t.name;
}

std::vector<RejectCase> rejectCases() {
  using A = Architecture;
  return {
      {"RopeParametersYarn", A::Llama,
       R"({"rope_parameters":{"rope_type":"yarn","factor":4.0,"rope_theta":1e4}})",
       "rope_parameters.rope_type", "got 'yarn'"},
      {"RopeParametersDynamicPerLayerType", A::Gemma3,
       R"({"rope_parameters":{"full_attention":{"rope_type":"dynamic","factor":2.0}}})",
       "rope_parameters.full_attention.rope_type", "got 'dynamic'"},
      {"RopeScalingLongrope", A::Qwen2, R"({"rope_scaling":{"rope_type":"longrope"}})",
       "rope_scaling.rope_type", "got 'longrope'"},
      {"RopeScalingLegacyTypeYarn", A::Llama, R"({"rope_scaling":{"type":"yarn","factor":4}})",
       "rope_scaling.type", "got 'yarn'"},
      {"RopeScalingWithoutType", A::Llama, R"({"rope_scaling":{"factor":4.0}})",
       "rope_scaling.rope_type", "the key is missing"},
      {"RopeTypeAndTypeDisagreeing", A::Llama,
       R"({"rope_scaling":{"rope_type":"linear","type":"llama3","factor":4.0}})",
       "rope_scaling.type", "\"llama3\""},
      {"Llama3WithoutLowFreqFactor", A::Llama,
       R"({"rope_parameters":{"rope_type":"llama3","factor":8.0,"high_freq_factor":4.0,
         "original_max_position_embeddings":16}})",
       "rope_parameters.low_freq_factor", "rope_type llama3 needs it"},
      {"Llama3WithoutOriginalMaxPositions", A::Llama,
       R"({"rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,
         "high_freq_factor":4.0}})",
       "rope_scaling.original_max_position_embeddings", "rope_type llama3 needs it"},
      {"Llama3HighNotAboveLow", A::Llama,
       R"({"rope_scaling":{"rope_type":"llama3","factor":8.0,"low_freq_factor":4.0,
         "high_freq_factor":1.0,"original_max_position_embeddings":16}})",
       "rope_scaling.high_freq_factor", "got 1"},
      {"LinearWithoutFactor", A::Qwen2, R"({"rope_parameters":{"rope_type":"linear"}})",
       "rope_parameters.factor", "rope_type linear needs it"},
      {"PartialRotaryFactorTopLevel", A::Llama, R"({"partial_rotary_factor":0.5})",
       "partial_rotary_factor", "got 0.5"},
      {"PartialRotaryFactorInRopeParameters", A::Qwen2,
       R"({"rope_parameters":{"rope_theta":1e4,"partial_rotary_factor":0.25}})",
       "rope_parameters.partial_rotary_factor", "got 0.25"},
      {"RopeThetaNotPositive", A::Llama, R"({"rope_theta":-1})", "rope_theta", "got -1"},
      {"RopeParametersNotAnObject", A::Llama, R"({"rope_parameters":10000})", "rope_parameters",
       "got 10000"},
      {"RopeThetaDisagreeingWithRopeParameters", A::Llama,
       R"({"rope_theta":10000.0,"rope_parameters":{"rope_type":"default","rope_theta":500000.0}})",
       "rope_parameters.rope_theta", "rope_theta (10000)"},
      {"RopeScalingDisagreeingWithRopeParameters", A::Llama,
       std::string(R"({"rope_scaling":{)") + kLlama3 +
           R"(},"rope_parameters":{"rope_type":"default","rope_theta":500000.0}})",
       "rope_parameters.rope_type", "llama3 factor 8"},
      {"Llama3FactorsDisagreeingBetweenForms", A::Llama,
       std::string(R"({"rope_scaling":{)") + kLlama3 +
           R"(},"rope_parameters":{"rope_type":"llama3","factor":32.0,"low_freq_factor":1.0,
           "high_freq_factor":4.0,"original_max_position_embeddings":16}})",
       "rope_parameters.rope_type", "got llama3 factor 32"},
      {"RopeLocalBaseFreqDisagreeing", A::Gemma3,
       R"({"rope_local_base_freq":10000.0,"rope_parameters":{"sliding_attention":{
         "rope_type":"default","rope_theta":1000.0}}})",
       "rope_parameters.sliding_attention.rope_theta", "rope_local_base_freq (10000)"},
      {"Gemma3GlobalThetaDisagreeing", A::Gemma3,
       R"({"rope_theta":1000000.0,"rope_parameters":{"full_attention":{
         "rope_type":"default","rope_theta":500000.0}}})",
       "rope_parameters.full_attention.rope_theta", "rope_theta (1000000)"},
      {"Gemma3FlatRopeParameters", A::Gemma3,
       R"({"rope_parameters":{"rope_type":"default","rope_theta":500000.0}})", "rope_parameters",
       "one object per layer type"},
      {"RopeParametersMixingLayerTypesAndParameters", A::Gemma3,
       R"({"rope_parameters":{"full_attention":{"rope_theta":1e6},"rope_theta":1e4}})",
       "rope_parameters.rope_theta", "not both"},
      {"RopeParametersUnknownLayerType", A::Llama,
       R"({"rope_parameters":{"chunked_attention":{"rope_theta":1e4}}})",
       "rope_parameters.chunked_attention", "'chunked_attention'"},
      {"LayerTypesDisagreeingWithPattern", A::Gemma3, R"({"sliding_window_pattern":6})",
       "sliding_window_pattern", "got 6"},
      {"LayerTypesWrongLength", A::Gemma3, R"({"layer_types":["full_attention"]})", "layer_types",
       "a list of 2 layer types"},
      {"LayerTypesUnknownEntry", A::Gemma3,
       R"({"layer_types":["sliding_attention","chunked_attention"]})", "layer_types[1]",
       "got 'chunked_attention'"},
      {"Qwen2SlidingLayerType", A::Qwen2,
       R"({"layer_types":["full_attention","sliding_attention"]})", "layer_types[1]",
       "Qwen2 sliding-window attention is not supported"},
      {"Qwen2UseSlidingWindow", A::Qwen2, R"({"use_sliding_window":true})", "use_sliding_window",
       "got true"},
      {"LlamaSlidingLayerType", A::Llama,
       R"({"layer_types":["sliding_attention","full_attention"]})", "layer_types[0]",
       "got 'sliding_attention'"},
      {"DtypeUnknown", A::Llama, R"({"dtype":"int8"})", "dtype", "got 'int8'"},
      {"DtypeAndTorchDtypeDisagreeing", A::Llama, R"({"dtype":"bfloat16","torch_dtype":"float32"})",
       "torch_dtype", "got 'float32'"},
      {"FinalLogitSoftcapping", A::Gemma3, R"({"final_logit_softcapping":30.0})",
       "final_logit_softcapping", "got 30.0"},
      {"AttnLogitSoftcapping", A::Gemma3, R"({"attn_logit_softcapping":50.0})",
       "attn_logit_softcapping", "got 50.0"},
      {"BidirectionalAttention", A::Gemma3, R"({"use_bidirectional_attention":true})",
       "use_bidirectional_attention", "got true"},
      {"Gemma3NullSlidingWindow", A::Gemma3, R"({"sliding_window":null})", "sliding_window",
       "got null"},
      {"QuantizationConfig", A::Llama, R"({"quantization_config":{"quant_method":"gptq"}})",
       "quantization_config", "gptq"},
      {"LlamaActivation", A::Llama, R"({"hidden_act":"gelu"})", "hidden_act", "got 'gelu'"},
      {"Qwen2Activation", A::Qwen2, R"({"hidden_act":"relu"})", "hidden_act", "got 'relu'"},
      {"Gemma3Activation", A::Gemma3, R"({"hidden_activation":"gelu"})", "hidden_activation",
       "got 'gelu'"},
      {"Gpt2Activation", A::Gpt2, R"({"activation_function":"relu"})", "activation_function",
       "got 'relu'"},
      {"Gpt2CrossAttention", A::Gpt2, R"({"add_cross_attention":true})", "add_cross_attention",
       "got true"},
      {"Gpt2UnscaledAttention", A::Gpt2, R"({"scale_attn_weights":false})", "scale_attn_weights",
       "got false"},
      {"Gpt2LayerScaledAttention", A::Gpt2, R"({"scale_attn_by_inverse_layer_idx":true})",
       "scale_attn_by_inverse_layer_idx", "got true"},
      {"KvHeadsNotDividingHeads", A::Llama, R"({"num_key_value_heads":3})", "num_key_value_heads",
       "got 3"},
      {"KvHeadsNegative", A::Gemma3, R"({"num_key_value_heads":-3})", "num_key_value_heads",
       "a positive integer, got -3"},
      {"OddHeadDim", A::Llama, R"({"head_dim":7})", "head_dim", "got 7"},
      {"MissingHiddenSize", A::Llama, "{}", "hidden_size", "missing", {"hidden_size"}},
      {"UnsupportedArchitecture", A::Llama, R"({"architectures":["MixtralForCausalLM"]})",
       "architectures", "got 'MixtralForCausalLM'"},
      {"MistralWindowNotPositive", A::Mistral, R"({"sliding_window":0})", "sliding_window",
       "got 0"},
      {"MistralActivation", A::Mistral, R"({"hidden_act":"gelu"})", "hidden_act", "got 'gelu'"},
      {"Qwen3UseSlidingWindow", A::Qwen3, R"({"use_sliding_window":true})", "use_sliding_window",
       "Qwen3 sliding-window attention is not supported"},
      {"Qwen3SlidingLayerType", A::Qwen3,
       R"({"layer_types":["full_attention","sliding_attention"]})", "layer_types[1]",
       "Qwen3 sliding-window attention is not supported"},
      {"Qwen3OddHeadDim", A::Qwen3, R"({"head_dim":9})", "head_dim", "got 9"},
  };
}

class ModelConfigRejects : public ::testing::TestWithParam<RejectCase> {};

TEST_P(ModelConfigRejects, WithOneErrorNamingKeyAndValue) {
  const RejectCase &t = GetParam();
  try {
    parseModelConfig(configText(t.arch, t.patch, t.remove), "m/config.json");
    ADD_FAILURE() << "expected an st::Error for " << t.key;
  } catch (const Error &e) {
    EXPECT_EQ(e.file(), "m/config.json");
    EXPECT_EQ(e.field(), t.key) << e.what();
    EXPECT_NE(std::string(e.what()).find(t.contains), std::string::npos)
        << "message '" << e.what() << "' lacks '" << t.contains << "'";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelConfigRejects, ::testing::ValuesIn(rejectCases()),
                         [](const auto &info) { return info.param.name; });

// ----------------------------------------------------------------------------------------------
// Files.

TEST(ModelConfig, CorruptJsonIsAnError) {
  expectError([] { parseModelConfig("{\"architectures\": [", "x/config.json"); },
              {"x/config.json", "config", "valid JSON"});
}

TEST(ModelConfig, MissingConfigFileIsAnError) {
  auto dir = scratchDir();
  expectError([&] { readModelConfig(dir.string()); }, {"config.json", "file"});
}

} // namespace
} // namespace st::frontend
