// LLM design: prints the directory of a planned LLM accelerator (plan/llm_plan.h) for
// `streamtensor compile <model-dir>`:
//   rtl/      the top, the templates it uses, filelist.f, tables/ ($readmemh files)
//   hbm/      the HBM image and its manifest (docs/hbm-image.md; writeLlmHbmImage)
//   tb/       the generated Verilator testbench and its run manifest
//   include/, vitis/, vivado/, host/: the AMD tools' deliverables (gen/vitis_writer.h)
//   report.json, report.md: leading with the predicted step at context 64 and the max context
//             beside its HBM bound (headline, step_prediction), then kernels, streams with
//             their itensor types and FIFO depths, the HBM channel of every AXI master
//   design.json: what `streamtensor sim` needs to run and check the design (model directory,
//             precision, argument offsets, run buffers)
#pragma once

#include <string>

#include "plan/llm_plan.h"

namespace st::gen {

struct LlmWriteOptions {
  /// The streamtensor source tree (rtl_templates/).
  std::string sourceDir;
  /// The model directory (recorded for `sim`, which reruns the golden model on its prompt).
  std::string modelDir;
  /// The weights are the seeded random ones of --random-weights (config.json only); sim reloads
  /// the same.
  bool randomWeights = false;
  /// The design directory's final absolute path (the one published after the staging one): the
  /// v++ link's pre-placement hook names vivado/floorplan_vitis.tcl under it.
  std::string finalDir;
};

/// Writes hbm/ (the image of every pseudo-channel and its manifest) into `dir` (which must exist).
void writeLlmHbmImage(const plan::LlmPlan &plan, const std::string &dir);

/// Writes everything else into `dir` (which must exist): rtl/, tb/, the AMD tools' files,
/// report.json/md with `prediction`, design.json.
void writeLlmDesign(const plan::LlmPlan &plan, const plan::LlmStepPrediction &prediction,
                    const LlmWriteOptions &options, const std::string &dir);

} // namespace st::gen
