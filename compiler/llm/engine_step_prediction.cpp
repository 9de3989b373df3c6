// Engine step prediction: one decode step of a GEMV-engine design as one timing simulation (see
// engine_step_prediction.h).
#include "llm/engine_step_prediction.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "ir/hbm_layout.h"
#include "llm/engine_channel_groups.h"
#include "llm/kv_striping.h"
#include "llm/prediction_work.h"
#include "model/dma_stream_model.h"
#include "model/gemv_engine_model.h"
#include "passes/pass_pipeline.h"
#include "sim/dataflow_timing_sim.h"
#include "sim/memory_stages.h"
#include "support/error.h"

namespace st::llm {

namespace {

/// FIFO depth of a stream the built design does not have (none expected).
constexpr int64_t kUnknownStreamDepth = 2;
/// The exchanged vector between stages.
constexpr const char *kResidual = "x";

/// Whether cache tensor `cache` of `stage` is an attention op's V cache (input 4).
bool isValueCache(const ir::DecodeStage &stage, ir::TensorId cache) {
  for (ir::OpId c : stage.graph.consumers(cache)) {
    const ir::Op &op = stage.graph.op(c);
    if (std::holds_alternative<ir::AttentionAttrs>(op.llm) && op.inputs.size() > 4 &&
        op.inputs[4].tensor == cache)
      return true;
  }
  return false;
}

std::string depthKey(int stage, const std::string &stream) {
  return std::to_string(stage) + "/" + stream;
}

/// The unrolled step's timing graph under construction.
struct StepGraph {
  sim::TimingGraph graph;
  std::vector<int64_t> depths;
  std::vector<bool> dropNode, dropEdge;
  std::vector<sim::MemoryRead> reads;

  size_t addNode(std::string name, model::KernelTiming timing) {
    graph.nodes.push_back({std::move(name), std::move(timing), nullptr, {}});
    dropNode.push_back(false);
    return graph.nodes.size() - 1;
  }
  size_t addEdge(sim::TimingEdge e, int64_t depth) {
    graph.edges.push_back(std::move(e));
    depths.push_back(depth);
    dropEdge.push_back(false);
    return graph.edges.size() - 1;
  }
  /// The graph without the dropped nodes and edges (indices renumbered), and its depths.
  void compact() {
    std::vector<size_t> index(graph.nodes.size(), SIZE_MAX);
    sim::TimingGraph out;
    for (size_t v = 0; v < graph.nodes.size(); ++v)
      if (!dropNode[v]) {
        index[v] = out.nodes.size();
        out.nodes.push_back(std::move(graph.nodes[v]));
      }
    std::vector<int64_t> outDepths;
    for (size_t e = 0; e < graph.edges.size(); ++e) {
      if (dropEdge[e])
        continue;
      sim::TimingEdge edge = graph.edges[e];
      edge.src = index.at(edge.src);
      edge.dst = index.at(edge.dst);
      out.edges.push_back(edge);
      outDepths.push_back(depths[e]);
    }
    for (sim::MemoryRead &r : reads)
      r.node = index.at(r.node);
    graph = std::move(out);
    depths = std::move(outDepths);
  }
};

/// One step's instance of a stage: the prologue, a layer of the block or the epilogue.
struct StageInstance {
  int stage = 0;
  int64_t rows = 1;
  std::string name;
  int64_t layer = 0;
};

/// Builds the unrolled step's timing graph (see engine_step_prediction.h) instance by instance:
/// each instance's lowered stage, its HBM reads, its x chained to the instance before and its
/// engine calls as invocations of the one engine; then the engine's word sources.
class StepGraphBuilder {
public:
  StepGraphBuilder(const AcceleratorGraph &g, const AcceleratorOptions &options,
                   const model::MemoryTiming &hbm, const std::map<std::string, int64_t> &depths)
      : g_(g), options_(options), hbm_(hbm), builtDepths_(depths),
        engine_(std::make_shared<sim::SequencedEngine>()) {
    // The engine: node 0; its word port is input 0, its x ports follow as the calls load x.
    engine_->wordPort = 0;
    engine_->outputPorts = 0;
    engine_->outputDelay = model::kGemvOutputDelay;
    engineNode_ = sg_.addNode("gemv_engine", model::KernelTiming{});
  }

