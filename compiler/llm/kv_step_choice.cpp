// The attention's heads in parallel (see kv_step_choice.h).
#include "llm/kv_step_choice.h"

#include <variant>

#include "llm/gemv_engine_join.h"
#include "llm/stage_lowering.h"
#include "model/llm_kernel_catalog.h"
#include "numerics/gemv_stream.h"

namespace st::llm {

namespace {

/// The block's kv heads (the attention ops agree; 0 when there is none).
int64_t kvHeadsOf(const ir::DecodeProgram &program) {
  for (const ir::DecodeStage &stage : program.stages)
    for (ir::OpId o = 0; o < stage.graph.numOps(); ++o)
      if (const auto *a = std::get_if<ir::AttentionAttrs>(&stage.graph.op(o).llm))
        return a->numKvHeads;
  return 0;
}

/// Most AXI masters the top can have: st_axi_lite_ctrl takes 64 arguments, three of them scalars
/// (plan/llm_top_interface.h).
constexpr int64_t kMaxAxiMasters = 64 - 3;

/// The design of `options`: its kernels' estimated DSPs (the DMAs, FIFOs and control have none;
/// the joined graph, so the shared engine counts once) and its AXI masters (a striped cache's
/// read one per slice).
struct DesignNeeds {
  int64_t dsps = 0, masters = 0;
};
DesignNeeds designNeeds(const ir::DecodeProgram &program, const AcceleratorOptions &options) {
  const AcceleratorGraph g = buildAcceleratorGraph(program, options);
  DesignNeeds needs;
  for (ir::NodeId n : g.dataflow.nodes()) {
    const ir::DataflowNode &node = g.dataflow.node(n);
    if (auto e = model::llmKernelResources(node))
      needs.dsps += e->dsp;
    if (node.kind == ir::NodeKind::ReadDma || node.kind == ir::NodeKind::WriteDma) {
      const auto slices = node.attributes.find(kAttrKvSlices);
      needs.masters += node.kind == ir::NodeKind::ReadDma && slices != node.attributes.end()
                           ? slices->second
                           : 1;
    } else if (node.module == "st_embedding_gather") {
      ++needs.masters;
    }
  }
  return needs;
}

} // namespace

AttentionParallelism chooseAttentionParallelism(const ir::DecodeProgram &program,
                                                const AcceleratorOptions &options,
                                                int64_t dspBudget) {
  const int64_t kvHeads = kvHeadsOf(program);
  if (options.engine != LinearEngine::Gemv || kvHeads == 0)
    return {};
  AcceleratorOptions candidate = options;
  candidate.enginePackedPairs = 0;
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
    if (plain.dsps <= dspBudget)
      return {k, 0};
    if (!packable)
      continue;
    // Each packed pair gives back the same DSPs: as many pairs as the excess needs.
    candidate.enginePackedPairs = 1;
    const int64_t perPair = plain.dsps - designNeeds(program, candidate).dsps;
    if (perPair <= 0)
      continue;
    const int64_t pairs = (plain.dsps - dspBudget + perPair - 1) / perPair;
    if (pairs > options.engineChannels / 2)
      continue;
    candidate.enginePackedPairs = pairs;
    if (designNeeds(program, candidate).dsps <= dspBudget)
      return {k, pairs};
  }
  return {};
}

} // namespace st::llm
