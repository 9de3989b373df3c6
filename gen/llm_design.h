// LLM design: everything `streamtensor compile <model-dir>` decides and writes for one model at
// one precision. It joins the stages into the accelerator graph (llm/accelerator_graph), plans
// the HBM image with the lowering's lane counts plus the run buffers (prompt, generated tokens,
// debug taps), binds every kernel's sidebands and tables from the QuantizedModel
// (gen/llm_kernel_bindings), emits the top (gen/llm_top_emitter) and writes the directory:
//   rtl/      the top, the templates it uses, filelist.f, tables/ ($readmemh files)
//   hbm/      the HBM image and its manifest (docs/hbm-image.md)
//   report.json, report.md: kernels, streams with their itensor types and FIFO depths, the
//             HBM channel of every AXI master, the predicted cycles per step
//   design.json: what `streamtensor sim` needs to run and check the design (model directory,
//             precision, argument offsets, run buffers)
#pragma once

#include <string>

#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "gen/llm_top_emitter.h"
#include "llm/accelerator_graph.h"
#include "support/phase_log.h"

namespace st::gen {

struct LlmDesignOptions {
  std::string designName;
  /// The streamtensor source tree (rtl_templates/).
  std::string sourceDir;
  /// Where the directory finally lives (the $readmemh paths point there).
  std::string finalDir;
  /// The model directory (recorded for `sim`, which reruns the golden model on its prompt).
  std::string modelDir;
  /// The weights are the seeded random ones of --random-weights (config.json only); sim reloads
  /// the same.
  bool randomWeights = false;
  /// constraints/<device>.yaml.
  std::string devicePath;
  llm::AcceleratorOptions accelerator;
  /// Where the phases are timed and reported (may be null).
  PhaseLog *log = nullptr;
};

/// The decisions, before anything is written.
struct LlmDesign {
  llm::AcceleratorGraph graph;
  plan::HbmImagePlan plan;
  plan::LlmTopInterface top;
  std::map<ir::NodeId, plan::LlmKernelConfig> kernels;
  /// The table files the kernels' parameters name (rtl/tables/).
  std::vector<plan::KernelTable> tables;
};

/// The HBM buffer of the prompt ids: one u32 id per 64-byte row, maxContext rows.
inline constexpr const char *kPromptBuffer = "run/prompt";

/// Builds the graph, the plan, the interface and the kernel bindings; the kernels' parameters
/// name their table files as `tablePrefix` + file. Throws st::Error.
LlmDesign planLlmDesign(const frontend::LoadedModel &model, const frontend::QuantizedModel &q,
                        const LlmDesignOptions &options, const std::string &tablePrefix);

/// Plans and writes the whole directory into `dir` (which must exist and be empty).
void writeLlmDesign(const frontend::LoadedModel &model, const frontend::QuantizedModel &q,
                    const LlmDesignOptions &options, const std::string &dir);

} // namespace st::gen
