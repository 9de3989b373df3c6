// The LLM kernels' timing and resources by template name (see llm_kernel_catalog.h).
#include "model/llm_kernel_catalog.h"

#include <stdexcept>

#include "model/argmax_model.h"
#include "model/attention_model.h"
#include "model/dma_stream_model.h"
#include "model/elementwise_model.h"
#include "model/embedding_model.h"
#include "model/gemv_engine_model.h"
#include "model/linear_model.h"
#include "model/norm_model.h"
#include "model/rope_model.h"
#include "model/width_converter_model.h"
#include "support/error.h"

namespace st::model {

namespace {

/// Reads a node's template parameters and attributes, naming the node when one is missing.
class NodeReader {
public:
  explicit NodeReader(const ir::DataflowNode &node) : node_(node) {}

  int64_t param(const std::string &name, std::optional<int64_t> fallback = {}) const {
    if (auto v = node_.param(name))
      return *v;
    if (fallback)
      return *fallback;
    throw Error("timing", "kernel '" + node_.name + "' (" + node_.module + ")",
                "a template parameter " + name);
  }
  /// Tokens of one invocation on input port `port` (its stream's itensor).
  int64_t inputTokens(unsigned port) const { return node_.inputs.at(port).type.numTokens(); }
  int64_t attribute(const std::string &name, std::optional<int64_t> fallback = {}) const {
    auto it = node_.attributes.find(name);
    if (it != node_.attributes.end())
      return it->second;
    if (fallback)
      return *fallback;
    throw Error("timing", "kernel '" + node_.name + "' (" + node_.module + ")",
                "an attribute " + name);
  }
  /// Runs a model, turning its parameter check into an error that names the node.
  template <typename F> auto call(F &&model) const {
    try {
      return model();
    } catch (const std::invalid_argument &e) {
      throw Error("timing", "kernel '" + node_.name + "' (" + node_.module + ")",
                  std::string("parameters the template accepts: ") + e.what());
    }
  }

private:
  const ir::DataflowNode &node_;
};

LinearParams linearParamsFrom(const NodeReader &r) {
  LinearParams p;
  p.k = r.param("K");
  p.nOut = r.param("NOut");
  p.rows = r.param("Rows");
  p.kLanes = r.param("KLanes");
  p.lanes = r.param("Lanes");
  p.weightBits = r.param("WBits");
  p.activationBits = r.param("ABits");
  p.groupSize = r.param("GroupSize");
  p.outputBits = r.param("OutBits");
  p.wordBits = r.param("WordBits");
  return p;
}

NormParams normParamsOf(const NodeReader &r) {
  NormParams p;
  p.layerNorm = r.param("LayerNorm") != 0;
  p.n = r.param("N");
  p.lanes = r.param("Lanes");
  p.inBits = static_cast<unsigned>(r.param("InBits"));
  p.outBits = static_cast<unsigned>(r.param("OutBits"));
  return p;
}

RopeParams ropeParamsOf(const NodeReader &r) {
  RopeParams p;
  p.numHeads = r.param("NumHeads");
  p.headDim = r.param("HeadDim");
  p.lanes = r.param("Lanes");
  p.inBits = r.param("InBits");
  p.outBits = r.param("OutBits");
  p.posBits = r.param("PosBits");
  p.numTables = r.param("NumTables");
  return p;
}

AttentionParams attentionParamsOf(const NodeReader &r) {
  AttentionParams p;
  p.numHeads = r.param("NumHeads");
  p.numKvHeads = r.param("NumKvHeads");
  p.headDim = r.param("HeadDim");
  p.maxContext = r.param("MaxContext");
  p.lanes = r.param("Lanes");
  p.cacheLanes = r.param("CacheLanes");
  p.outBits = r.param("OutBits");
  p.blockMajor = r.param("BlockMajor", 0) != 0;
  p.cacheRound = r.param("CacheRound", 1);
  p.onePass = r.param("OnePass", 0) != 0;
  p.tilePositions = r.param("TilePositions", 64);
  p.cacheLength = r.attribute(kAttrCacheLength, 0);
  return p;
}

EmbeddingParams embeddingParamsOf(const NodeReader &r) {
  EmbeddingParams p;
  p.dim = r.param("Dim");
  p.lanes = r.param("Lanes");
  p.outBits = r.param("OutBits");
  p.maxBurstLen = r.param("MaxBurstLen");
  p.maxOutstanding = r.param("MaxOutstanding");
  return p;
}

ElementwiseFunction functionOf(const NodeReader &r) {
  return static_cast<ElementwiseFunction>(r.param("Function"));
}

ActivationParams activationParamsOf(const NodeReader &r) {
  ActivationParams p;
  p.function = functionOf(r);
  p.lanes = r.param("Lanes");
  p.inBits = r.param("InBits");
  p.outBits = r.param("OutBits");
  p.n = r.attribute(kAttrVectorLength);
  return p;
}

GatedActivationParams gatedParamsOf(const NodeReader &r) {
  GatedActivationParams p;
  p.function = functionOf(r);
  p.lanes = r.param("Lanes");
  p.inBits = r.param("InBits");
  p.outBits = r.param("OutBits");
  p.n = r.attribute(kAttrVectorLength);
  return p;
}

ResidualAddParams residualAddParamsOf(const NodeReader &r) {
  ResidualAddParams p;
  p.lanes = r.param("Lanes");
  p.aBits = r.param("ABits");
  p.bBits = r.param("BBits");
  p.outBits = r.param("OutBits");
  p.n = r.attribute(kAttrVectorLength);
  return p;
}

ArgmaxParams argmaxParamsOf(const NodeReader &r) {
  ArgmaxParams p;
  p.lanes = r.param("Lanes");
  p.elemBits = r.param("ElemBits");
  p.maxLen = r.param("MaxLen");
  p.length = r.attribute(kAttrVectorLength, 0);
  return p;
}

} // namespace

KernelTiming repeatedTiming(const KernelTiming &one, int64_t count,
                            const std::function<int64_t(int64_t)> &startCycle) {
  if (count <= 1)
    return one;
  KernelTiming t = one;
  const int64_t outPer = one.outputTokens;
  t.outputTokens = outPer * count;
  t.totalLatency = startCycle(count - 1) + one.totalLatency;
  // Steady state: one invocation's outputs per invocation period.
  const int64_t period = startCycle(count - 1) - startCycle(count - 2);
  t.ii = std::max<int64_t>(one.ii, outPer > 0 ? period / outPer : one.ii);
  for (size_t i = 0; i < one.inputTokens.size(); ++i) {
    const int64_t inPer = one.inputTokens[i];
    t.inputTokens[i] = inPer * count;
    auto needs = one.inputTokensNeeded[i];
    t.inputTokensNeeded[i] = [needs, inPer, outPer](int64_t k) {
      return (k / outPer) * inPer + needs(k % outPer);
    };
  }
  return t;
}

namespace {

/// One LLM template: how to read its parameters and its two models.
struct CatalogEntry {
  const char *module;
  std::function<KernelTiming(const NodeReader &)> timing;
  std::function<ResourceEstimate(const NodeReader &)> resources;
};

template <typename Params>
CatalogEntry entry(const char *module, Params (*paramsOf)(const NodeReader &),
                   KernelTiming (*timing)(const Params &),
                   ResourceEstimate (*resources)(const Params &)) {
  return {module, [=](const NodeReader &r) { return timing(paramsOf(r)); },
          [=](const NodeReader &r) { return resources(paramsOf(r)); }};
}

KernelTiming repeatedNormTiming(const NodeReader &r) {
  const NormParams p = normParamsOf(r);
  return repeatedTiming(normTiming(p), r.attribute(kAttrInvocations, 1),
                        [&p](int64_t j) { return normVectorStartCycle(p, j); });
}

KernelTiming embeddingTimingAtNominalLatency(const EmbeddingParams &p) {
  return embeddingTiming(p, kNominalHbmReadLatency);
}

/// The length comes on a command port that the step sequencer drives, not on a dataflow
/// stream: only the data port is an input of the node.
KernelTiming argmaxDataTiming(const ArgmaxParams &p) {
  KernelTiming t = argmaxTiming(p);
  t.inputTokens.erase(t.inputTokens.begin());
  t.inputTokensNeeded.erase(t.inputTokensNeeded.begin());
  return t;
}

/// The shared GEMV engine's shape from a node's parameters: the joined engine's own, or a call
/// node's (its K the longest, one x and one y port).
numerics::GemvEngineShape gemvShapeOf(const NodeReader &r) {
  numerics::GemvEngineShape s;
  s.channels = r.param("Channels");
  s.kLanes = r.param("KLanes");
  s.segLanes = r.param("SegLanes");
  s.lanes = r.param("Lanes");
  s.weightBits = r.param("WBits");
  s.activationBits = r.param("ABits");
  const bool call = r.attribute("engine_call", 0) != 0;
  s.maxK = r.param(call ? "K" : "MaxK");
  s.outputBits = r.param("OutBits");
  s.numX = call ? 1 : r.param("NumX");
  s.numY = call ? 1 : r.param("NumY");
  s.packedPairs = r.param("PackedPairs", 0);
  return s;
}

/// A call node of a stage graph (stage_lowering's gemvEngine mode): one invocation of the
/// engine with its words at one a cycle; only x is a stream of the stage (the words come
/// through the engine's channels), so the word port is left out.
KernelTiming gemvCallTiming(const NodeReader &r) {
  GemvEngineCall call;
  call.k = r.param("K");
  call.rows = r.param("NDeliver");
  call.groupSize = r.param("GroupSize");
  KernelTiming t = gemvEngineTiming(gemvShapeOf(r), call);
  t.inputTokens.erase(t.inputTokens.begin() + kGemvInputSuperWords);
  t.inputTokensNeeded.erase(t.inputTokensNeeded.begin() + kGemvInputSuperWords);
  return t;
}

const std::vector<CatalogEntry> &catalog() {
  static const std::vector<CatalogEntry> entries = {
      entry("st_linear", linearParamsFrom, linearTiming, linearResources),
      // A per-head norm runs once per head.
      {"st_norm", repeatedNormTiming,
       [](const NodeReader &r) { return normResources(normParamsOf(r)); }},
      entry("st_rope", ropeParamsOf, ropeTiming, ropeResources),
      entry("st_attention", attentionParamsOf, attentionTiming, attentionResources),
      entry("st_embedding_gather", embeddingParamsOf, embeddingTimingAtNominalLatency,
            embeddingResources),
      entry("st_activation", activationParamsOf, activationTiming, activationResources),
      entry("st_gated_activation", gatedParamsOf, gatedActivationTiming, gatedActivationResources),
      entry("st_residual_add", residualAddParamsOf, residualAddTiming, residualAddResources),
      entry("st_argmax", argmaxParamsOf, argmaxDataTiming, argmaxResources),
      // A KV cache read wider than attention's token, split on its way in.
      {"st_width_converter",
       [](const NodeReader &r) {
         return widthConverterTiming(r.param("InWidth"), r.param("OutWidth"), r.inputTokens(0));
       },
       [](const NodeReader &r) {
         return widthConverterResources(r.param("InWidth"), r.param("OutWidth"));
       }},
      // A stage's call node is timed as one invocation; the joined engine (its calls in
      // sequence) is timed by the step prediction's sequenced engine, not by a KernelTiming.
      {"st_gemv_engine", gemvCallTiming, [](const NodeReader &r) {
         return r.attribute("engine_call", 0) != 0 ? ResourceEstimate{}
                                                   : gemvEngineResources(gemvShapeOf(r));
       }}};
  return entries;
}

const CatalogEntry *entryOf(const ir::DataflowNode &node) {
  for (const CatalogEntry &e : catalog())
    if (node.module == e.module)
      return &e;
  return nullptr;
}

} // namespace

LinearParams linearParamsOf(const ir::DataflowNode &node) {
  return linearParamsFrom(NodeReader(node));
}

std::optional<KernelTiming> llmKernelTiming(const ir::DataflowNode &node) {
  const CatalogEntry *e = entryOf(node);
  if (!e)
    return std::nullopt;
  const NodeReader r(node);
  return r.call([&] { return e->timing(r); });
}

std::optional<ResourceEstimate> llmKernelResources(const ir::DataflowNode &node) {
  const CatalogEntry *e = entryOf(node);
  if (!e)
    return std::nullopt;
  const NodeReader r(node);
  return r.call([&] { return e->resources(r); });
}

} // namespace st::model
