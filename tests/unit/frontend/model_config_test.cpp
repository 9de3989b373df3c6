// config.json reader: normalized values per family and one test per rejected value, each
// checking the message names config.json and the field.
#include "frontend/model_config.h"

#include "support/error.h"
#include "test_files.h"

namespace st::frontend {
namespace {

using namespace st::frontend::testing;

const char *kGemma = R"({"architectures":["Gemma3ForCausalLM"],"vocab_size":64,"hidden_size":32,
  "intermediate_size":48,"num_hidden_layers":2,"num_attention_heads":2,"num_key_value_heads":1,
  "head_dim":24,"max_position_embeddings":128,"rms_norm_eps":1e-6,"rope_theta":1000000.0,
  "rope_local_base_freq":10000.0,"sliding_window":4,"query_pre_attn_scalar":16,
  "layer_types":["sliding_attention","full_attention"],"final_logit_softcapping":null,
  "attn_logit_softcapping":null,"hidden_activation":"gelu_pytorch_tanh"})";

TEST(ModelConfig, ReadsGemma3) {
  ModelConfig c = parseModelConfig(kGemma, "config.json");
  EXPECT_EQ(c.architecture, Architecture::Gemma3);
  EXPECT_EQ(c.headDim, 24);
  EXPECT_EQ(c.numKvHeads, 1);
  EXPECT_TRUE(c.tiedEmbeddings);
  EXPECT_EQ(c.layerIsSliding, (std::vector<bool>{true, false}));
  EXPECT_DOUBLE_EQ(c.attentionScale, 0.25);
  EXPECT_DOUBLE_EQ(c.ropeLocalTheta, 10000.0);
  EXPECT_EQ(c.slidingWindow, 4);
}

TEST(ModelConfig, ReadsGpt2Defaults) {
  ModelConfig c = parseModelConfig(R"({"architectures":["GPT2LMHeadModel"],"vocab_size":50,
    "n_embd":48,"n_layer":2,"n_head":3,"n_positions":64})",
                                   "config.json");
  EXPECT_EQ(c.intermediateSize, 192);
  EXPECT_EQ(c.headDim, 16);
  EXPECT_TRUE(c.tiedEmbeddings);
  EXPECT_EQ(c.hiddenAct, "gelu_new");
}

TEST(ModelConfig, ReadsLlama3RopeScaling) {
  ModelConfig c = parseModelConfig(R"({"architectures":["LlamaForCausalLM"],"vocab_size":50,
    "hidden_size":32,"intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":4,
    "num_key_value_heads":2,"max_position_embeddings":64,"rope_theta":500000.0,
    "rope_scaling":{"rope_type":"llama3","factor":32.0,"low_freq_factor":1.0,
    "high_freq_factor":4.0,"original_max_position_embeddings":8192}})",
                                   "config.json");
  EXPECT_EQ(c.ropeScaling.type, RopeScaling::Type::Llama3);
  EXPECT_DOUBLE_EQ(c.ropeScaling.factor, 32.0);
  EXPECT_EQ(c.headDim, 8);
  EXPECT_FALSE(c.tiedEmbeddings);
}

TEST(ModelConfig, UnsupportedArchitectureIsAnError) {
  expectError(
      [] { parseModelConfig(R"({"architectures":["MistralForCausalLM"]})", "m/config.json"); },
      {"m/config.json", "architectures", "got 'MistralForCausalLM'"});
}

TEST(ModelConfig, MissingFieldIsAnError) {
  expectError(
      [] {
        parseModelConfig(R"({"architectures":["LlamaForCausalLM"],"vocab_size":50})",
                         "config.json");
      },
      {"config.json", "hidden_size", "missing"});
}

TEST(ModelConfig, BadValueIsAnError) {
  std::string text = kGemma;
  text.replace(text.find("\"num_key_value_heads\":1"), 23, "\"num_key_value_heads\":-3");
  expectError([&] { parseModelConfig(text, "config.json"); },
              {"config.json", "num_key_value_heads", "a positive integer, got -3"});
}

TEST(ModelConfig, SoftcappingIsRejected) {
  std::string text = kGemma;
  text.replace(text.find("\"final_logit_softcapping\":null"), 30,
               "\"final_logit_softcapping\":30.0");
  expectError([&] { parseModelConfig(text, "config.json"); },
              {"config.json", "final_logit_softcapping", "not supported"});
}

TEST(ModelConfig, UnknownRopeScalingIsRejected) {
  expectError(
      [] {
        parseModelConfig(R"({"architectures":["LlamaForCausalLM"],"vocab_size":50,"hidden_size":32,
      "intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":4,
      "max_position_embeddings":64,"rope_scaling":{"rope_type":"yarn","factor":4.0}})",
                         "config.json");
      },
      {"config.json", "rope_scaling.rope_type", "got 'yarn'"});
}

TEST(ModelConfig, UnknownActivationIsRejected) {
  expectError(
      [] {
        parseModelConfig(R"({"architectures":["Qwen2ForCausalLM"],"vocab_size":50,"hidden_size":32,
      "intermediate_size":64,"num_hidden_layers":1,"num_attention_heads":4,
      "max_position_embeddings":64,"hidden_act":"relu"})",
                         "config.json");
      },
      {"config.json", "hidden_act", "got 'relu'"});
}

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
