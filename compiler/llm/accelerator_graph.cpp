// Accelerator graph: the stages of a DecodeProgram joined through the decode-loop control nodes
// (see accelerator_graph.h).
#include "llm/accelerator_graph.h"

#include <algorithm>
#include <utility>

#include "model/kernel_templates.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::llm {

namespace {

constexpr const char *kStageNames[] = {"prologue", "block", "epilogue"};
/// Attribute of the debug-tap write DMAs the builder adds.
constexpr const char *kAttrDebugTap = "debug_tap";
/// The exchanged names the joined graph routes through control nodes.
constexpr const char *kResidual = "x";

/// The FIFO of a stream the builder adds between control nodes and stages: a register slice.
constexpr int64_t kControlFifoDepth = 2;

ir::NodeId onlyNodeWith(const ir::DataflowGraph &df, const char *attribute,
                        const std::string &tensorName, const ir::DecodeStage &stage) {
  for (ir::NodeId n : df.nodes()) {
    const ir::DataflowNode &node = df.node(n);
    if (node.attributes.count(attribute) && node.tensor &&
        stage.exportedName(stage.graph.tensor(*node.tensor).name) == tensorName)
      return n;
  }
  throw Error("accelerator", "stage '" + stage.name + "'",
              std::string("a ") + attribute + " DMA for '" + tensorName + "'");
}

} // namespace

LoweredStage lowerAcceleratorStage(const ir::DecodeProgram &program, int index,
                                   const AcceleratorOptions &options, int64_t cacheLength) {
  const ir::DecodeStage &stage = program.stages.at(static_cast<size_t>(index));
  StageLoweringOptions o;
  o.precision = options.precision;
  o.maxLanes = options.maxLanes;
  o.maxContext = options.maxContext;
  o.cacheLength = std::clamp<int64_t>(cacheLength, 1, options.maxContext - 1);
  o.gemvEngine = options.engine == LinearEngine::Gemv;
  o.attentionKvStep = options.attentionKvStep;
  o.attentionHeadSplit = options.attentionHeadSplit;
  o.attentionReadStep = options.attentionReadStep;
  o.attentionBlockMajor = options.attentionBlockMajor;
  o.attentionPositionSlices = options.attentionPositionSlices;
  o.attentionTilePositions = options.attentionTilePositions;
  if (o.gemvEngine)
    o.engineShape = gemvEngineShapeOf(program, options.precision, options.maxLanes,
                                      options.engineChannels, options.enginePackedPairs);
  LoweredStage lowered = lowerStage(stage, o);
  ir::DataflowGraph &df = lowered.dataflow;
  if (index == 1 && options.debugTaps) {
    const ir::NodeId out = onlyNodeWith(df, kAttrStageOutput, kResidual, stage);
    const ir::PortRef src = df.stream(*df.streamInto({out, 0})).src;
    ir::DataflowNode tap = df.node(out);
    tap.name = "tap_" + stage.graph.tensor(*tap.tensor).name;
    tap.attributes.clear();
    tap.attributes[kAttrDebugTap] = 1;
    const ir::NodeId t = df.addNode(std::move(tap));
    df.connect(src, {t, 0}, df.node(t).name);
  }
  if (index == 2) {
    const ir::NodeId logits =
        onlyNodeWith(df, kAttrStageOutput, ir::DecodeProgram::kLogitsOutput, stage);
    if (options.debugTaps) {
      df.node(logits).attributes.erase(kAttrStageOutput);
      df.node(logits).attributes[kAttrDebugTap] = 1;
      df.node(logits).name = "tap_logits";
    } else {
      df.removeStream(*df.streamInto({logits, 0}));
      df.removeNode(logits);
    }
  }
  passes::CompileState state;
  state.graph = &stage.graph;
  state.dataflow = std::move(df);
  state.dataflow.verify({true, false, false});
  passes::insertForks(state);
  lowered.dataflow = std::move(state.dataflow);
  return lowered;
}

