// Step prediction: per-step cycles of the LLM accelerator from the stage graphs' timing
// simulation under the testbench memory's mean behaviour (see step_prediction.h).
#include "llm/step_prediction.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "gen/hbm_layout.h"
#include "model/dma_stream_model.h"
#include "passes/dataflow_timing_sim.h"
#include "passes/memory_stages.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"

namespace st::llm {

namespace {

/// FIFO depth of a stream the design's stage graph does not have (none expected).
constexpr int64_t kUnknownStreamDepth = 2;

/// The design-wide options buildAcceleratorGraph lowers every stage with (one lane count).
AcceleratorOptions uniformOptions(const AcceleratorGraph &g, const AcceleratorOptions &options) {
  AcceleratorOptions uniform = options;
  for (const ir::DecodeStage &stage : g.program->stages)
    uniform.maxLanes = std::min(uniform.maxLanes, stageLanes(stage, options.maxLanes));
  return uniform;
}

} // namespace

int64_t cachedRowsAt(int64_t window, int64_t step) {
  return window > 0 ? std::min(step, window - 1) : step;
}

int64_t stageCyclesAt(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                      int64_t cacheLength, const model::MemoryTiming &hbm) {
  const AcceleratorOptions uniform = uniformOptions(g, options);
  const LoweredStage lowered =
      lowerAcceleratorStage(g.program->stages.at(index), index, uniform, cacheLength);
  const ir::DataflowGraph &df = lowered.dataflow;
  std::vector<ir::StreamId> streams;
  passes::TimingGraph graph = passes::timingGraphOf(df, streams);
  // timingGraphOf numbers the nodes in topological order. Every HBM read becomes the memory
  // and DMA stages of model/memory_read_model.h; the exchanged vector x comes on chip (token
  // source, layer loop), so the stage-input DMAs are simulated as on-chip sources.
  const std::vector<ir::NodeId> order = df.topologicalOrder();
  std::vector<passes::MemoryRead> reads;
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::DataflowNode &node = df.node(order[i]);
    if (node.kind != ir::NodeKind::ReadDma)
      continue;
    const ir::ITensorType &type = node.outputs[0].type;
    if (node.attributes.count(kAttrStageInput)) {
      graph.nodes[i].timing = model::passThroughTiming(type.numTokens(), 0);
      continue;
    }
    passes::MemoryRead r;
    r.node = i;
    r.words = gen::hbmLayoutOf(type).wordsStreamed();
    // Weight and norm-parameter streams have fixed addresses: their sequencers read the next
    // layer's words while this one computes, so the words are there from the start.
    r.startDelay =
        node.attributes.count(kAttrWeightStream) ? 0 : model::memoryStartDelay(r.words, hbm);
    reads.push_back(r);
  }
  // The built design's FIFO depths (sized at the sizing cache length), by stream name.
  std::map<std::string, int64_t> built;
  const ir::DataflowGraph &sized = g.stages.at(index).dataflow;
  for (ir::StreamId s : sized.streams())
    built[sized.stream(s).name] = sized.stream(s).fifoDepth;
  std::vector<int64_t> depths;
  for (ir::StreamId s : streams) {
    auto it = built.find(df.stream(s).name);
    depths.push_back(it != built.end() ? std::max<int64_t>(it->second, 1) : kUnknownStreamDepth);
  }
  passes::addMemoryStages(graph, depths, reads, model::cadenceOf(hbm.wordsPerCycle()));
  const passes::TimingSimResult r = passes::simulateDataflowTiming(graph, depths);
  if (r.deadlock)
    throw Error("step prediction",
                "stage " + std::to_string(index) + " at cache length " +
                    std::to_string(cacheLength),
                "no deadlock in the timing simulation (" + r.deadlockReport + ")");
  return r.makespan;
}

std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows, int64_t steps,
                                       const model::MemoryTiming &hbm) {
  if (steps < 0 || steps > options.maxContext)
    throw Error("step prediction", "steps " + std::to_string(steps),
                "0 .. max context " + std::to_string(options.maxContext));
  if (!layerWindows.empty() && static_cast<int64_t>(layerWindows.size()) != g.layers)
    throw Error("step prediction", "layer windows",
                "one per layer (" + std::to_string(g.layers) + "), got " +
                    std::to_string(layerWindows.size()));
  const int64_t prologue = stageCyclesAt(g, options, 0, 1, hbm);
  const int64_t epilogue = stageCyclesAt(g, options, 2, 1, hbm);
  std::map<int64_t, int64_t> blockAt; // by cached rows (step 0 simulated as 1 row)
  std::vector<int64_t> cycles;
  for (int64_t t = 0; t < steps; ++t) {
    int64_t step = prologue + epilogue;
    for (int64_t l = 0; l < g.layers; ++l) {
      const int64_t window = layerWindows.empty() ? 0 : layerWindows[l];
      const int64_t rows = std::max<int64_t>(1, cachedRowsAt(window, t));
      auto it = blockAt.find(rows);
      if (it == blockAt.end())
        it = blockAt.emplace(rows, stageCyclesAt(g, options, 1, rows, hbm)).first;
      step += it->second;
    }
    cycles.push_back(step);
  }
  return cycles;
}

} // namespace st::llm

namespace st::llm {

RunPrediction predictRun(const std::vector<int64_t> &stepCycles, int64_t promptTokens,
                         int64_t newTokens) {
  const int64_t steps = promptTokens + newTokens - 1;
  if (promptTokens < 1 || newTokens < 1 || steps > static_cast<int64_t>(stepCycles.size()))
    throw Error("step prediction",
                "run of " + std::to_string(promptTokens) + " prompt and " +
                    std::to_string(newTokens) + " new tokens",
                "at least 1 of each and at most " + std::to_string(stepCycles.size()) +
                    " steps (the predicted table)");
  RunPrediction r;
  r.stepCycles.assign(stepCycles.begin(), stepCycles.begin() + steps);
  double prompt = 0, generated = 0;
  for (int64_t t = 0; t < steps; ++t)
    (t < promptTokens ? prompt : generated) += static_cast<double>(stepCycles[t]);
  r.promptCyclesPerToken = prompt / static_cast<double>(promptTokens);
  if (steps > promptTokens)
    r.generatedCyclesPerToken = generated / static_cast<double>(steps - promptTokens);
  return r;
}

} // namespace st::llm
