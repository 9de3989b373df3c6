// Whole-design resource estimate: what the generated top (gen/sv_top_emitter.h) instantiates,
// each instance costed by the one resource model of its template (compiler/model/): every
// kernel (matmul, reduce, generated element-wise, the LLM catalog, the LLM decode loop's layer
// loop, token source and position source), layout converter, fork and
// DMA stream, one st_fifo per stream at its sized depth (the top's minimum of 2), and the
// control slave (st_axi_lite_ctrl) with the DMA start/done sequencing. Views are wiring.
// The report writes the total into report.json ("resource_estimate") and report.md beside the
// device budget; synth.vitis_top.* compares it with Yosys (docs/vivado.md). The compiler's own
// choices that weigh a design against the device (plan/kv_step_choice) use the same estimate, so
// a choice and the report agree.
#pragma once

#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "llm/accelerator_graph.h"
#include "model/kernel_timing.h"
#include "plan/top_interface.h"

namespace st::plan {

struct DesignResources {
  /// One entry per costed part: a node's name, "fifo <stream>", or "control".
  struct Part {
    std::string name;
    std::string module;
    model::ResourceEstimate estimate;
  };
  std::vector<Part> parts;
  model::ResourceEstimate total;
  /// The FIFOs' share of total (all streams).
  model::ResourceEstimate fifos;
};

/// The step counters' width of the LLM top (gen/llm_top_emitter: StepBits 16).
inline constexpr int64_t llmStepBits = 16;
/// The LLM top's control instances without a model in compiler/model/ (structural counts, not
/// calibrated): st_token_source, and the st_vector_counter that selects a kernel's per-layer
/// sidebands.
model::ResourceEstimate llmTokenSourceResources();
model::ResourceEstimate llmVectorCounterResources(int64_t vecTokens, int64_t layers);

/// The estimate of `df`'s top. `top`: its interface, for the control slave's arguments; nullptr
/// derives it with plan::topInterfaceOf (a graph design's; an LLM design passes its own or, before
/// the HBM plan, its arguments alone). A striped KV cache's AXI masters come from its nodes
/// (stripedKvPortLayouts). Throws st::Error naming the node when its module has no resource
/// model.
DesignResources designResources(const ir::DataflowGraph &df, const TopInterface *top = nullptr);

/// Adds the LLM top's step sequencers to `r`: one per DMA node of `g` (its stage's layers; a KV
/// read's gated on the appends; one for all slices of a striped read; a kernel's own master, the
/// embedding gather's, has none).
void addLlmSequencers(DesignResources &r, const llm::AcceleratorGraph &g);

} // namespace st::plan