  void addInstance(const StageInstance &inst);
  /// The engine's timing and word sources, the graph compacted and its memory stages added.
  StepGraph finish();

private:
  struct InstanceNodes {
    size_t base = 0;
    size_t xInput = SIZE_MAX, xOutput = SIZE_MAX;
  };
  InstanceNodes addStageNodes(const StageInstance &inst, const ir::DataflowGraph &df,
                              const sim::TimingGraph &tg, const std::vector<ir::NodeId> &order);
  sim::MemoryRead memoryReadOf(const StageInstance &inst, const ir::DataflowNode &node, size_t v,
                               const std::string &stageNodeName);
  void addEngineCalls(const StageInstance &inst, const ir::DataflowGraph &df,
                      const std::vector<ir::NodeId> &order, size_t base);
  void addWordSources();

  const AcceleratorGraph &g_;
  const AcceleratorOptions &options_;
  const model::MemoryTiming &hbm_;
  const std::map<std::string, int64_t> &builtDepths_;
  StepGraph sg_;
  std::shared_ptr<sim::SequencedEngine> engine_;
  size_t engineNode_ = 0;
  std::vector<int64_t> engineInputs_ = {0};
  int64_t engineOutputs_ = 0;
  std::map<std::pair<int, int64_t>, LoweredStage> lowered_; // (stage, rows)
  std::map<std::string, int> cacheChannels_; // KV cache tensor -> its channel (0, 1, ...)
  // A block-stage read DMA serves every layer, one command after another: its read of the
  // layer before (an index into sg_.reads), by node name.
  std::map<std::string, size_t> blockReadBefore_;
  size_t previousOutput_ = SIZE_MAX; // the x output of the instance before
};

void StepGraphBuilder::addInstance(const StageInstance &inst) {
  auto key = std::make_pair(inst.stage, inst.rows);
  if (!lowered_.count(key))
    lowered_[key] = lowerAcceleratorStage(*g_.program, inst.stage, options_, inst.rows);
  const ir::DataflowGraph &df = lowered_.at(key).dataflow;
  std::vector<ir::StreamId> streams;
  const sim::TimingGraph tg = passes::timingGraphOf(df, streams);
  const std::vector<ir::NodeId> order = df.topologicalOrder();
  const InstanceNodes nodes = addStageNodes(inst, df, tg, order);
  for (size_t e = 0; e < tg.edges.size(); ++e) {
    sim::TimingEdge edge = tg.edges[e];
    edge.name = inst.name + "/" + edge.name;
    edge.src += nodes.base;
    edge.dst += nodes.base;
    auto depth = builtDepths_.find(depthKey(inst.stage, df.stream(streams[e]).name));
    sg_.addEdge(edge, depth != builtDepths_.end() ? std::max<int64_t>(1, depth->second)
                                                  : kUnknownStreamDepth);
  }
  if (nodes.xInput != SIZE_MAX) {
    if (previousOutput_ == SIZE_MAX)
      throw Error("step prediction", inst.name, "the x of the stage before");
    const int64_t tokens = sg_.graph.nodes[nodes.xInput].timing.inputTokens.at(0);
    sg_.addEdge({inst.name + "/x_in", previousOutput_, nodes.xInput, 0, tokens, 1, 0}, 2);
  }
  if (nodes.xOutput != SIZE_MAX)
    previousOutput_ = nodes.xOutput;
  addEngineCalls(inst, df, order, nodes.base);
}

StepGraphBuilder::InstanceNodes
StepGraphBuilder::addStageNodes(const StageInstance &inst, const ir::DataflowGraph &df,
                                const sim::TimingGraph &tg, const std::vector<ir::NodeId> &order) {
  const ir::DecodeStage &stage = g_.program->stages.at(static_cast<size_t>(inst.stage));
  InstanceNodes nodes;
  nodes.base = sg_.graph.nodes.size();
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::DataflowNode &node = df.node(order[i]);
    const size_t v = sg_.addNode(inst.name + "/" + tg.nodes[i].name, tg.nodes[i].timing);
    if (node.kind == ir::NodeKind::ReadDma) {
      const ir::ITensorType &type = node.outputs[0].type;
      if (node.attributes.count(kAttrStageInput)) {
        // x comes from the stage before; the token and position come on chip at once.
        sg_.graph.nodes[v].timing = model::passThroughTiming(type.numTokens(), 0);
        if (node.tensor && stage.graph.tensor(*node.tensor).name == kResidual && inst.stage > 0) {
          sg_.graph.nodes[v].timing = model::passThroughTiming(type.numTokens());
          nodes.xInput = v;
        }
        continue;
      }
      sg_.reads.push_back(memoryReadOf(inst, node, v, tg.nodes[i].name));
    } else if (node.kind == ir::NodeKind::WriteDma && node.attributes.count(kAttrStageOutput) &&
               node.tensor &&
               stage.exportedName(stage.graph.tensor(*node.tensor).name) == kResidual) {
      // The layer loop passes x on to the next stage.
      sg_.graph.nodes[v].timing = model::passThroughTiming(node.inputs[0].type.numTokens());
      nodes.xOutput = v;
    }
  }
  return nodes;
}

sim::MemoryRead StepGraphBuilder::memoryReadOf(const StageInstance &inst,
                                               const ir::DataflowNode &node, size_t v,
                                               const std::string &stageNodeName) {
  const EngineUse &use = g_.engine;
  const ir::DecodeStage &stage = g_.program->stages.at(static_cast<size_t>(inst.stage));
  sim::MemoryRead r;
  r.node = v;
  r.words = ir::readDmaWordsPerChannel(node);
  r.restartDelay = model::memoryRestartDelay(hbm_);
  r.startDelay =
      node.attributes.count(kAttrWeightStream) ? 0 : model::memoryStartDelay(r.words, hbm_);
  const auto slices = node.attributes.find(ir::kAttrKvSlices);
  if (node.attributes.count(kAttrKvCacheRead) && node.tensor && slices != node.attributes.end()) {
    // A striped cache: each token takes a word from each slice's channel, where the HBM
    // plan puts it (kvSliceChannel), beside that channel's engine weight stream.
    const bool value = isValueCache(stage, *node.tensor);
    for (int64_t j = 0; j < slices->second; ++j)
      r.channels.push_back(
          static_cast<int>(kvSliceChannel(j, slices->second, value, use.shape.channels)));
    // A block-major cache reads block after block, each block's words on its own
    // channel next to the slice's where the plan spreads them (kvBlockChannels).
    const auto blocks = node.attributes.find(kAttrKvBlocks);
    const int64_t blockChannels =
        blocks == node.attributes.end()
            ? 1
            : kvBlockChannels(slices->second, blocks->second, use.shape.channels);
    if (blockChannels > 1) {
      if (r.words % blockChannels != 0)
        throw Error("step prediction", "KV read '" + node.name + "'",
                    "the same words from each of its " + std::to_string(blockChannels) +
                        " blocks, got " + std::to_string(r.words));
      for (int64_t b = 0; b < blockChannels; ++b) {
        r.blockChannels.emplace_back();
        for (int c : r.channels)
          r.blockChannels.back().push_back(c + static_cast<int>(b));
      }
      r.blockWords = r.words / blockChannels;
      // Its master claims the channels of its bursts and the engine's weight DMAs there
      // hold theirs (st_channel_claim): its words go first.
      r.first = true;
    }
  } else if (node.attributes.count(kAttrKvCacheRead) && node.tensor) {
    // Each KV cache (one buffer for every layer) has a pseudo-channel of its own, which
    // one of the engine's weight streams also reads (the HBM plan spreads them).
    const std::string &cache = stage.graph.tensor(*node.tensor).name;
    const auto [it, added] = cacheChannels_.emplace(cache, static_cast<int>(cacheChannels_.size()));
    r.channels = {it->second};
  }
  if (inst.stage == 1) {
    auto [before, first] = blockReadBefore_.emplace(stageNodeName, sg_.reads.size());
    if (!first) {
      r.after = before->second;
      before->second = sg_.reads.size();
    } else if (!node.attributes.count(kAttrWeightStream)) {
      // The DMA serves the first layer's command right after the previous step's last
      // layer's, in that step's tail (argmax, embedding, ...): its buffer is full when
      // the step starts (docs/decisions.md).
      r.prefetchedWords = std::min(r.words, model::kReadDmaBufferWords);
    }
  }
  return r;
}

void StepGraphBuilder::addEngineCalls(const StageInstance &inst, const ir::DataflowGraph &df,
                                      const std::vector<ir::NodeId> &order, size_t base) {
  // The engine calls, in program order, become invocations of the one engine.
  const EngineUse &use = g_.engine;
  for (size_t index = 0; index < use.calls.size(); ++index) {
    const EngineCall &call = use.calls[index];
    if (call.stage != inst.stage)
      continue;
    size_t callNode = SIZE_MAX;
    for (size_t i = 0; i < order.size(); ++i)
      if (df.node(order[i]).attributes.count(kAttrEngineCall) && df.node(order[i]).name == call.op)
        callNode = base + i;
    if (callNode == SIZE_MAX)
      throw Error("step prediction", inst.name + " call '" + call.op + "'",
                  "the call in the stage's lowering");
    sg_.dropNode[callNode] = true;
    model::GemvEngineCall c{call.k, call.nDeliver, call.groupSize, call.reuseX};
    const model::GemvEngineCallTiming t = model::gemvEngineCallTiming(use.shape, c);
    sim::SequencedEngine::Invocation inv;
    inv.xTokens = t.xTokens;
    inv.outputPort = engine_->outputPorts++;
    // The image announces the next call's x in this call's descriptor (the same rule).
    inv.preloadsNext = use.nextXOf(index, inst.layer).has_value();
    for (size_t b = 0; b < t.blockSuperWords.size(); ++b) {
      inv.blockWords.push_back(t.blockSuperWords[b] - 1);
      inv.blockTokens.push_back(t.blockTokens[b]);
    }
    engineInputs_[0] += t.superWords;
    for (size_t e = 0; e < sg_.graph.edges.size(); ++e) {
      sim::TimingEdge &edge = sg_.graph.edges[e];
      if (sg_.dropEdge[e])
        continue;
      if (edge.dst == callNode) {
        if (call.reuseX) {
          sg_.dropEdge[e] = true; // the engine keeps the x it loaded
        } else {
          inv.xPort = engineInputs_.size();
          engineInputs_.push_back(edge.tokens);
          edge.dst = engineNode_;
          edge.dstPort = inv.xPort;
        }
      } else if (edge.src == callNode) {
        edge.src = engineNode_;
        edge.srcPort = inv.outputPort;
      }
    }
    int64_t tokens = 0;
    for (int64_t n : inv.blockTokens)
      tokens += n;
    engineOutputs_ += tokens;
    engine_->invocations.push_back(std::move(inv));
  }
}

void StepGraphBuilder::addWordSources() {
  // The engine's words: from the step's start at the memory's rate, through each channel's DMA
  // buffer and prefetch FIFO; the engine takes a super-word when every channel's FIFO holds a
  // word. The rate is a cadence between consecutive words, so a channel the full FIFO stopped
  // restarts at its rate (no credit for the stall). The words the channels fetched in the
  // previous step's tail (argmax, token, embedding: at most the buffer and the FIFO, about 0.2 %
  // of a full-size step) are not counted: docs/decisions.md.
  // Each channel's refill runs on its own: one refill source per group of channels the same
  // reads share (engine_channel_groups.h), joined into the engine's super-words.
  const EngineUse &use = g_.engine;
  const int64_t words = engineInputs_[0];
  const std::vector<std::vector<int>> groups = engineChannelGroups(sg_.reads, use.shape.channels);
  const size_t join =
      groups.size() == 1
          ? engineNode_
          : sg_.addNode("engine/join",
                        model::passThroughTiming(words, static_cast<int64_t>(groups.size())));
  if (join != engineNode_)
    sg_.addEdge({"engine/w", join, engineNode_, 0, words, 512, 0}, 2);
  for (size_t group = 0; group < groups.size(); ++group) {
    const std::string suffix = groups.size() == 1 ? "" : std::to_string(group);
    const size_t wordSource =
        sg_.addNode("engine/words" + suffix, model::readDmaStreamTiming(words, words));
    sg_.addEdge(
        {"engine/w" + suffix, wordSource, join, join == engineNode_ ? 0 : group, words, 512, 0},
        engineFifoDepth(use, options_));
    sim::MemoryRead wordRead;
    wordRead.node = wordSource;
    wordRead.words = words;
    wordRead.restartDelay = model::memoryRestartDelay(hbm_);
    // Its words draw on its channels' bandwidth beside the K/V rows read there.
    wordRead.channels = groups[group];
    sg_.reads.push_back(wordRead);
  }
}

StepGraph StepGraphBuilder::finish() {
  // A reused x: the fork that fed the dropped call now feeds one edge fewer (forks broadcast
  // to whatever edges they have).
  model::KernelTiming &et = sg_.graph.nodes[engineNode_].timing;
  et.inputTokens = engineInputs_;
  et.inputTokensNeeded.assign(engineInputs_.size(), [](int64_t) { return int64_t(0); });
  et.outputTokens = engineOutputs_;
  sg_.graph.nodes[engineNode_].engine = engine_;
  addWordSources();
  sg_.compact();
  sg_.graph.bandwidth.wordsPerCycle = hbm_.channelWordsPerCycle();
  sim::addMemoryStages(sg_.graph, sg_.depths, sg_.reads, model::cadenceOf(hbm_.wordsPerCycle()));
  return std::move(sg_);
}

/// Development aid (ST_STEP_SIM_DUMP): each edge's first and last token as its consumer took it.
void dumpEdgeTimes(const sim::TimingGraph &graph, const sim::TimingSimResult &r,
                   const std::string &path) {
  std::ofstream out(path);
  for (const sim::TimingEdge &edge : graph.edges) {
    const std::vector<int64_t> &c = r.consumeCycle[edge.dst][edge.dstPort];
    out << edge.name << " " << edge.tokens << " " << (c.empty() ? -1 : c.front()) << " "
        << (c.empty() ? -1 : c.back()) << "\n";
  }
}

} // namespace

