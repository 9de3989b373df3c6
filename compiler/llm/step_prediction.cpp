// Step prediction: per-step cycles of the LLM accelerator from the stage graphs' timing
// simulation under the testbench memory's mean behaviour (see step_prediction.h).
#include "llm/step_prediction.h"

#include <algorithm>
#include <map>
#include <string>

#include "ir/hbm_layout.h"
#include "llm/accelerator_options_json.h"
#include "llm/engine_step_prediction.h"
#include "llm/prediction_work.h"
#include "model/dma_stream_model.h"
#include "passes/pass_pipeline.h"
#include "sim/dataflow_timing_sim.h"
#include "sim/memory_stages.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::llm {

namespace {

/// FIFO depth of a stream the design's stage graph does not have (none expected).
constexpr int64_t kUnknownStreamDepth = 2;

} // namespace

int64_t cachedRowsAt(int64_t window, int64_t step) {
  return window > 0 ? std::min(step, window - 1) : step;
}

StageTimer::StageTimer(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                       const model::MemoryTiming &hbm)
    : g_(g), options_(uniformAcceleratorOptions(*g.program, options)), index_(index), hbm_(hbm) {
  // The built design's FIFO depths (sized at the sizing cache length), by stream name.
  const ir::DataflowGraph &sized = g.stages.at(index).dataflow;
  for (ir::StreamId s : sized.streams())
    builtDepths_[sized.stream(s).name] = sized.stream(s).fifoDepth;
}

int64_t StageTimer::cyclesAt(int64_t cacheLength) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = known_.find(cacheLength); it != known_.end())
      return it->second;
  }
  const LoweredStage lowered = lowerAcceleratorStage(*g_.program, index_, options_, cacheLength);
  const ir::DataflowGraph &df = lowered.dataflow;
  std::vector<ir::StreamId> streams;
  sim::TimingGraph graph = passes::timingGraphOf(df, streams);
  // timingGraphOf numbers the nodes in topological order. Every HBM read becomes the memory
  // and DMA stages of model/memory_read_model.h; the exchanged vector x comes on chip (token
  // source, layer loop), so the stage-input DMAs are simulated as on-chip sources.
  const std::vector<ir::NodeId> order = df.topologicalOrder();
  std::vector<sim::MemoryRead> reads;
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::DataflowNode &node = df.node(order[i]);
    if (node.kind != ir::NodeKind::ReadDma)
      continue;
    const ir::ITensorType &type = node.outputs[0].type;
    if (node.attributes.count(kAttrStageInput)) {
      graph.nodes[i].timing = model::passThroughTiming(type.numTokens(), 0);
      continue;
    }
    sim::MemoryRead r;
    r.node = i;
    r.words = ir::readDmaWordsPerChannel(node);
    // Weight and norm-parameter streams have fixed addresses: their sequencers read the next
    // layer's words while this one computes, so the words are there from the start.
    r.startDelay =
        node.attributes.count(kAttrWeightStream) ? 0 : model::memoryStartDelay(r.words, hbm_);
    reads.push_back(r);
  }
  std::vector<int64_t> depths;
  for (ir::StreamId s : streams) {
    auto it = builtDepths_.find(df.stream(s).name);
    depths.push_back(it != builtDepths_.end() ? std::max<int64_t>(it->second, 1)
                                              : kUnknownStreamDepth);
  }
  sim::addMemoryStages(graph, depths, reads, model::cadenceOf(hbm_.wordsPerCycle()));
  // Curves of kernels whose timing does not depend on the cache length come from the shared
  // derivations (sizeFifos derived most of them already).
  const std::vector<sim::SharedCurves> curves = sim::deriveAllCurves(graph);
  const sim::TimingSimResult r = sim::simulateDataflowTiming(graph, curves, depths);
  if (r.deadlock)
    throw Error("step prediction",
                "stage " + std::to_string(index_) + " at cache length " +
                    std::to_string(cacheLength),
                "no deadlock in the timing simulation (" + r.deadlockReport + ")");
  countStepSimulation(false, index_ == 1 ? 1 : 0, r.makespan);
  const std::lock_guard<std::mutex> lock(mutex_);
  return known_[cacheLength] = r.makespan;
}

std::vector<int64_t> reportedSteps(int64_t maxContext) {
  std::vector<int64_t> steps;
  for (int64_t c : kReportedContexts)
    if (c < maxContext)
      steps.push_back(c - 1);
  if (maxContext >= 1)
    steps.push_back(maxContext - 1);
  return steps;
}

std::string StepCache::keyOf(const AcceleratorOptions &options, const model::MemoryTiming &hbm) {
  nlohmann::json key = acceleratorOptionsJson(options);
  key["hbm"] = {hbm.readLatency,    hbm.readLatencyJitter, hbm.readyProbability,
                hbm.kernelClockMhz, hbm.channelPeakGBps,   hbm.wordBytes};
  return key.dump();
}

std::optional<int64_t> StepCache::find(const AcceleratorOptions &options,
                                       const model::MemoryTiming &hbm, int64_t step) const {
  const std::string key = keyOf(options, hbm);
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = cycles_.find({key, step});
  if (it == cycles_.end())
    return std::nullopt;
  return it->second;
}

void StepCache::add(const AcceleratorOptions &options, const model::MemoryTiming &hbm, int64_t step,
                    int64_t cycles) {
  const std::string key = keyOf(options, hbm);
  const std::lock_guard<std::mutex> lock(mutex_);
  cycles_[{key, step}] = cycles;
}

