// RoPE settings of a Hugging Face config.json in either form transformers writes:
//   transformers 5.x: "rope_parameters", a flat dict {"rope_type", "rope_theta", factors...} or
//                     one such dict per layer type ({"full_attention": {...},
//                     "sliding_attention": {...}}, Gemma 3);
//   transformers 4.x: "rope_theta" + "rope_scaling" (+ Gemma 3's "rope_local_base_freq").
// Each setting (theta and scaling of full-attention layers, of sliding-window layers) is taken
// from whichever form gives it; when both do they must agree, or it is an st::Error naming both
// keys and values. A RoPE type other than default, linear or llama3, a missing factor of a
// scaling type, or partial_rotary_factor != 1 is an error naming the key and the value; nothing
// that changes the rotation falls back to a default silently. docs/frontend.md has the table.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace st::frontend {

/// Llama 3 RoPE frequency scaling ("rope_type": "llama3") or linear scaling ("linear").
struct RopeScaling {
  enum class Type { None, Linear, Llama3 } type = Type::None;
  double factor = 1.0;
  double lowFreqFactor = 1.0;
  double highFreqFactor = 4.0;
  int64_t originalMaxPositions = 8192;
  bool operator==(const RopeScaling &o) const;
  bool operator!=(const RopeScaling &o) const { return !(*this == o); }
};
/// "default", "linear" or "llama3" with its factors, for messages.
std::string toString(const RopeScaling &s);

/// The rotation of one kind of layer: base and frequency scaling.
struct RopeSettings {
  double theta = 10000.0;
  RopeScaling scaling;
};

/// The family's defaults (transformers' own) for what neither form gives.
struct RopeDefaults {
  double fullTheta = 10000.0;
  double slidingTheta = 10000.0;
  /// Gemma 3: rope_parameters must be one dict per layer type and rope_local_base_freq is read.
  bool perLayerType = false;
};

struct RopeConfig {
  RopeSettings full;    ///< full-attention layers (every layer of Llama and Qwen2)
  RopeSettings sliding; ///< sliding-window layers (Gemma 3's local layers)
};

/// Reads both forms from the parsed config.json `config` (`file` names it in errors).
RopeConfig readRopeConfig(const nlohmann::json &config, const std::string &file,
                          const RopeDefaults &defaults);

} // namespace st::frontend
