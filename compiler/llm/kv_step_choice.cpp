// The attention's heads in parallel (see kv_step_choice.h).
#include "llm/kv_step_choice.h"

#include <variant>

#include "llm/stage_lowering.h"
#include "model/llm_kernel_catalog.h"

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

/// Whether the design of `options` fits: its kernels' estimated DSPs (the DMAs, FIFOs and
/// control have none; the joined graph, so the shared engine counts once) within `dspBudget`,
/// and its AXI masters (a striped cache's DMAs one per slice) within the control's arguments.
bool designFits(const ir::DecodeProgram &program, const AcceleratorOptions &options,
                int64_t dspBudget) {
  const AcceleratorGraph g = buildAcceleratorGraph(program, options);
  int64_t dsps = 0, masters = 0;
  for (ir::NodeId n : g.dataflow.nodes()) {
    const ir::DataflowNode &node = g.dataflow.node(n);
    if (auto e = model::llmKernelResources(node))
      dsps += e->dsp;
    if (node.kind == ir::NodeKind::ReadDma || node.kind == ir::NodeKind::WriteDma) {
      const auto slices = node.attributes.find(kAttrKvSlices);
      masters += node.kind == ir::NodeKind::ReadDma && slices != node.attributes.end()
                     ? slices->second
                     : 1;
    } else if (node.module == "st_embedding_gather") {
      ++masters;
    }
  }
  return dsps <= dspBudget && masters <= kMaxAxiMasters;
}

} // namespace

int64_t chooseAttentionKvStep(const ir::DecodeProgram &program, const AcceleratorOptions &options,
                              int64_t dspBudget) {
  const int64_t kvHeads = kvHeadsOf(program);
  if (options.engine != LinearEngine::Gemv || kvHeads == 0)
    return 0;
  AcceleratorOptions candidate = options;
  for (int64_t k = kvHeads; k >= 1; --k) {
    if (kvHeads % k != 0)
      continue;
    candidate.attentionKvStep = k;
    if (designFits(program, candidate, dspBudget))
      return k;
  }
  return 0;
}

} // namespace st::llm