namespace {

/// On the GEMV engine every vector stream holds a whole vector (docs/decisions.md): the engine
/// runs the calls in program order, so a kernel waiting for a later call (attention for v, the
/// gated activation for up) must take the earlier calls' whole outputs, and a bypass (the
/// residual's x) must hold its vector until the engine gets to the call it waits for. The LP
/// sees each call as an engine of its own and cannot know this. Cache and parameter streams from
/// DMAs keep their LP depths; a forced depth (fault tests) is applied after the join and wins.
void holdWholeVectors(ir::DataflowGraph &df) {
  for (ir::StreamId s : df.streams()) {
    ir::Stream &st = df.stream(s);
    const ir::DataflowNode &src = df.node(st.src.node);
    if (src.kind == ir::NodeKind::ReadDma &&
        (src.attributes.count(kAttrKvCacheRead) || src.attributes.count(kAttrWeightStream)))
      continue;
    st.fifoDepth = std::max(st.fifoDepth, df.srcPort(st).type.numTokens());
  }
}

/// Lowers stage `index` at the sizing cache length (lowerAcceleratorStage) and sizes the FIFOs
/// without the timing-model bisection.
LoweredStage lowerAndSize(const ir::DecodeProgram &program, int index,
                          const AcceleratorOptions &options, int64_t &predictedCycles) {
  const ir::DecodeStage &stage = program.stages.at(static_cast<size_t>(index));
  LoweredStage lowered = lowerAcceleratorStage(program, index, options, options.sizingCacheLength);
  passes::CompileState state;
  state.graph = &stage.graph;
  state.dataflow = std::move(lowered.dataflow);
  state.options.searchMinDepths = false;
  state.options.predictKernelCycles = false;
  passes::sizeStreamFifos(state);
  if (options.engine == LinearEngine::Gemv)
    holdWholeVectors(state.dataflow);
  state.dataflow.verify({true, true, true});
  lowered.dataflow = std::move(state.dataflow);
  predictedCycles = state.predictedCycles;
  return lowered;
}

AcceleratorRole roleOf(const ir::DataflowNode &node) {
  if (node.kind == ir::NodeKind::Fork)
    return AcceleratorRole::Fork;
  if (node.attributes.count(kAttrKvCacheRead))
    return AcceleratorRole::KvCacheRead;
  if (node.attributes.count(kAttrKvAppend))
    return AcceleratorRole::KvAppend;
  if (node.attributes.count(kAttrWeightStream))
    return AcceleratorRole::WeightStream;
  if (node.attributes.count(kAttrDebugTap))
    return AcceleratorRole::Tap;
  return AcceleratorRole::Kernel;
}

/// Joins the lowered stages into one graph.
class Joiner {
public:
  Joiner(AcceleratorGraph &g, const AcceleratorOptions &options) : g_(g), options_(options) {}

  void run() {
    for (int i = 0; i < 3; ++i)
      copyStage(i);
    addControl();
    if (options_.engine == LinearEngine::Gemv)
      joinGemvEngine(g_, joinedOf_, options_);
    for (const auto &[name, depth] : options_.forcedDepths) {
      bool found = false;
      for (ir::StreamId s : df().streams())
        if (df().stream(s).name == name) {
          df().stream(s).fifoDepth = depth;
          found = true;
        }
      if (!found)
        throw Error("--fifo-depth", "stream '" + name + "'", "a stream of the design");
    }
  }

private:
  ir::DataflowGraph &df() { return g_.dataflow; }

  ir::NodeId add(ir::DataflowNode node, AcceleratorNode info) {
    const ir::NodeId n = df().addNode(std::move(node));
    g_.nodes[n] = info;
    return n;
  }

  void copyStage(int i) {
    const ir::DataflowGraph &sdf = g_.stages[i].dataflow;
    const ir::DecodeStage &stage = g_.program->stages[i];
    std::map<ir::NodeId, ir::NodeId> merged;
    for (ir::NodeId n : sdf.nodes()) {
      const ir::DataflowNode &node = sdf.node(n);
      if (node.attributes.count(kAttrStageInput) || node.attributes.count(kAttrStageOutput))
        continue;
      ir::DataflowNode copy = node;
      copy.name = stage.name + "_" + node.name;
      merged[n] = add(std::move(copy), {roleOf(node), i, n, stage.repeat});
      joinedOf_[{i, n}] = merged[n];
    }
    for (ir::StreamId s : sdf.streams()) {
      const ir::Stream &st = sdf.stream(s);
      const ir::DataflowNode &src = sdf.node(st.src.node), &dst = sdf.node(st.dst.node);
      if (src.attributes.count(kAttrStageInput)) {
        const std::string name = stage.graph.tensor(*src.tensor).name;
        consumers_[{i, name}] = {merged.at(st.dst.node), st.dst.port};
        types_[{i, name}] = src.outputs[0].type;
        continue;
      }
      if (dst.attributes.count(kAttrStageOutput)) {
        const std::string name = stage.exportedName(stage.graph.tensor(*dst.tensor).name);
        producers_[{i, name}] = {merged.at(st.src.node), st.src.port};
        types_[{i, name + ".out"}] = dst.inputs[0].type;
        continue;
      }
      const ir::StreamId m =
          df().connect({merged.at(st.src.node), st.src.port}, {merged.at(st.dst.node), st.dst.port},
                       stage.name + "_" + st.name);
      df().stream(m).fifoDepth = st.fifoDepth;
    }
  }

