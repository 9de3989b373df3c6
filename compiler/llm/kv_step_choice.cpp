// The attention's heads in parallel (see kv_step_choice.h).
#include "llm/kv_step_choice.h"

#include <algorithm>
#include <variant>

#include "llm/gemv_engine_join.h"
#include "llm/stage_lowering.h"
#include "model/dma_stream_resources.h"
#include "model/fifo_resources.h"
#include "model/llm_kernel_catalog.h"
#include "numerics/gemv_stream.h"

namespace st::llm {

namespace {

/// Most AXI masters the top can have: st_axi_lite_ctrl takes 64 arguments, three of them scalars
/// (plan/llm_top_interface.h).
constexpr int64_t kMaxAxiMasters = 64 - 3;

/// The design of `options`: the estimated resources of its kernels (the joined graph, so the
/// shared engine counts once), its DMAs (a striped cache's read one per slice; each priced as a
/// two-loop read stream of whole words) and its FIFOs at their sized depths, and its AXI
/// masters. The control and the sequencers (a few thousand LUTs) are left out.
struct DesignNeeds {
  model::ResourceEstimate resources;
  int64_t masters = 0;
};
DesignNeeds designNeeds(const ir::DecodeProgram &program, const AcceleratorOptions &options) {
  const AcceleratorGraph g = buildAcceleratorGraph(program, options);
  model::DmaParams dma;
  dma.numLoops = 2;
  const model::DmaStreamTokens words{512, 512, 1};
  DesignNeeds needs;
  for (ir::NodeId n : g.dataflow.nodes()) {
    const ir::DataflowNode &node = g.dataflow.node(n);
    if (auto e = model::llmKernelResources(node))
      needs.resources += *e;
    if (node.kind == ir::NodeKind::ReadDma || node.kind == ir::NodeKind::WriteDma) {
      const auto slices = node.attributes.find(kAttrKvSlices);
      const int64_t masters = node.kind == ir::NodeKind::ReadDma && slices != node.attributes.end()
                                  ? slices->second
                                  : 1;
      needs.masters += masters;
      for (int64_t i = 0; i < masters; ++i)
        needs.resources += node.kind == ir::NodeKind::ReadDma
                               ? model::readDmaStreamResources(dma, words)
                               : model::writeDmaStreamResources(dma, words);
    } else if (node.module == "st_embedding_gather") {
      ++needs.masters;
    }
  }
  for (ir::StreamId s : g.dataflow.streams()) {
    const ir::Stream &st = g.dataflow.stream(s);
    needs.resources +=
        model::fifoResources(g.dataflow.tokenBits(st), std::max<int64_t>(st.fifoDepth, 2));
  }
  return needs;
}

bool within(const model::ResourceEstimate &e, const model::ResourceEstimate &budget) {
  return e.lut <= budget.lut && e.ff <= budget.ff && e.dsp <= budget.dsp &&
         e.bram36 <= budget.bram36 && e.uram <= budget.uram;
}

} // namespace

int64_t attentionKvHeads(const ir::DecodeProgram &program) {
  for (const ir::DecodeStage &stage : program.stages)
    for (ir::OpId o = 0; o < stage.graph.numOps(); ++o)
      if (const auto *a = std::get_if<ir::AttentionAttrs>(&stage.graph.op(o).llm))
        return a->numKvHeads;
  return 0;
}

AttentionParallelism chooseAttentionParallelism(const ir::DecodeProgram &program,
                                                const AcceleratorOptions &options,
                                                const model::ResourceEstimate &budget) {
  const int64_t kvHeads = attentionKvHeads(program);
  if (options.engine != LinearEngine::Gemv || kvHeads == 0)
    return {};
  AcceleratorOptions candidate = options;
  const numerics::GemvEngineShape shape =
      gemvEngineShapeOf(program, options.precision, options.maxLanes, options.engineChannels);
  const bool packable = numerics::gemvPairsPackable(shape);
  for (int64_t k = kvHeads; k >= 1; --k) {
    if (kvHeads % k != 0)
      continue;
    candidate.attentionKvStep = k;
    candidate.enginePackedPairs = 0;
    const DesignNeeds plain = designNeeds(program, candidate);
    if (plain.masters > kMaxAxiMasters)
      continue;
    if (within(plain.resources, budget))
      return {k, 0};
    if (!packable || plain.resources.dsp <= budget.dsp)
      continue; // packing gives back DSPs only
    // Each packed pair gives back the same DSPs: as many pairs as the excess needs.
    candidate.enginePackedPairs = 1;
    const int64_t perPair = plain.resources.dsp - designNeeds(program, candidate).resources.dsp;
    if (perPair <= 0)
      continue;
    const int64_t pairs = (plain.resources.dsp - budget.dsp + perPair - 1) / perPair;
    if (pairs > options.engineChannels / 2)
      continue;
    candidate.enginePackedPairs = pairs;
    if (within(designNeeds(program, candidate).resources, budget))
      return {k, pairs};
  }
  return {};
}

} // namespace st::llm
