// GEMV engine join: the stages' engine calls become one shared engine (see gemv_engine_join.h).
#include "llm/gemv_engine_join.h"

#include <algorithm>
#include <optional>
#include <set>

#include "frontend/quantized_model.h"
#include "llm/accelerator_graph.h"
#include "model/kernel_templates.h"
#include "support/error.h"

namespace st::llm {

namespace {

/// Bits of an HBM word, and of the engine's channel words.
constexpr int64_t kWordBits = 512;

/// The port that really produces the tokens of stream `s`: through forks, to their input.
ir::PortRef trueSource(const ir::DataflowGraph &df, ir::StreamId s) {
  ir::PortRef src = df.stream(s).src;
  while (df.node(src.node).kind == ir::NodeKind::Fork)
    src = df.stream(*df.streamInto({src.node, 0})).src;
  return src;
}

/// Drops output ports `drop` of fork `f` (their streams already removed): the remaining streams
/// are renumbered; a fork left with one output is bypassed (its input stream now ends where its
/// output stream did, with the deeper of the two FIFOs). Returns whether the fork was removed.
bool dropForkOutputs(ir::DataflowGraph &df, ir::NodeId f, const std::set<unsigned> &drop) {
  ir::DataflowNode &fork = df.node(f);
  std::vector<ir::NodePort> outputs;
  std::map<unsigned, unsigned> renumber;
  for (unsigned p = 0; p < fork.outputs.size(); ++p)
    if (!drop.count(p)) {
      renumber[p] = static_cast<unsigned>(outputs.size());
      outputs.push_back(fork.outputs[p]);
    }
  for (ir::StreamId s : df.streams())
    if (df.stream(s).src.node == f)
      df.stream(s).src.port = renumber.at(df.stream(s).src.port);
  fork.outputs = outputs;
  for (unsigned p = 0; p < fork.outputs.size(); ++p)
    fork.outputs[p].name = "out" + std::to_string(p);
  model::ForkParams p = model::forkTemplate().decode(fork);
  p.branches = static_cast<int64_t>(fork.outputs.size());
  fork.params = model::forkTemplate().encode(p);
  if (fork.outputs.size() != 1)
    return false;
  const ir::StreamId in = *df.streamInto({f, 0});
  const ir::StreamId out = df.streamsFrom({f, 0}).at(0);
  const ir::PortRef dst = df.stream(out).dst;
  const int64_t depth = std::max(df.stream(in).fifoDepth, df.stream(out).fifoDepth);
  df.removeStream(out);
  df.stream(in).dst = dst;
  df.stream(in).fifoDepth = depth;
  df.removeNode(f);
  return true;
}

} // namespace

int64_t engineFifoDepth(const EngineUse &engine, const AcceleratorOptions &options) {
  return std::max<int64_t>(2, std::min(options.engineFifoWords, engine.channelWordsPerStep()));
}

int64_t EngineUse::channelWordsPerStep() const {
  int64_t words = 0;
  for (const EngineCall &c : calls)
    words += c.channelWords * (c.stage == 1 ? layers : 1);
  return words;
}

std::optional<numerics::GemvNextX> EngineUse::nextXOf(size_t index, int64_t layer) const {
  const EngineCall &call = calls.at(index);
  const EngineCall *next = nullptr;
  if (index + 1 < calls.size() && calls[index + 1].stage == call.stage) {
    next = &calls[index + 1];
  } else if (call.stage == 1) {
    // The block's last call: the next layer's first block call, or after the last layer the
    // epilogue's first call.
    const int wanted = layer + 1 < layers ? 1 : 2;
    for (const EngineCall &c : calls)
      if (c.stage == wanted) {
        next = &c;
        break;
      }
  }
  if (!next || next->reuseX)
    return std::nullopt;
  return numerics::GemvNextX{int64_t(next->xPort), next->k};
}

numerics::GemvEngineShape gemvEngineShapeOf(const ir::DecodeProgram &program,
                                            numerics::Precision precision, int64_t lanes,
                                            int64_t channels, int64_t packedPairs) {
  numerics::GemvEngineShape s;
  s.channels = channels;
  s.packedPairs = packedPairs;
  s.lanes = lanes;
  s.weightBits = numerics::weightBitsOf(precision);
  s.activationBits = numerics::activationBitsOf(precision);
  s.maxK = 0;
  s.outputBits = 2;
  struct Linear {
    std::string name;
    int64_t k, groupSize;
  };
  std::vector<Linear> linears;
  for (size_t stage = 1; stage < program.stages.size(); ++stage) {
    const ir::TensorGraph &g = program.stages[stage].graph;
    for (ir::OpId o = 0; o < g.numOps(); ++o) {
      const ir::Op &op = g.op(o);
      if (!std::holds_alternative<ir::LinearAttrs>(op.llm))
        continue;
      const int64_t k = g.tensor(op.inputs[1].tensor).shape.at(1);
      const numerics::WeightFormat f = frontend::weightFormatFor(precision, static_cast<size_t>(k));
      linears.push_back(
          {program.stages[stage].name + "/" + op.name, k,
           f.groupSize == static_cast<size_t>(k) ? 0 : static_cast<int64_t>(f.groupSize)});
      s.maxK = std::max(s.maxK, k);
      s.outputBits = std::max<int64_t>(s.outputBits, frontend::outputCodeBits(g, o, precision));
    }
  }
  if (linears.empty())
    throw Error("gemv engine", "decode program (" + program.architecture + ")",
                "a linear in the block or the epilogue");
  int64_t kLanes = kWordBits / s.weightBits;
  for (const Linear &l : linears)
    while (kLanes > 1 && (l.k % kLanes != 0 || (l.groupSize > 0 && l.groupSize % kLanes != 0 &&
                                                kLanes % l.groupSize != 0)))
      kLanes /= 2;
  if (kLanes < lanes || kLanes % lanes != 0)
    throw Error("gemv engine", "linears of " + program.architecture,
                "K that a power-of-two KLanes of at least the " + std::to_string(lanes) +
                    " lanes divides, got KLanes " + std::to_string(kLanes));
  s.kLanes = kLanes;
  s.segLanes = kLanes;
  for (const Linear &l : linears)
    if (l.groupSize > 0)
      s.segLanes = std::min(s.segLanes, l.groupSize);
  return s;
}

void joinGemvEngine(AcceleratorGraph &g,
                    const std::map<std::pair<int, ir::NodeId>, ir::NodeId> &joinedOf,
                    const AcceleratorOptions &options) {
  ir::DataflowGraph &df = g.dataflow;
  EngineUse engine;
  engine.layers = g.layers;
  // The calls in program order: the block's in its topological order, then the epilogue's.
  std::vector<ir::NodeId> callNodes;
  for (int stage : {1, 2})
    for (ir::NodeId n : g.stages[static_cast<size_t>(stage)].dataflow.topologicalOrder()) {
      const ir::DataflowNode &node = g.stages[static_cast<size_t>(stage)].dataflow.node(n);
      if (!node.attributes.count(kAttrEngineCall))
        continue;
      EngineCall c;
      c.stage = stage;
      c.stageNode = n;
      c.op = node.name;
      const model::GemvCallParams p = model::gemvCallTemplate().decode(node);
      c.k = p.k;
      c.nOut = p.nOut;
      c.nDeliver = p.nDeliver;
      c.groupSize = p.groupSize;
      c.outputBits = p.outputBits;
      engine.calls.push_back(c);
      callNodes.push_back(joinedOf.at({stage, n}));
    }
  if (engine.calls.empty())
    throw Error("gemv engine", "design", "at least one linear for the engine");
  for (ir::NodeId n : g.stages[0].dataflow.nodes())
    if (g.stages[0].dataflow.node(n).attributes.count(kAttrEngineCall))
      throw Error("gemv engine",
                  "stage 'prologue' linear '" + g.stages[0].dataflow.node(n).name + "'",
                  "no linear in the prologue (the engine serves the block and the epilogue)");
  engine.shape = gemvEngineShapeOf(*g.program, options.precision, g.lanes, options.engineChannels,
                                   options.enginePackedPairs);
  for (EngineCall &c : engine.calls)
    c.channelWords = numerics::gemvWordsPerChannel(c.k, c.nDeliver, c.groupSize, engine.shape);

  ir::DataflowNode node;
  node.kind = ir::NodeKind::Kernel;
  node.module = model::gemvEngineTemplate().module();
  node.name = "gemv_engine";
  // x ports: one per run of consecutive calls reading the same vector.
  std::optional<ir::PortRef> lastSource;
  std::map<ir::NodeId, std::set<unsigned>> forkDrops;
  std::vector<std::pair<ir::StreamId, unsigned>> xStreams, yStreams; // stream, engine port
  for (size_t i = 0; i < callNodes.size(); ++i) {
    EngineCall &c = engine.calls[i];
    const ir::StreamId x = *df.streamInto({callNodes[i], 0});
    const ir::PortRef source = trueSource(df, x);
    // The layer loop feeds the block anew for every layer; x is reused only within a stage.
    c.reuseX = lastSource && *lastSource == source && i > 0 && engine.calls[i - 1].stage == c.stage;
    lastSource = source;
    if (c.reuseX) {
      c.xPort = engine.calls[i - 1].xPort;
      const ir::PortRef src = df.stream(x).src;
      if (df.node(src.node).kind != ir::NodeKind::Fork)
        throw Error("gemv engine", "call '" + c.op + "'", "its x through a fork");
      forkDrops[src.node].insert(src.port);
      df.removeStream(x);
    } else {
      c.xPort = static_cast<unsigned>(node.inputs.size());
      node.inputs.push_back({"x" + std::to_string(c.xPort), df.dstPort(df.stream(x)).type});
      xStreams.push_back({x, c.xPort});
    }
    const std::vector<ir::StreamId> ys = df.streamsFrom({callNodes[i], 0});
    if (ys.size() != 1)
      throw Error("gemv engine", "call '" + c.op + "'", "one output stream (forks inserted)");
    c.yPort = static_cast<unsigned>(node.outputs.size());
    node.outputs.push_back({"y" + std::to_string(c.yPort), df.srcPort(df.stream(ys[0])).type});
    yStreams.push_back({ys[0], c.yPort});
  }
  const unsigned numX = static_cast<unsigned>(node.inputs.size());
  engine.shape.numX = numX;
  engine.shape.numY = static_cast<int64_t>(node.outputs.size());
  // Weight ports: one 512-bit word stream per pseudo-channel.
  ir::ITensorType words;
  words.elementShape = {1, kWordBits / 8};
  words.elementType = "i8";
  words.loops = {{engine.channelWordsPerStep(), 1}};
  words.iterMap = {0u, std::nullopt};
  words.verify();
  for (int64_t ch = 0; ch < engine.shape.channels; ++ch)
    node.inputs.push_back({"w" + std::to_string(ch), words});
  // An unpacked engine leaves PackedPairs out (the template's default 0): its text stays.
  node.params = model::gemvEngineTemplate().encode(engine.shape);
  engine.node = df.addNode(std::move(node));
  g.nodes[engine.node] = {AcceleratorRole::Engine, -1, 0, 1};
  for (const auto &[s, port] : xStreams)
    df.stream(s).dst = {engine.node, port};
  for (const auto &[s, port] : yStreams)
    df.stream(s).src = {engine.node, port};
  for (const auto &[f, drop] : forkDrops)
    if (dropForkOutputs(df, f, drop))
      g.nodes.erase(f);
  for (ir::NodeId n : callNodes) {
    df.removeNode(n);
    g.nodes.erase(n);
  }
  for (int64_t ch = 0; ch < engine.shape.channels; ++ch) {
    const ir::NodeId d = df.addNode(ir::readDmaNode("rd_gemv_w" + std::to_string(ch), words));
    g.nodes[d] = {AcceleratorRole::EngineStream, -1, 0, 1};
    const ir::StreamId s = df.connect({d, 0}, {engine.node, numX + static_cast<unsigned>(ch)},
                                      "gemv_w" + std::to_string(ch));
    df.stream(s).fifoDepth = engineFifoDepth(engine, options);
    engine.channelDmas.push_back(d);
  }
  g.engine = std::move(engine);
}

} // namespace st::llm
