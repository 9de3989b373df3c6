// Step prediction: per-step cycles of the LLM accelerator from the stage graphs' timing
// simulation under the testbench memory's mean behaviour (see step_prediction.h).
#include "llm/step_prediction.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <string>

#include "ir/hbm_layout.h"
#include "llm/engine_step_prediction.h"
#include "llm/prediction_work.h"
#include "model/dma_stream_model.h"
#include "passes/dataflow_timing_sim.h"
#include "passes/memory_stages.h"
#include "passes/pass_pipeline.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::llm {

namespace {

/// FIFO depth of a stream the design's stage graph does not have (none expected).
constexpr int64_t kUnknownStreamDepth = 2;

/// The design-wide options buildAcceleratorGraph lowers every stage with (one lane count).
AcceleratorOptions uniformOptions(const AcceleratorGraph &g, const AcceleratorOptions &options) {
  AcceleratorOptions uniform = options;
  for (const ir::DecodeStage &stage : g.program->stages)
    uniform.maxLanes = std::min(uniform.maxLanes, stageLanes(stage, options.maxLanes,
                                                             options.engine == LinearEngine::Gemv));
  return uniform;
}

} // namespace

int64_t cachedRowsAt(int64_t window, int64_t step) {
  return window > 0 ? std::min(step, window - 1) : step;
}

StageTimer::StageTimer(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                       const model::MemoryTiming &hbm)
    : g_(g), options_(uniformOptions(g, options)), index_(index), hbm_(hbm) {
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
  passes::addMemoryStages(graph, depths, reads, model::cadenceOf(hbm_.wordsPerCycle()));
  // Curves of kernels whose timing does not depend on the cache length come from the shared
  // derivations (sizeFifos derived most of them already).
  const std::vector<passes::SharedCurves> curves = passes::deriveAllCurves(graph);
  const passes::TimingSimResult r = passes::simulateDataflowTiming(graph, curves, depths);
  if (r.deadlock)
    throw Error("step prediction",
                "stage " + std::to_string(index_) + " at cache length " +
                    std::to_string(cacheLength),
                "no deadlock in the timing simulation (" + r.deadlockReport + ")");
  countStepSimulation(false, index_ == 1 ? 1 : 0, r.makespan);
  const std::lock_guard<std::mutex> lock(mutex_);
  return known_[cacheLength] = r.makespan;
}

int64_t stageCyclesAt(const AcceleratorGraph &g, const AcceleratorOptions &options, int index,
                      int64_t cacheLength, const model::MemoryTiming &hbm) {
  StageTimer timer(g, options, index, hbm);
  return timer.cyclesAt(cacheLength);
}

int64_t CacheLengthCurve::at(int64_t cacheLength) const {
  if (samples.empty() || cacheLength < samples.front().first || cacheLength > samples.back().first)
    throw Error("step prediction", "cache length " + std::to_string(cacheLength),
                "a length within the sampled range");
  auto hi = std::lower_bound(samples.begin(), samples.end(),
                             std::make_pair(cacheLength, std::numeric_limits<int64_t>::min()));
  if (hi->first == cacheLength)
    return hi->second;
  const auto lo = std::prev(hi);
  // The chord, rounded to the nearest cycle (exact integer arithmetic).
  const int64_t span = hi->first - lo->first, rise = hi->second - lo->second;
  const int64_t num = rise * (cacheLength - lo->first);
  const int64_t rounded =
      num >= 0 ? (2 * num + span) / (2 * span) : -((-2 * num + span) / (2 * span));
  return lo->second + rounded;
}

int64_t cacheCurveTolerance(int64_t cyclesAtLongest) {
  return cyclesAtLongest / 20000;
}

int64_t engineStepTolerance(int64_t cyclesAtShortest) {
  return cyclesAtShortest / 1000;
}