namespace {

/// The distinct values of `values`, ascending.
std::vector<int64_t> distinct(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

/// A GEMV-engine design's steps: one simulation of the whole step per distinct step.
std::vector<int64_t> engineStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                      const std::vector<int64_t> &layerWindows,
                                      const std::vector<int64_t> &steps,
                                      const model::MemoryTiming &hbm, StepCache *cache) {
  EngineStepTimer timer(g, options, layerWindows, hbm);
  auto simulated = [](int64_t t) { return std::max<int64_t>(t, 1); };
  std::map<int64_t, int64_t> known;
  std::vector<int64_t> missing;
  for (int64_t t : steps) {
    const std::optional<int64_t> hit =
        cache ? cache->find(options, hbm, simulated(t)) : std::nullopt;
    if (hit)
      known[simulated(t)] = *hit;
    else
      missing.push_back(simulated(t));
  }
  missing = distinct(missing);
  std::vector<int64_t> cycles(missing.size());
  parallelFor(missing.size(), [&](size_t i) { cycles[i] = timer.cyclesAt(missing[i]); });
  for (size_t i = 0; i < missing.size(); ++i) {
    known[missing[i]] = cycles[i];
    if (cache)
      cache->add(options, hbm, missing[i], cycles[i]);
  }
  std::vector<int64_t> result;
  for (int64_t t : steps)
    result.push_back(known.at(simulated(t)));
  return result;
}

/// A per-op design's steps: the prologue and epilogue once, the block once per distinct row count
/// the steps' layers read.
std::vector<int64_t> perOpStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                     const std::vector<int64_t> &layerWindows,
                                     const std::vector<int64_t> &steps,
                                     const model::MemoryTiming &hbm) {
  auto rowsAt = [&](int64_t l, int64_t t) {
    const int64_t window = layerWindows.empty() ? 0 : layerWindows[size_t(l)];
    return std::max<int64_t>(1, cachedRowsAt(window, t));
  };
  std::vector<int64_t> rows;
  for (int64_t t : steps)
    for (int64_t l = 0; l < g.layers; ++l)
      rows.push_back(rowsAt(l, t));
  rows = distinct(rows);
  StageTimer prologue(g, options, 0, hbm), block(g, options, 1, hbm), epilogue(g, options, 2, hbm);
  // The prologue, the epilogue (the LM head: the longest single simulation) and the block's row
  // counts side by side.
  parallelFor(rows.size() + 2, [&](size_t i) {
    if (i == 0)
      prologue.cyclesAt(1);
    else if (i == 1)
      epilogue.cyclesAt(1);
    else
      block.cyclesAt(rows[i - 2]);
  });
  std::vector<int64_t> cycles;
  for (int64_t t : steps) {
    int64_t step = prologue.cyclesAt(1) + epilogue.cyclesAt(1);
    for (int64_t l = 0; l < g.layers; ++l)
      step += block.cyclesAt(rowsAt(l, t));
    cycles.push_back(step);
  }
  return cycles;
}

} // namespace

std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows,
                                       const std::vector<int64_t> &steps,
                                       const model::MemoryTiming &hbm, StepCache *cache) {
  for (int64_t t : steps)
    if (t < 0 || t >= options.maxContext)
      throw Error("step prediction", "step " + std::to_string(t),
                  "0 .. max context - 1 (" + std::to_string(options.maxContext - 1) + ")");
  if (!layerWindows.empty() && static_cast<int64_t>(layerWindows.size()) != g.layers)
    throw Error("step prediction", "layer windows",
                "one per layer (" + std::to_string(g.layers) + "), got " +
                    std::to_string(layerWindows.size()));
  if (steps.empty())
    return {};
  return g.engine.calls.empty() ? perOpStepCycles(g, options, layerWindows, steps, hbm)
                                : engineStepCycles(g, options, layerWindows, steps, hbm, cache);
}

} // namespace st::llm

namespace st::llm {

std::vector<int64_t> runSteps(int64_t promptTokens, int64_t newTokens, int64_t firstStep) {
  std::vector<int64_t> steps;
  for (int64_t t = firstStep; t < firstStep + promptTokens + newTokens - 1; ++t)
    steps.push_back(t);
  return steps;
}

RunPrediction predictRun(const std::vector<int64_t> &runCycles, int64_t promptTokens,
                         int64_t newTokens) {
  const int64_t steps = promptTokens + newTokens - 1;
  if (promptTokens < 1 || newTokens < 1 || static_cast<int64_t>(runCycles.size()) != steps)
    throw Error("step prediction",
                "run of " + std::to_string(promptTokens) + " prompt and " +
                    std::to_string(newTokens) + " new tokens",
                "at least 1 of each and the cycles of its " + std::to_string(steps) +
                    " steps, got " + std::to_string(runCycles.size()));
  RunPrediction r;
  r.stepCycles = runCycles;
  double prompt = 0, generated = 0;
  for (int64_t i = 0; i < steps; ++i)
    (i < promptTokens ? prompt : generated) += static_cast<double>(r.stepCycles[size_t(i)]);
  r.promptCyclesPerToken = prompt / static_cast<double>(promptTokens);
  if (steps > promptTokens)
    r.generatedCyclesPerToken = generated / static_cast<double>(steps - promptTokens);
  return r;
}

} // namespace st::llm