EngineStepTimer::EngineStepTimer(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                 std::vector<int64_t> layerWindows, const model::MemoryTiming &hbm)
    : g_(g), options_(uniformAcceleratorOptions(*g.program, options)),
      layerWindows_(std::move(layerWindows)), hbm_(hbm) {
  if (g.engine.calls.empty())
    throw Error("step prediction", "design", "a GEMV engine (LinearEngine::Gemv)");
  for (int s = 0; s < 3; ++s) {
    const ir::DataflowGraph &sized = g.stages.at(static_cast<size_t>(s)).dataflow;
    for (ir::StreamId id : sized.streams())
      builtDepths_[depthKey(s, sized.stream(id).name)] = sized.stream(id).fifoDepth;
  }
}

int64_t EngineStepTimer::cyclesAt(int64_t step) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = known_.find(step); it != known_.end())
      return it->second;
  }
  const int64_t cycles = simulate(step);
  const std::lock_guard<std::mutex> lock(mutex_);
  return known_[step] = cycles;
}

int64_t EngineStepTimer::simulate(int64_t step) const {
  StepGraphBuilder builder(g_, options_, hbm_, builtDepths_);
  builder.addInstance({0, 1, "prologue"});
  for (int64_t l = 0; l < g_.layers; ++l) {
    const int64_t window = layerWindows_.empty() ? 0 : layerWindows_[static_cast<size_t>(l)];
    const int64_t rows = std::max<int64_t>(1, window > 0 ? std::min(step, window - 1) : step);
    builder.addInstance({1, rows, "layer" + std::to_string(l), l});
  }
  builder.addInstance({2, 1, "epilogue"});
  const StepGraph sg = builder.finish();
  const sim::TimingSimResult r = sim::simulateDataflowTiming(sg.graph, sg.depths);
  if (r.deadlock)
    throw Error("step prediction", "step " + std::to_string(step),
                "no deadlock in the timing simulation (" + r.deadlockReport + ")");
  countStepSimulation(true, g_.layers, r.makespan);
  if (const char *dump = std::getenv("ST_STEP_SIM_DUMP"))
    dumpEdgeTimes(sg.graph, r, std::string(dump) + "." + std::to_string(step));
  return r.makespan;
}

} // namespace st::llm
