// The attention's heads in parallel (see kv_step_choice.h).
#include "plan/kv_step_choice.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "ir/hbm_layout.h"
#include "llm/gemv_engine_join.h"
#include "llm/kv_striping.h"
#include "llm/stage_lowering.h"
#include "numerics/gemv_stream.h"
#include "plan/design_resources.h"
#include "plan/engine_fifo_choice.h"
#include "plan/llm_plan.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::plan {

namespace {

/// Most AXI masters the top can have: st_axi_lite_ctrl takes 64 arguments, three of them scalars
/// (plan/llm_top_interface.h).
constexpr int64_t kScalarArgs = 3;
constexpr int64_t kMaxAxiMasters = 64 - kScalarArgs;
/// Most codes of a kv head whose positions can be striped (one bus word,
/// llm::kvPositionStripingOf).
constexpr int64_t kPositionStripedHeadCodes = 64;

bool within(const model::ResourceEstimate &e, const model::ResourceEstimate &budget) {
  return e.lut <= budget.lut && e.ff <= budget.ff && e.dsp <= budget.dsp &&
         e.bram36 <= budget.bram36 && e.uram <= budget.uram;
}

} // namespace

const ir::AttentionAttrs *firstAttention(const ir::DecodeProgram &program) {
  for (const ir::DecodeStage &stage : program.stages)
    for (ir::OpId o = 0; o < stage.graph.numOps(); ++o)
      if (const auto *a = std::get_if<ir::AttentionAttrs>(&stage.graph.op(o).llm))
        return a;
  return nullptr;
}

DesignNeeds designNeedsOf(const ir::DecodeProgram &program,
                          const llm::AcceleratorOptions &options) {
  const llm::AcceleratorGraph g = llm::buildAcceleratorGraph(program, options);
  DesignNeeds needs;
  for (ir::NodeId n : g.dataflow.nodes()) {
    const ir::DataflowNode &node = g.dataflow.node(n);
    if (node.kind == ir::NodeKind::ReadDma || node.kind == ir::NodeKind::WriteDma) {
      const auto slices = node.attributes.find(ir::kAttrKvSlices);
      needs.masters += node.kind == ir::NodeKind::ReadDma && slices != node.attributes.end()
                           ? slices->second
                           : 1;
    } else if (node.module == "st_embedding_gather") {
      ++needs.masters;
    }
  }
  // The control's arguments as the LLM top has them (plan/llm_top_interface.h): the scalars and
  // a pointer per AXI master; the HBM plan that names their buffers comes later.
  TopInterface top;
  top.args.assign(static_cast<size_t>(kScalarArgs), {"", false, 0, -1});
  top.args.resize(static_cast<size_t>(kScalarArgs + needs.masters), {"", true, 0, 0});
  DesignResources estimate = designResources(g.dataflow, &top);
  addLlmSequencers(estimate, g);
  needs.resources = estimate.total;
  return needs;
}

int64_t attentionKvHeads(const ir::DecodeProgram &program) {
  const ir::AttentionAttrs *a = firstAttention(program);
  return a ? a->numKvHeads : 0;
}

void AttentionParallelism::applyTo(llm::AcceleratorOptions &options) const {
  options.attentionKvStep = kvStep;
  options.attentionHeadSplit = headSplit;
  options.attentionReadStep = readStep;
  options.attentionBlockMajor = blockMajor;
  options.enginePackedPairs = packedPairs;
  options.attentionPositionSlices = positionSlices;
}

bool attentionBlockMajorApplies(const ir::DecodeProgram &program,
                                const llm::AcceleratorOptions &options) {
  const ir::AttentionAttrs *a = firstAttention(program);
  if (options.engine != llm::LinearEngine::Gemv || !a)
    return false;
  try {
    return llm::kvBlockMajorApplies(a->numKvHeads, a->headDim, options.attentionKvStep,
                                    options.attentionHeadSplit, options.attentionReadStep);
  } catch (const Error &) {
    return false; // bad steps: the lowering names the op and what it expected
  }
}