namespace {

/// Evaluates `lengths` (distinct, not yet sampled) in parallel and adds them to `samples`.
void sampleRound(const std::function<int64_t(int64_t)> &cyclesAt, std::vector<int64_t> lengths,
                 std::map<int64_t, int64_t> &samples) {
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  std::vector<int64_t> values(lengths.size());
  parallelFor(lengths.size(), [&](size_t i) { values[i] = cyclesAt(lengths[i]); });
  for (size_t i = 0; i < lengths.size(); ++i)
    samples[lengths[i]] = values[i];
}

/// Bisection (tolerance 0, or a short range): the ends, then the midpoint of every interval
/// whose midpoint misses the chord by more than `tolerance`, recursively.
std::map<int64_t, int64_t> bisectedSamples(const std::function<int64_t(int64_t)> &cyclesAt,
                                           int64_t first, int64_t last, int64_t tolerance) {
  std::map<int64_t, int64_t> samples;
  std::vector<int64_t> pending = {first};
  if (last != first)
    pending.push_back(last);
  std::vector<std::pair<int64_t, int64_t>> open;
  if (last - first >= 2) {
    open.push_back({first, last});
    pending.push_back(first + (last - first) / 2);
  }
  while (!pending.empty()) {
    sampleRound(cyclesAt, pending, samples);
    // Intervals whose midpoint is now known: keep them if it missed the chord.
    std::vector<std::pair<int64_t, int64_t>> next;
    pending.clear();
    for (const auto &[a, b] : open) {
      const int64_t m = a + (b - a) / 2;
      auto known = samples.find(m);
      if (known == samples.end()) {
        pending.push_back(m);
        next.push_back({a, b});
        continue;
      }
      CacheLengthCurve chord;
      chord.samples = {{a, samples.at(a)}, {b, samples.at(b)}};
      if (std::llabs(known->second - chord.at(m)) > tolerance)
        for (const auto &half : {std::make_pair(a, m), std::make_pair(m, b)})
          if (half.second - half.first >= 2) {
            next.push_back(half);
            pending.push_back(half.first + (half.second - half.first) / 2);
          }
    }
    open.swap(next);
  }
  return samples;
}

/// Sandwich sampling (tolerance > 0): every open interval [x1, x2] also knows f(x1 - 1) and
/// f(x2 + 1), so the slopes s1 = f(x1) - f(x1 - 1) and s2 = f(x2 + 1) - f(x2). A convex f lies
/// above both end tangents (f(x1) + s1 (x - x1) and f(x2) - s2 (x2 - x)) and below the chord, a
/// concave one below the tangents and above the chord; either way the chord misses f by at most
/// its distance to the tangents at their crossing x*. The interval is done when that is within
/// the tolerance and the chord's slope lies between s1 and s2 (as convexity or concavity
/// requires); otherwise the pair x*, x* + 1 (the midpoint, if the slopes fit neither) is
/// sampled and splits it. A block that is affine but for one kink (GPT-2 Medium: 33 cycles a
/// row up to 64 rows, then 17) takes 6 simulations instead of the bisection's ~20.
std::map<int64_t, int64_t> sandwichedSamples(const std::function<int64_t(int64_t)> &cyclesAt,
                                             int64_t first, int64_t last, int64_t tolerance) {
  std::map<int64_t, int64_t> samples;
  std::vector<std::pair<int64_t, int64_t>> open = {{first + 1, last - 1}};
  std::vector<int64_t> pending = {first, first + 1, last - 1, last};
  while (!pending.empty()) {
    sampleRound(cyclesAt, pending, samples);
    pending.clear();
    std::vector<std::pair<int64_t, int64_t>> next;
    for (const auto &[x1, x2] : open) {
      if (x2 - x1 <= 1)
        continue; // no length strictly between two samples
      const double f1 = double(samples.at(x1)), f2 = double(samples.at(x2));
      const double s1 = f1 - double(samples.at(x1 - 1)), s2 = double(samples.at(x2 + 1)) - f2;
      const double span = double(x2 - x1), chordSlope = (f2 - f1) / span;
      int64_t m = x1 + (x2 - x1) / 2;
      const bool convex = s1 <= chordSlope && chordSlope <= s2;
      const bool concave = s1 >= chordSlope && chordSlope >= s2;
      if (convex || concave) {
        // Tangents' crossing (parallel tangents: the chord is one of them, the gap 0).
        const double cross = s1 == s2 ? double(x1)
                                      : std::clamp((f2 - f1 + s1 * x1 - s2 * x2) / (s1 - s2),
                                                   double(x1), double(x2));
        const double gap = std::fabs(chordSlope - s1) * (cross - double(x1));
        if (gap <= double(tolerance))
          continue;
        m = static_cast<int64_t>(std::floor(cross));
      }
      if (x2 - x1 == 2) { // one length left inside: sample it
        pending.push_back(x1 + 1);
        continue;
      }
      m = std::clamp<int64_t>(m, x1 + 1, x2 - 2);
      pending.push_back(m);
      pending.push_back(m + 1);
      next.push_back({x1, m});
      next.push_back({m + 1, x2});
    }
    open.swap(next);
  }
  return samples;
}

} // namespace

CacheLengthCurve sampleCacheLengthCurve(const std::function<int64_t(int64_t)> &cyclesAt,
                                        int64_t first, int64_t last, int64_t tolerance,
                                        CurveSampling sampling) {
  if (first > last)
    throw Error("step prediction",
                "cache lengths " + std::to_string(first) + " .. " + std::to_string(last),
                "a non-empty range");
  const std::map<int64_t, int64_t> samples =
      sampling == CurveSampling::Sandwich && tolerance > 0 && last - first >= 8
          ? sandwichedSamples(cyclesAt, first, last, tolerance)
          : bisectedSamples(cyclesAt, first, last, tolerance);
  CacheLengthCurve curve;
  curve.samples.assign(samples.begin(), samples.end());
  return curve;
}