  ir::PortRef takeConsumer(int stage, const std::string &name) {
    auto it = consumers_.find({stage, name});
    if (it == consumers_.end())
      throw Error("accelerator", "stage '" + std::string(kStageNames[stage]) + "'",
                  "an input '" + name + "'");
    const ir::PortRef p = it->second;
    consumers_.erase(it);
    return p;
  }
  ir::PortRef takeProducer(int stage, const std::string &name) {
    auto it = producers_.find({stage, name});
    if (it == producers_.end())
      throw Error("accelerator", "stage '" + std::string(kStageNames[stage]) + "'",
                  "an output exported as '" + name + "'");
    const ir::PortRef p = it->second;
    producers_.erase(it);
    return p;
  }
  const ir::ITensorType &typeOf(int stage, const std::string &key) {
    auto it = types_.find({stage, key});
    if (it == types_.end())
      throw Error("accelerator", "stage '" + std::string(kStageNames[stage]) + "'",
                  "a stream '" + key + "'");
    return it->second;
  }

  void link(ir::PortRef src, ir::PortRef dst, const std::string &name) {
    df().stream(df().connect(src, dst, name)).fifoDepth = kControlFifoDepth;
  }

  ir::DataflowNode controlNode(const std::string &name, const std::string &module,
                               ir::NodeKind kind = ir::NodeKind::Kernel) {
    ir::DataflowNode node;
    node.name = name;
    node.module = module;
    node.kind = kind;
    return node;
  }

  void addControl() {
    // The residual vector x must stream alike at every stage boundary.
    const ir::ITensorType x = typeOf(0, std::string(kResidual) + ".out");
    for (auto [stage, key] :
         {std::pair{1, std::string(kResidual)}, std::pair{1, std::string(kResidual) + ".out"},
          std::pair{2, std::string(kResidual)}})
      if (!(typeOf(stage, key) == x))
        throw Error("accelerator", "stage '" + std::string(kStageNames[stage]) + "' vector 'x'",
                    "the prologue's stream " + x.toString() +
                        " (one lane count for every stage), got " + typeOf(stage, key).toString());
    g_.lanes = x.elementsPerToken();

    ir::DataflowNode loop = controlNode("layer_loop", model::layerLoopTemplate().module());
    loop.inputs = {{"first", x}, {"loop", x}};
    loop.outputs = {{"block", x}, {"last", x}};
    model::LayerLoopParams loopParams;
    loopParams.width = x.elementsPerToken() * ir::elementBits(x.elementType);
    loopParams.vecTokens = x.numTokens();
    loopParams.layers = g_.layers;
    loop.params = model::layerLoopTemplate().encode(loopParams);
    const ir::NodeId l = add(std::move(loop), {AcceleratorRole::LayerLoop});
    link(takeProducer(0, kResidual), {l, 0}, "x_first");
    link({l, 0}, takeConsumer(1, kResidual), "x_block");
    link(takeProducer(1, kResidual), {l, 1}, "x_loop");
    link({l, 1}, takeConsumer(2, kResidual), "x_last");

    const ir::ITensorType id = typeOf(0, ir::DecodeProgram::kTokenInput);
    ir::DataflowNode source = controlNode("token_source", "st_token_source");
    source.inputs = {{"prompt", id}, {"argmax", id}};
    source.outputs = {{"token", id}, {"gen", id}};
    const ir::NodeId ts = add(std::move(source), {AcceleratorRole::TokenSource});
    ir::DataflowNode prompt = controlNode("rd_prompt", "st_read_dma_stream", ir::NodeKind::ReadDma);
    prompt.outputs = {{"out", id}};
    const ir::NodeId pr = add(std::move(prompt), {AcceleratorRole::PromptRead});
    ir::DataflowNode tokens =
        controlNode("wr_tokens", "st_write_dma_stream", ir::NodeKind::WriteDma);
    tokens.inputs = {{"in", id}};
    const ir::NodeId tw = add(std::move(tokens), {AcceleratorRole::TokenWrite});
    link({pr, 0}, {ts, 0}, "prompt_ids");
    link(takeProducer(2, ir::DecodeProgram::kNextTokenOutput), {ts, 1}, "next_token");
    link({ts, 0}, takeConsumer(0, ir::DecodeProgram::kTokenInput), "token");
    link({ts, 1}, {tw, 0}, "generated");

    if (consumers_.count({0, ir::DecodeProgram::kPositionInput})) {
      ir::DataflowNode pos = controlNode("position_source", "st_step_sequencer");
      pos.outputs = {{"out", typeOf(0, ir::DecodeProgram::kPositionInput)}};
      const ir::NodeId p = add(std::move(pos), {AcceleratorRole::PositionSource});
      link({p, 0}, takeConsumer(0, ir::DecodeProgram::kPositionInput), "position");
    }
    if (!consumers_.empty())
      throw Error("accelerator",
                  "stage '" + std::string(kStageNames[consumers_.begin()->first.first]) +
                      "' input '" + consumers_.begin()->first.second + "'",
                  "an input the decode loop provides (x, token, pos)");
    if (!producers_.empty())
      throw Error("accelerator",
                  "stage '" + std::string(kStageNames[producers_.begin()->first.first]) +
                      "' output '" + producers_.begin()->first.second + "'",
                  "an output the decode loop consumes (x, logits, next_token)");
  }

