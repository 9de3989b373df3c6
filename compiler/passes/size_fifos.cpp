// Pass size-fifos: annotates every node with its timing from the one model of its template
// (compiler/model/: matmul, reduce, generated element-wise, layout converter, DMA streams; forks
// and views pass tokens through) and sizes every stream's FIFO by the linear program of
// fifo_sizing.h in the chosen mode (lp, conservative, deep). Records the predicted cycles and
// the LP's solve time for the report.
#include "ir/converter_program.h"
#include "ir/hbm_layout.h"
#include "model/converter_model.h"
#include "model/dma_stream_model.h"
#include "model/graph_kernel_params.h"
#include "model/llm_kernel_catalog.h"
#include "passes/fifo_sizing.h"
#include "passes/kernel_cycles.h"
#include "passes/pass_pipeline.h"
#include "sim/dataflow_timing_sim.h"
#include "support/error.h"

namespace st::passes {

namespace {

model::KernelTiming timingOf(const ir::DataflowGraph &df, const ir::DataflowNode &node) {
  switch (node.kind) {
  case ir::NodeKind::ReadDma: {
    const ir::ITensorType &t = node.outputs[0].type;
    return model::readDmaStreamTiming(t.numTokens(), ir::readDmaWordsPerChannel(node));
  }
  case ir::NodeKind::WriteDma:
    return model::writeDmaStreamTiming(node.inputs[0].type.numTokens());
  case ir::NodeKind::Fork:
  case ir::NodeKind::View:
    return model::passThroughTiming(node.inputs[0].type.numTokens());
  case ir::NodeKind::Converter:
    return model::layoutConverterTiming(ir::buildConverterProgram(
        node.inputs[0].type, node.outputs[0].type,
        ir::inferConverterBuffer(node.inputs[0].type, node.outputs[0].type)));
  case ir::NodeKind::Kernel:
    break;
  }
  if (auto llm = model::llmKernelTiming(node))
    return *llm;
  if (node.module == "st_matmul")
    return model::matmulTiming(model::matmulParamsOf(node));
  if (node.module == "st_reduce")
    return model::reduceTiming(model::reduceParamsOf(node));
  if (auto p = model::elementwiseGeneratedParamsOf(df, node))
    return model::elementwiseGeneratedTiming(*p);
  throw Error("timing", "kernel '" + node.name + "'", "a timing model for module " + node.module);
}

} // namespace

sim::TimingGraph timingGraphOf(const ir::DataflowGraph &df,
                               std::vector<ir::StreamId> &edgeStreams) {
  sim::TimingGraph g;
  std::map<ir::NodeId, size_t> index;
  for (ir::NodeId n : df.topologicalOrder()) {
    index[n] = g.nodes.size();
    g.nodes.push_back({df.node(n).name, timingOf(df, df.node(n)), nullptr, {}});
  }
  edgeStreams.clear();
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    g.edges.push_back({st.name, index.at(st.src.node), index.at(st.dst.node), st.dst.port,
                       df.srcPort(st).type.numTokens(), df.tokenBits(st)});
    edgeStreams.push_back(s);
  }
  return g;
}

void sizeStreamFifos(CompileState &state) {
  std::vector<ir::StreamId> streams;
  const sim::TimingGraph graph = timingGraphOf(state.dataflow, streams);
  FifoSizingOptions options;
  options.mode = state.options.fifoMode;
  const FifoSizingResult result = sizeFifos(graph, options);
  for (size_t e = 0; e < streams.size(); ++e) {
    int64_t depth = result.edges[e].depth;
    auto forced = state.options.forcedDepths.find(state.dataflow.stream(streams[e]).name);
    if (forced != state.options.forcedDepths.end())
      depth = forced->second;
    state.dataflow.stream(streams[e]).fifoDepth = depth;
  }
  for (const auto &[name, depth] : state.options.forcedDepths) {
    bool found = false;
    for (ir::StreamId s : streams)
      found = found || state.dataflow.stream(s).name == name;
    if (!found)
      throw Error("--fifo-depth", "stream '" + name + "'", "a stream of the design");
  }
  // Beside each LP depth: the smallest depth that keeps the cycles within 2 % of deep FIFOs in
  // the cycle-level timing simulation, found by bisection with the other FIFOs at their LP depth.
  // The search starts at 2, the least depth the design instantiates (a register slice).
  std::vector<int64_t> depths;
  for (ir::StreamId s : streams)
    depths.push_back(state.dataflow.stream(s).fifoDepth);
  sim::TimingSimResult deep;
  deep.deadlock = true; // not simulated
  if (state.options.searchMinDepths)
    deep = sim::simulateDataflowTiming(graph, std::vector<int64_t>(depths.size(), 8192));
  const int64_t budget = deep.deadlock ? 0 : deep.makespan + deep.makespan / 50;
  state.searchedMinDepths.assign(depths.size(), 0);
  for (size_t e = 0; e < depths.size() && !deep.deadlock && state.options.searchMinDepths; ++e) {
    int64_t hi = std::max<int64_t>(depths[e], 1), lo = std::min<int64_t>(2, hi);
    auto fits = [&](int64_t d) {
      std::vector<int64_t> trial = depths;
      trial[e] = d;
      const sim::TimingSimResult r = sim::simulateDataflowTiming(graph, trial);
      return !r.deadlock && r.makespan <= budget;
    };
    if (!fits(hi)) {
      state.searchedMinDepths[e] = -1; // the LP depth itself misses the budget (reported)
      continue;
    }
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (fits(mid))
        hi = mid;
      else
        lo = mid + 1;
    }
    state.searchedMinDepths[e] = lo;
  }
  state.deepCycles = deep.deadlock ? 0 : deep.makespan;
  state.predictedCycles = result.predictedMakespan;
  // What sim measures as kernel_cycles, under its default memory and the deterministic one
  // (--jitter 0 --ready-probability 1).
  model::MemoryTiming simDefault, deterministic;
  deterministic.readLatencyJitter = 0;
  deterministic.readyProbability = 1;
  state.kernelCycles.clear();
  if (state.options.predictKernelCycles) // LLM stages have their own per-step prediction
    for (const auto &[name, memory] : {std::make_pair("sim_default", simDefault),
                                       std::make_pair("deterministic", deterministic)})
      state.kernelCycles.push_back({name, memory, predictKernelCycles(state.dataflow, memory)});
  state.fifoSolveSeconds = result.solveSeconds;
  state.invariants.fifosSized = true;
}

} // namespace st::passes
