// The planned LLM accelerator (see llm_plan.h).
#include "plan/llm_plan.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "llm/run_layout.h"
#include "plan/run_regions.h"
#include "support/error.h"

namespace st::plan {

namespace {

using llm::AcceleratorRole;

constexpr int64_t kIdRowBytes = 64;

/// The attention op reading cache tensor `cache` of `stage`, and which cache it is.
std::string cacheBufferOf(const ir::DecodeStage &stage, ir::TensorId cache) {
  for (ir::OpId c : stage.graph.consumers(cache)) {
    const ir::Op &op = stage.graph.op(c);
    if (!std::holds_alternative<ir::AttentionAttrs>(op.llm))
      continue;
    for (size_t i = 3; i < op.inputs.size(); ++i)
      if (op.inputs[i].tensor == cache)
        return stage.name + "/" + op.name + (i == 3 ? ".k_cache" : ".v_cache");
  }
  throw Error("llm design",
              "stage '" + stage.name + "' tensor '" + stage.graph.tensor(cache).name + "'",
              "a KV cache read by an attention op");
}

/// The HBM buffer (docs/hbm-image.md names) that DMA or embedding node `n` addresses.
std::string bufferOf(const llm::AcceleratorGraph &g, ir::NodeId n) {
  const ir::DataflowGraph &df = g.dataflow;
  const ir::DataflowNode &stageNode = llm::stageNodeOf(g, n);
  switch (g.nodes.at(n).role) {
  case AcceleratorRole::PromptRead:
    return kPromptBuffer;
  case AcceleratorRole::TokenWrite:
    return "run/tokens";
  case AcceleratorRole::WeightStream: {
    const ir::NodeId kernel = df.stream(df.streamsFrom({n, 0}).at(0)).dst.node;
    const ir::DataflowNode &k = llm::stageNodeOf(g, kernel);
    return decodeStageOf(g, n).name + "/" + k.name +
           (k.module == "st_linear" ? ".weights" : ".params");
  }
  case AcceleratorRole::KvCacheRead:
  case AcceleratorRole::KvAppend:
    return cacheBufferOf(decodeStageOf(g, n), *stageNode.tensor);
  case AcceleratorRole::EngineStream: {
    const auto &dmas = g.engine.channelDmas;
    const auto it = std::find(dmas.begin(), dmas.end(), n);
    if (it == dmas.end())
      throw Error("llm design", "node '" + df.node(n).name + "'", "a channel DMA of the engine");
    return engineStreamBufferName(it - dmas.begin());
  }
  case AcceleratorRole::Tap: {
    const ir::DecodeStage &stage = decodeStageOf(g, n);
    const auto producer = stage.graph.producer(*stageNode.tensor);
    if (!producer)
      throw Error("llm design", "tap '" + stageNode.name + "'", "a tensor produced by an op");
    return stage.name + "/" + stage.graph.op(*producer).name + ".tap";
  }
  default:
    if (stageNode.module == "st_embedding_gather")
      return decodeStageOf(g, n).name + "/" + stageNode.name + ".table";
    throw Error("llm design", "node '" + df.node(n).name + "'", "a DMA or an embedding gather");
  }
}

std::map<ir::NodeId, LlmKernelConfig> kernelConfigs(const llm::AcceleratorGraph &g,
                                                    const frontend::QuantizedModel &q,
                                                    const std::string &tablePrefix,
                                                    std::vector<KernelTable> &tables) {
  std::map<ir::NodeId, LlmKernelConfig> configs;
  for (const auto &[n, info] : g.nodes) {
    if (info.role != AcceleratorRole::Kernel)
      continue;
    const ir::DataflowNode &node = llm::stageNodeOf(g, n);
    const ir::DecodeStage &stage = decodeStageOf(g, n);
    LlmKernelConfig cfg;
    for (int64_t run = 0; run < info.layers; ++run) {
      cfg.sidebandsByRun.push_back(kernelSidebands(node, q, stage.name, run));
      if (node.module == "st_attention")
        cfg.windowByRun.push_back(
            q.get<frontend::QuantizedAttentionOp>(stage.name, run, node.name).slidingWindow);
    }
    cfg.extraParams = kernelTableParams(node, q, stage, tablePrefix, tables);
    configs[n] = std::move(cfg);
  }
  return configs;
}

/// The estimate of the LLM top (LlmPlan::resources): the graph's nodes, the step sequencers, and
/// a vector counter per kernel whose sidebands follow the step or the layer.
DesignResources llmDesignResources(const LlmPlan &d) {
  DesignResources res = designResources(d.graph.dataflow, &d.top.top);
  addLlmSequencers(res, d.graph);
  for (const auto &[n, cfg] : d.kernels)
    if (sidebandsFollowStepOrLayer(cfg)) {
      const ir::DataflowNode &node = d.graph.dataflow.node(n);
      const model::ResourceEstimate e =
          llmVectorCounterResources(node.inputs.at(0).type.numTokens(), d.graph.nodes.at(n).layers);
      res.total += e;
      res.parts.push_back({node.name + " counter", "st_vector_counter", e});
    }
  return res;
}

} // namespace

const ir::DecodeStage &decodeStageOf(const llm::AcceleratorGraph &g, ir::NodeId n) {
  return g.program->stages.at(g.nodes.at(n).stage);
}

std::vector<int64_t> layerWindowsOf(const ir::DecodeProgram &program) {
  // The block is stage 1 (prologue, block, epilogue); each run is a layer.
  const ir::DecodeStage &block = program.stages.at(1);
  std::vector<int64_t> windows(static_cast<size_t>(block.repeat), 0);
  for (int64_t run = 0; run < block.repeat; ++run)
    for (ir::OpId o = 0; o < block.graph.numOps(); ++o) {
      const ir::Op &op = block.graph.op(o);
      const ir::LayerBinding &binding = block.bindings.at(static_cast<size_t>(run));
      const auto bound = binding.attributes.find(op.name);
      const ir::LlmAttributes &attrs = bound != binding.attributes.end() ? bound->second : op.llm;
      if (const auto *a = std::get_if<ir::AttentionAttrs>(&attrs))
        windows[static_cast<size_t>(run)] =
            std::max(windows[static_cast<size_t>(run)], a->slidingWindow);
    }
  return windows;
}

llm::AcceleratorGraph lowerLlmDesign(const ir::DecodeProgram &program,
                                     const llm::AcceleratorOptions &options) {
  return llm::buildAcceleratorGraph(program, options);
}

LlmPlan planLlmDesign(const frontend::LoadedModel &model, const frontend::QuantizedModel &q,
                      llm::AcceleratorGraph graph, const LlmPlanOptions &options) {
  if (q.precision != options.accelerator.precision)
    throw Error("llm design", "precision", "the quantized model's precision");
  LlmPlan d;
  d.designName = options.designName;
  d.program = &model.program;
  d.precision = q.precision;
  d.precisionName = frontend::precisionName(q.precision);
  d.accelerator = options.accelerator;
  d.device = passes::loadDeviceConstraints(options.devicePath);
  d.graph = std::move(graph);
  std::map<std::string, int64_t> lanes;
  for (size_t i = 0; i < d.graph.stages.size(); ++i)
    lanes[model.program.stages[i].name] = d.graph.stages[i].lanes;
  d.hbm = planHbmImage(
      model.program, q, hbmDeviceOf(d.device), options.accelerator.maxContext, lanes,
      d.graph.engine.calls.empty() ? nullptr : &d.graph.engine, options.accelerator.attentionKvStep,
      options.accelerator.attentionHeadSplit, options.accelerator.attentionReadStep,
      options.accelerator.attentionBlockMajor, options.accelerator.attentionPositionSlices);
  // A tap of an engine call that delivers padded rows (an odd vocabulary's LM head) writes them.
  std::vector<llm::TapSpec> taps = llm::defaultRunTaps(model.program);
  for (llm::TapSpec &tap : taps)
    for (const llm::EngineCall &call : d.graph.engine.calls)
      if (call.nDeliver > call.nOut &&
          model.program.stages.at(static_cast<size_t>(call.stage)).name == tap.stage &&
          call.op == tap.op)
        tap.codes = call.nDeliver;
  addRunRegions(d.hbm, model.program, q, taps);
  HbmBuffer prompt;
  prompt.name = kPromptBuffer;
  prompt.kind = "run_prompt";
  prompt.format = "u32 prompt id per 64-byte row";
  prompt.layerBytes = options.accelerator.maxContext * kIdRowBytes;
  prompt.layerStride = prompt.layerBytes;
  prompt.rowBytes = kIdRowBytes;
  addRunBuffer(d.hbm, prompt);
  d.top = llmTopInterfaceOf(
      d.graph, options.designName,
      [&](const std::string &name) {
        const HbmBuffer &b = hbmBufferNamed(d.hbm, name);
        BufferPlacement p{b.layerStride, static_cast<unsigned>(b.channels.at(0)), b.rowBytes,
                          b.ringSteps};
        p.kvSlices = b.kvSlices;
        p.kvPartCodes = b.kvPartCodes;
        p.kvBlocks = b.kvBlocks;
        p.kvBlockStride = b.kvBlockStride();
        p.lastChannel = static_cast<unsigned>(b.channels.back());
        p.kvPositionSlices = b.kvPositionSlices;
        if (b.kvSlices > 1 && b.kvSlice == 0) {
          p.kvSliceStride = kvSliceStride(d.hbm, name);
          p.kvLastChannel = static_cast<unsigned>((b.address + (b.kvSlices - 1) * p.kvSliceStride) /
                                                      d.hbm.device.pseudoChannelBytes +
                                                  b.kvBlockChannels - 1);
        }
        return p;
      },
      [&](ir::NodeId n) { return bufferOf(d.graph, n); });
  d.top.pseudoChannelBytes = d.hbm.device.pseudoChannelBytes;
  d.kernels = kernelConfigs(d.graph, q, options.tablePrefix, d.tables);
  d.layerWindows = layerWindowsOf(model.program);
  d.resources = llmDesignResources(d);
  if (options.floorplan)
    d.floorplan = planFloorplan(d, d.device, options.slrBudget, options.sllBudget);
  d.stepBound = stepHbmBound(d.hbm, d.layerWindows, options.accelerator.maxContext,
                             static_cast<double>(d.device.kernelClockMhz));
  return d;
}

LlmStepPrediction predictLlmSteps(const llm::AcceleratorGraph &graph,
                                  const llm::AcceleratorOptions &options, llm::StepCache *cache) {
  return predictLlmSteps(graph, options, llm::reportedSteps(options.maxContext), cache);
}

LlmStepPrediction predictLlmSteps(const llm::AcceleratorGraph &graph,
                                  const llm::AcceleratorOptions &options,
                                  const std::vector<int64_t> &steps, llm::StepCache *cache) {
  LlmStepPrediction p;
  p.steps = steps;
  p.stepCycles =
      llm::predictStepCycles(graph, options, layerWindowsOf(*graph.program), p.steps, p.hbm, cache);
  return p;
}

} // namespace st::plan