  AcceleratorGraph &g_;
  const AcceleratorOptions &options_;
  std::map<std::pair<int, std::string>, ir::PortRef> consumers_, producers_;
  std::map<std::pair<int, std::string>, ir::ITensorType> types_;
  /// (stage, stage node) -> joined node.
  std::map<std::pair<int, ir::NodeId>, ir::NodeId> joinedOf_;
};

} // namespace

const char *toString(AcceleratorRole role) {
  switch (role) {
  case AcceleratorRole::Kernel:
    return "kernel";
  case AcceleratorRole::Fork:
    return "fork";
  case AcceleratorRole::WeightStream:
    return "weight stream";
  case AcceleratorRole::KvCacheRead:
    return "kv cache read";
  case AcceleratorRole::KvAppend:
    return "kv append";
  case AcceleratorRole::Tap:
    return "debug tap";
  case AcceleratorRole::PromptRead:
    return "prompt read";
  case AcceleratorRole::TokenWrite:
    return "token write";
  case AcceleratorRole::TokenSource:
    return "token source";
  case AcceleratorRole::LayerLoop:
    return "layer loop";
  case AcceleratorRole::PositionSource:
    return "position source";
  case AcceleratorRole::Engine:
    return "gemv engine";
  case AcceleratorRole::EngineStream:
    return "engine weight stream";
  }
  return "?";
}

const char *toString(LinearEngine engine) {
  return engine == LinearEngine::Gemv ? "gemv" : "per-op";
}

LinearEngine parseLinearEngine(const std::string &text, const std::string &field) {
  if (text == "gemv")
    return LinearEngine::Gemv;
  if (text == "per-op")
    return LinearEngine::PerOp;
  throw Error(field, text, "gemv (the shared GEMV engine) or per-op (one st_linear per linear)");
}

int64_t AcceleratorGraph::predictedCyclesPerStep() const {
  return stageCycles.at(0) + layers * stageCycles.at(1) + stageCycles.at(2);
}

AcceleratorOptions uniformAcceleratorOptions(const ir::DecodeProgram &program,
                                             const AcceleratorOptions &options) {
  AcceleratorOptions uniform = options;
  for (const ir::DecodeStage &stage : program.stages)
    uniform.maxLanes = std::min(uniform.maxLanes, stageLanes(stage, options.maxLanes,
                                                             options.engine == LinearEngine::Gemv));
  return uniform;
}

AcceleratorGraph buildAcceleratorGraph(const ir::DecodeProgram &program,
                                       const AcceleratorOptions &options) {
  if (program.stages.size() != 3)
    throw Error("accelerator", "decode program (" + program.architecture + ")",
                "three stages (prologue, block, epilogue), got " +
                    std::to_string(program.stages.size()));
  for (int i = 0; i < 3; ++i)
    if (program.stages[i].name != kStageNames[i] || (i != 1 && program.stages[i].repeat != 1))
      throw Error("accelerator", "stage " + std::to_string(i) + " '" + program.stages[i].name + "'",
                  std::string("'") + kStageNames[i] + "'" + (i != 1 ? " run once per step" : ""));
  if (options.maxContext < 2)
    throw Error("accelerator", "--max-context",
                "at least 2, got " + std::to_string(options.maxContext));
  AcceleratorGraph g;
  g.program = &program;
  g.layers = program.stages[1].repeat;
  const AcceleratorOptions uniform = uniformAcceleratorOptions(program, options);
  // The stages are lowered and sized independently (on the machine's cores).
  std::vector<LoweredStage> stages(3);
  std::vector<int64_t> cycles(3, 0);
  parallelFor(3, [&](size_t i) {
    stages[i] = lowerAndSize(program, static_cast<int>(i), uniform, cycles[i]);
  });
  g.stages = std::move(stages);
  g.stageCycles = cycles;
  Joiner(g, options).run();
  return g;
}

const ir::DataflowNode &stageNodeOf(const AcceleratorGraph &g, ir::NodeId n) {
  const AcceleratorNode &info = g.nodes.at(n);
  if (info.stage < 0)
    return g.dataflow.node(n);
  return g.stages.at(info.stage).dataflow.node(info.stageNode);
}

} // namespace st::llm