std::vector<int64_t> predictStepCycles(const AcceleratorGraph &g, const AcceleratorOptions &options,
                                       const std::vector<int64_t> &layerWindows, int64_t steps,
                                       const model::MemoryTiming &hbm,
                                       CacheLengthCurve *blockCurve) {
  if (steps < 0 || steps > options.maxContext)
    throw Error("step prediction", "steps " + std::to_string(steps),
                "0 .. max context " + std::to_string(options.maxContext));
  if (!layerWindows.empty() && static_cast<int64_t>(layerWindows.size()) != g.layers)
    throw Error("step prediction", "layer windows",
                "one per layer (" + std::to_string(g.layers) + "), got " +
                    std::to_string(layerWindows.size()));
  if (!g.engine.calls.empty() && steps > 0) {
    // A GEMV-engine design: each step is one simulation of the unrolled step; the steps'
    // cycles are sampled like a block's cache-length curve (piecewise affine in the step, up to
    // the channels' cadence: bisection).
    // Step 0 reads no row and is simulated as step 1 (one row): the curve starts at step 1, so
    // that its flat first piece is not a chord's error.
    EngineStepTimer timer(g, options, layerWindows, hbm);
    const int64_t first = std::min<int64_t>(1, steps - 1);
    const CacheLengthCurve curve = sampleCacheLengthCurve(
        [&](int64_t t) { return timer.cyclesAt(t); }, first, steps - 1,
        engineStepTolerance(timer.cyclesAt(first)), CurveSampling::Bisection);
    std::vector<int64_t> cycles;
    for (int64_t t = 0; t < steps; ++t)
      cycles.push_back(curve.at(std::max(t, first)));
    if (blockCurve)
      *blockCurve = curve;
    return cycles;
  }
  // The cache lengths the steps read (step 0 reads none and is simulated as 1 row).
  auto rowsAt = [&](int64_t l, int64_t t) {
    const int64_t window = layerWindows.empty() ? 0 : layerWindows[size_t(l)];
    return std::max<int64_t>(1, cachedRowsAt(window, t));
  };
  int64_t longest = 1;
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t l = 0; l < g.layers; ++l)
      longest = std::max(longest, rowsAt(l, t));
  // The prologue and epilogue (the LM head: the longest single simulation) beside the block's
  // samples.
  int64_t prologue = 0, epilogue = 0;
  CacheLengthCurve curve;
  StageTimer block(g, options, 1, hbm);
  parallelFor(2, [&](size_t task) {
    if (task == 0) {
      prologue = stageCyclesAt(g, options, 0, 1, hbm);
      epilogue = stageCyclesAt(g, options, 2, 1, hbm);
      return;
    }
    curve = sampleCacheLengthCurve([&](int64_t rows) { return block.cyclesAt(rows); }, 1, longest,
                                   cacheCurveTolerance(block.cyclesAt(longest)));
  });
  std::vector<int64_t> cycles;
  for (int64_t t = 0; t < steps; ++t) {
    int64_t step = prologue + epilogue;
    for (int64_t l = 0; l < g.layers; ++l)
      step += curve.at(rowsAt(l, t));
    cycles.push_back(step);
  }
  if (blockCurve)
    *blockCurve = curve;
  return cycles;
}

} // namespace st::llm

namespace st::llm {

RunPrediction predictRun(const std::vector<int64_t> &stepCycles, int64_t promptTokens,
                         int64_t newTokens, int64_t firstStep) {
  const int64_t steps = promptTokens + newTokens - 1;
  if (promptTokens < 1 || newTokens < 1 || firstStep < 0 ||
      firstStep + steps > static_cast<int64_t>(stepCycles.size()))
    throw Error("step prediction",
                "run of " + std::to_string(promptTokens) + " prompt and " +
                    std::to_string(newTokens) + " new tokens from step " +
                    std::to_string(firstStep),
                "at least 1 of each and at most " + std::to_string(stepCycles.size()) +
                    " steps in all (the predicted table)");
  RunPrediction r;
  r.stepCycles.assign(stepCycles.begin() + firstStep, stepCycles.begin() + firstStep + steps);
  double prompt = 0, generated = 0;
  for (int64_t i = 0; i < steps; ++i)
    (i < promptTokens ? prompt : generated) += static_cast<double>(r.stepCycles[i]);
  r.promptCyclesPerToken = prompt / static_cast<double>(promptTokens);
  if (steps > promptTokens)
    r.generatedCyclesPerToken = generated / static_cast<double>(steps - promptTokens);
  return r;
}

} // namespace st::llm
