// Whole-design resource estimate: what the generated top (gen/sv_top_emitter.h) instantiates,
// each instance costed by the one resource model of its template (compiler/model/): every
// kernel (matmul, reduce, generated element-wise, the LLM catalog), layout converter, fork and
// DMA stream, one st_fifo per stream at its sized depth (the top's minimum of 2), and the
// control slave (st_axi_lite_ctrl) with the DMA start/done sequencing. Views are wiring.
// The report writes the total into report.json ("resource_estimate") and report.md beside the
// device budget; synth.vitis_top.* compares it with Yosys (docs/vivado.md).
#pragma once

#include <string>
#include <vector>

#include "gen/sv_top_emitter.h"
#include "ir/dataflow_graph.h"
#include "model/kernel_timing.h"

namespace st::gen {

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

/// The estimate of `df`'s top. `top`: its interface (the control slave's arguments); nullptr
/// derives it with topInterfaceOf. Throws st::Error naming the node when its module has no
/// resource model.
DesignResources designResources(const ir::DataflowGraph &df, const TopInterface *top = nullptr);

} // namespace st::gen
