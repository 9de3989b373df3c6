// The LLM kernels' timing and resources by template name (see llm_kernel_catalog.h).
#include "model/llm_kernel_catalog.h"

#include <stdexcept>

#include "model/dma_stream_model.h"
#include "model/kernel_templates.h"
#include "support/error.h"

namespace st::model {

namespace {

/// Reads a node's template parameters and attributes, naming the node when one is missing.
class NodeReader {
public:
  explicit NodeReader(const ir::DataflowNode &node) : node_(node) {}

  template <typename P> P decode(const TemplateDescriptor<P> &descriptor) const {
    return descriptor.decode(node_);
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

/// What a model needs beside a kernel's template parameters: attributes the lowering sets.
void withVectorLength(const NodeReader &r, ActivationParams &p) {
  p.n = r.attribute(kAttrVectorLength);
}
void withVectorLength(const NodeReader &r, GatedActivationParams &p) {
  p.n = r.attribute(kAttrVectorLength);
}
void withVectorLength(const NodeReader &r, ResidualAddParams &p) {
  p.n = r.attribute(kAttrVectorLength);
}
void withRuntimeLength(const NodeReader &r, ArgmaxParams &p) {
  p.length = r.attribute(kAttrVectorLength, 0);
}
void withCacheLength(const NodeReader &r, AttentionParams &p) {
  p.cacheLength = r.attribute(kAttrCacheLength, 0);
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

/// The entry of a template whose models take its Params: decoded by its descriptor, plus the
/// attributes `withAttributes` adds.
template <typename Params>
CatalogEntry entry(const TemplateDescriptor<Params> &descriptor,
                   KernelTiming (*timing)(const Params &),
                   ResourceEstimate (*resources)(const Params &),
                   void (*withAttributes)(const NodeReader &, Params &) = nullptr) {
  auto read = [&descriptor, withAttributes](const NodeReader &r) {
    Params p = r.decode(descriptor);
    if (withAttributes)
      withAttributes(r, p);
    return p;
  };
  return {descriptor.module(), [=](const NodeReader &r) { return timing(read(r)); },
          [=](const NodeReader &r) { return resources(read(r)); }};
}

/// A per-head norm runs once per head.
KernelTiming repeatedNormTiming(const NormParams &p, int64_t invocations) {
  return repeatedTiming(normTiming(p), invocations,
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

/// The shared GEMV engine's shape of a call node: its K the longest, one x and one y port.
numerics::GemvEngineShape gemvShapeOfCall(const GemvCallParams &c) {
  numerics::GemvEngineShape s;
  s.channels = c.channels;
  s.kLanes = c.kLanes;
  s.segLanes = c.segLanes;
  s.lanes = c.lanes;
  s.weightBits = c.weightBits;
  s.activationBits = c.activationBits;
  s.maxK = c.k;
  s.outputBits = c.outputBits;
  return s;
}

/// A call node of a stage graph (stage_lowering's gemvEngine mode): one invocation of the
/// engine with its words at one a cycle; only x is a stream of the stage (the words come
/// through the engine's channels), so the word port is left out.
KernelTiming gemvCallTiming(const GemvCallParams &c) {
  GemvEngineCall call;
  call.k = c.k;
  call.rows = c.nDeliver;
  call.groupSize = c.groupSize;
  KernelTiming t = gemvEngineTiming(gemvShapeOfCall(c), call);
  t.inputTokens.erase(t.inputTokens.begin() + kGemvInputSuperWords);
  t.inputTokensNeeded.erase(t.inputTokensNeeded.begin() + kGemvInputSuperWords);
  return t;
}

bool isEngineCall(const NodeReader &r) {
  return r.attribute(kAttrEngineCall, 0) != 0;
}

const std::vector<CatalogEntry> &catalog() {
  static const std::vector<CatalogEntry> entries = {
      entry(linearTemplate(), linearTiming, linearResources),
      {normTemplate().module(),
       [](const NodeReader &r) {
         return repeatedNormTiming(r.decode(normTemplate()), r.attribute(kAttrInvocations, 1));
       },
       [](const NodeReader &r) { return normResources(r.decode(normTemplate())); }},
      entry(ropeTemplate(), ropeTiming, ropeResources),
      entry(attentionTemplate(), attentionTiming, attentionResources, withCacheLength),
      entry(embeddingTemplate(), embeddingTimingAtNominalLatency, embeddingResources),
      entry(activationTemplate(), activationTiming, activationResources, withVectorLength),
      entry(gatedActivationTemplate(), gatedActivationTiming, gatedActivationResources,
            withVectorLength),
      entry(residualAddTemplate(), residualAddTiming, residualAddResources, withVectorLength),
      entry(argmaxTemplate(), argmaxDataTiming, argmaxResources, withRuntimeLength),
      // A KV cache read wider than attention's token, split on its way in.
      {widthConverterTemplate().module(),
       [](const NodeReader &r) {
         const WidthConverterParams p = r.decode(widthConverterTemplate());
         return widthConverterTiming(p.inWidth, p.outWidth, r.inputTokens(0));
       },
       [](const NodeReader &r) {
         const WidthConverterParams p = r.decode(widthConverterTemplate());
         return widthConverterResources(p.inWidth, p.outWidth);
       }},
      // A stage's call node is timed as one invocation; the joined engine (its calls in
      // sequence) is timed by the step prediction's sequenced engine, not by a KernelTiming.
      {gemvEngineTemplate().module(),
       [](const NodeReader &r) { return gemvCallTiming(r.decode(gemvCallTemplate())); },
       [](const NodeReader &r) {
         return isEngineCall(r) ? ResourceEstimate{}
                                : gemvEngineResources(r.decode(gemvEngineTemplate()));
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
  return linearTemplate().decode(node);
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
