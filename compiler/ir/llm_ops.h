// Named LLM ops of the tensor graph: the typed attributes that say which LLM operation an op is
// (embedding, norm, linear, rope, attention, activation, gated, add, argmax) and with which
// parameters. An Op carries them in `llm` (std::monostate for plain loop-nest ops). Operand
// order per op (inputs of the Op, in this order):
//   embedding : table[V,H], index[1]                  -> out[H]     (out = table[index] * scale)
//   norm      : x[H], gamma[H/groups][, beta]          -> out[H]
//   linear    : x[K], W[N,K][, bias[N]]                -> out[N]
//   rope      : x[numHeads*headDim], pos[1]            -> out[same]
//   attention : q[Hq*D], kNew[Hkv*D], vNew[Hkv*D], kCache[P,Hkv*D] (State),
//               vCache[P,Hkv*D] (State), pos[1]        -> out[Hq*D]
//               (writes kNew/vNew into row pos of the caches, then attends over rows
//                max(0, pos-slidingWindow+1)..pos, or 0..pos without a window)
//   activation: x -> out;  gated: gate, up -> out;  add: a, b -> out;  argmax: logits[V] -> out[]
// Architecture knowledge stays in compiler/frontend/: these ops are generic.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace st::ir {

enum class NormKind { LayerNorm, RmsNorm };
enum class ActivationKind { GeluErf, GeluTanh, Silu };
enum class GatedKind { SwiGLU, GeGLUTanh };

struct EmbeddingAttrs {
  double scale = 1.0; ///< Gemma multiplies the looked-up row by sqrt(hidden)
};

struct NormAttrs {
  NormKind kind = NormKind::RmsNorm;
  double eps = 1e-6;
  bool addOneToGamma = false; ///< Gemma: scale by (1 + gamma)
  int64_t groups = 1;         ///< normalize each of `groups` equal slices (per-head q/k norm)
  bool hasBeta = false;
};

struct LinearAttrs {
  bool hasBias = false;
};

struct RopeAttrs {
  int64_t numHeads = 0;
  int64_t headDim = 0;
  double base = 10000.0;
  /// headDim/2 inverse frequencies; when empty, base^(-2j/headDim).
  std::vector<double> inverseFrequencies;
};

struct AttentionAttrs {
  int64_t numHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  double scale = 1.0;
  int64_t slidingWindow = 0; ///< 0: attend to every cached position
};

struct ActivationAttrs {
  ActivationKind kind = ActivationKind::Silu;
};

struct GatedAttrs {
  GatedKind kind = GatedKind::SwiGLU;
};

struct AddAttrs {};
struct ArgmaxAttrs {};

using LlmAttributes =
    std::variant<std::monostate, EmbeddingAttrs, NormAttrs, LinearAttrs, RopeAttrs, AttentionAttrs,
                 ActivationAttrs, GatedAttrs, AddAttrs, ArgmaxAttrs>;

/// "embedding", "norm", ... ("" for std::monostate).
std::string llmOpName(const LlmAttributes &a);
/// The attributes as "key=value" text (for dumps).
std::string llmAttributesToString(const LlmAttributes &a);
/// The inverse frequencies a RopeAttrs stands for (explicit, or from base).
std::vector<double> ropeInverseFrequencies(const RopeAttrs &a);

} // namespace st::ir
