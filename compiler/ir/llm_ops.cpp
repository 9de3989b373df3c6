// Named LLM op attributes (see llm_ops.h): names, text form, RoPE frequencies.
#include "ir/llm_ops.h"

#include <cmath>
#include <sstream>

namespace st::ir {

namespace {
template <class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;
} // namespace

std::string llmOpName(const LlmAttributes &a) {
  return std::visit(Overloaded{[](const std::monostate &) { return std::string(); },
                               [](const EmbeddingAttrs &) { return std::string("embedding"); },
                               [](const NormAttrs &) { return std::string("norm"); },
                               [](const LinearAttrs &) { return std::string("linear"); },
                               [](const RopeAttrs &) { return std::string("rope"); },
                               [](const AttentionAttrs &) { return std::string("attention"); },
                               [](const ActivationAttrs &) { return std::string("activation"); },
                               [](const GatedAttrs &) { return std::string("gated"); },
                               [](const AddAttrs &) { return std::string("add"); },
                               [](const ArgmaxAttrs &) { return std::string("argmax"); }},
                    a);
}

std::string llmAttributesToString(const LlmAttributes &a) {
  std::ostringstream os;
  std::visit(Overloaded{[&](const std::monostate &) {},
                        [&](const EmbeddingAttrs &e) { os << "scale=" << e.scale; },
                        [&](const NormAttrs &n) {
                          os << "kind=" << (n.kind == NormKind::LayerNorm ? "layernorm" : "rmsnorm")
                             << " eps=" << n.eps << " add_one=" << n.addOneToGamma
                             << " groups=" << n.groups;
                        },
                        [&](const LinearAttrs &l) { os << "bias=" << l.hasBias; },
                        [&](const RopeAttrs &r) {
                          os << "heads=" << r.numHeads << " head_dim=" << r.headDim
                             << " base=" << r.base
                             << (r.inverseFrequencies.empty() ? "" : " explicit_frequencies");
                        },
                        [&](const AttentionAttrs &t) {
                          os << "heads=" << t.numHeads << " kv_heads=" << t.numKvHeads
                             << " head_dim=" << t.headDim << " scale=" << t.scale
                             << " window=" << t.slidingWindow;
                        },
                        [&](const ActivationAttrs &t) {
                          os << "kind="
                             << (t.kind == ActivationKind::GeluErf    ? "gelu_erf"
                                 : t.kind == ActivationKind::GeluTanh ? "gelu_tanh"
                                                                      : "silu");
                        },
                        [&](const GatedAttrs &g) {
                          os << "kind=" << (g.kind == GatedKind::SwiGLU ? "swiglu" : "geglu_tanh");
                        },
                        [&](const AddAttrs &) {}, [&](const ArgmaxAttrs &) {}},
             a);
  return os.str();
}

std::vector<double> ropeInverseFrequencies(const RopeAttrs &a) {
  if (!a.inverseFrequencies.empty())
    return a.inverseFrequencies;
  std::vector<double> f(static_cast<size_t>(a.headDim / 2));
  for (size_t j = 0; j < f.size(); ++j)
    // fp32 as transformers computes it: 1 / base^(2j/d) in float.
    f[j] = 1.0f / std::pow(static_cast<float>(a.base),
                           static_cast<float>(2 * j) / static_cast<float>(a.headDim));
  return f;
}

} // namespace st::ir