AttentionParallelism chooseAttentionParallelism(const ir::DecodeProgram &program,
                                                const llm::AcceleratorOptions &options,
                                                const model::ResourceEstimate &budget,
                                                llm::StepCache *cache) {
  const int64_t kvHeads = attentionKvHeads(program);
  if (options.engine != llm::LinearEngine::Gemv || kvHeads == 0)
    return {};
  llm::AcceleratorOptions candidate = options;
  candidate.attentionReadStep = 0;
  const numerics::GemvEngineShape shape =
      llm::gemvEngineShapeOf(program, options.precision, options.maxLanes, options.engineChannels);
  const bool packable = numerics::gemvPairsPackable(shape);
  // The candidates from the widest cache token down: k whole kv heads (k dividing them), then
  // one head in f tokens (f dividing its bus-word parts, at least two parts per token).
  std::vector<AttentionParallelism> candidates;
  for (int64_t k = kvHeads; k >= 1; --k)
    if (kvHeads % k == 0)
      candidates.push_back({k, 1, 0, false, 0});
  const int64_t headDim = firstAttention(program)->headDim;
  const int64_t headParts = llm::kvHeadParts(headDim);
  for (int64_t f = 2; headParts / f >= 2; ++f)
    if (headParts % f == 0)
      candidates.push_back({1, f, 0, false, 0});
  // The chosen attention token read as wide as still fits (reads of m kv heads per token, m a
  // divisor of the kv heads whose token holds a whole number of attention's): a pass then runs
  // at attention's token a cycle, no slice channel's rate; 0 when none wider fits.
  auto widenReads = [&](AttentionParallelism c) {
    candidate.attentionKvStep = c.kvStep;
    candidate.attentionHeadSplit = c.headSplit;
    candidate.enginePackedPairs = c.packedPairs;
    const int64_t tokenCodes =
        llm::kvStripingOf(kvHeads, headDim, c.kvStep, c.headSplit).cacheLanes;
    for (int64_t m = kvHeads; m * headDim > tokenCodes; --m) {
      if (kvHeads % m != 0 || m * headDim % tokenCodes != 0)
        continue;
      candidate.attentionReadStep = m;
      const DesignNeeds wide = designNeedsOf(program, candidate);
      if (wide.masters <= kMaxAxiMasters && within(wide.resources, budget)) {
        c.readStep = m;
        break;
      }
    }
    candidate.attentionReadStep = c.readStep;
    if (llm::kvBlockMajorApplies(kvHeads, headDim, c.kvStep, c.headSplit, c.readStep)) {
      candidate.attentionBlockMajor = true;
      c.blockMajor = within(designNeedsOf(program, candidate).resources, budget);
      candidate.attentionBlockMajor = false;
    }
    candidate.attentionReadStep = 0;
    // One head per token walked position-major (no striped blocks to walk block-major): stripe
    // the positions over two slices instead, which walks block-major at a token a cycle
    // (llm::kvPositionStripingOf) if the design still fits.
    const std::vector<int64_t> windows = layerWindowsOf(program);
    const bool windowed =
        std::any_of(windows.begin(), windows.end(), [](int64_t w) { return w > 0; });
    if (c.kvStep == 1 && c.headSplit == 1 && !c.blockMajor && kvHeads >= 2 &&
        headDim <= kPositionStripedHeadCodes && options.maxContext % 2 == 0 && !windowed) {
      candidate.attentionPositionSlices = 2;
      const DesignNeeds striped = designNeedsOf(program, candidate);
      if (striped.masters <= kMaxAxiMasters && within(striped.resources, budget)) {
        c.positionSlices = 2;
        c.readStep = 0;
        c.blockMajor = true;
        // Four slices halve each slice channel's share of a pass, which the engine's refill also
        // draws on, for two more DMAs per cache: kept where that design fits and its step is
        // shorter by prediction (TinyLlama-1.1B; Qwen2.5-0.5B's grows).
        candidate.attentionPositionSlices = 4;
        if (options.maxContext % 4 == 0) {
          const DesignNeeds four = designNeedsOf(program, candidate);
          AttentionParallelism fourSlices = c;
          fourSlices.positionSlices = 4;
          if (four.masters <= kMaxAxiMasters && within(four.resources, budget)) {
            // The two step simulations side by side (nothing else runs during the choice).
            const AttentionParallelism pair[2] = {c, fourSlices};
            int64_t cycles[2] = {0, 0};
            parallelFor(2, [&](size_t i) {
              llm::AcceleratorOptions withChoice = options;
              pair[i].applyTo(withChoice);
              cycles[i] = choiceContextCycles(program, withChoice, {}, 0, cache);
            });
            if (cycles[1] < cycles[0])
              c = fourSlices;
          }
        }
      }
      candidate.attentionPositionSlices = 0;
    }
    return c;
  };
  for (const AttentionParallelism &c : candidates) {
    candidate.attentionKvStep = c.kvStep;
    candidate.attentionHeadSplit = c.headSplit;
    candidate.enginePackedPairs = 0;
    const DesignNeeds plain = designNeedsOf(program, candidate);
    if (plain.masters > kMaxAxiMasters)
      continue;
    if (within(plain.resources, budget))
      return widenReads(c);
    if (!packable || plain.resources.dsp <= budget.dsp)
      continue; // packing gives back DSPs only
    // Each packed pair gives back the same DSPs: as many pairs as the excess needs.
    candidate.enginePackedPairs = 1;
    const int64_t perPair = plain.resources.dsp - designNeedsOf(program, candidate).resources.dsp;
    if (perPair <= 0)
      continue;
    const int64_t pairs = (plain.resources.dsp - budget.dsp + perPair - 1) / perPair;
    if (pairs > options.engineChannels / 2)
      continue;
    candidate.enginePackedPairs = pairs;
    if (within(designNeedsOf(program, candidate).resources, budget))
      return widenReads({c.kvStep, c.headSplit, 0, false, pairs});
  }
  return {};
}

} // namespace st::plan
