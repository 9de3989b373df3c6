// The planned LLM accelerator: everything `streamtensor compile <model-dir>` decides for one
// model at one precision before anything is printed. It joins the stages into the accelerator
// graph (llm/accelerator_graph: lowering and FIFO sizing), plans the HBM image with the
// lowering's lane counts plus the run buffers (prompt, generated tokens, debug taps), decides the
// top's interface and binds every kernel's sidebands and tables from the QuantizedModel.
// predictLlmSteps adds the per-step cycle prediction. gen/llm_design prints the directory.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "llm/accelerator_graph.h"
#include "llm/prediction_work.h"
#include "llm/step_prediction.h"
#include "model/memory_read_model.h"
#include "passes/compile_state.h"
#include "plan/design_resources.h"
#include "plan/floorplan.h"
#include "plan/hbm_plan.h"
#include "plan/llm_kernel_bindings.h"
#include "plan/llm_top_interface.h"
#include "plan/step_hbm_bound.h"

namespace st::plan {

struct LlmPlanOptions {
  std::string designName;
  /// constraints/<device>.yaml.
  std::string devicePath;
  llm::AcceleratorOptions accelerator;
  /// What the kernels' table-file parameters start with (the $readmemh paths: the final
  /// directory's rtl/tables/).
  std::string tablePrefix;
  /// Plan the SLR floorplan (--floorplan): without it the design has none and link.cfg pins the
  /// compute unit to the HBM's SLR.
  bool floorplan = false;
  /// The share of each SLR the floorplan may fill (--slr-budget).
  double slrBudget = kDefaultSlrBudget;
  /// The share of each SLR boundary's super long lines the crossing bits may use (--sll-budget).
  double sllBudget = kDefaultSllBudget;
};

/// The planned design: nothing is decided after it.
struct LlmPlan {
  std::string designName;
  const ir::DecodeProgram *program = nullptr;
  numerics::Precision precision{};
  std::string precisionName; ///< "w4a8", ...
  llm::AcceleratorOptions accelerator;
  passes::DeviceConstraints device;
  /// The kernels, streams (itensor types, FIFO depths) and DMAs of the joined stages.
  llm::AcceleratorGraph graph;
  HbmImagePlan hbm;
  /// The register map and every AXI master's buffer and channel.
  LlmTopInterface top;
  /// Per kernel: the sidebands of every layer, the table parameters, the attention windows.
  std::map<ir::NodeId, LlmKernelConfig> kernels;
  /// The table files the kernels' parameters name (rtl/tables/).
  std::vector<KernelTable> tables;
  /// Per layer, the sliding window of the block's attention (0: none).
  std::vector<int64_t> layerWindows;
  /// The whole top's resource estimate (design_resources.h: kernels, DMAs, forks, FIFOs, one
  /// st_step_sequencer per DMA and one st_vector_counter per kernel whose sidebands follow the
  /// step or the layer), which the report prints beside the device budget.
  DesignResources resources;
  /// Per step (0 .. max context - 1), the bytes it reads from HBM and their cycles at HBM's peak
  /// rate (step_hbm_bound.h): the bound the report's headline sets the step prediction beside.
  StepHbmBound stepBound;
  /// Which SLR every instance of the top goes to (floorplan.h): the pblocks of
  /// vivado/floorplan.xdc, the report's per-SLR table (with --floorplan).
  std::optional<Floorplan> floorplan;
};

/// The cycles of the design's reported steps (llm::reportedSteps: step c - 1 of each reference
/// context c) under the testbench memory's mean behaviour (llm/step_prediction.h), each an exact
/// timing simulation.
struct LlmStepPrediction {
  model::MemoryTiming hbm;
  std::vector<int64_t> steps;      ///< ascending
  std::vector<int64_t> stepCycles; ///< per entry of steps
  /// What compile's design choices and this prediction simulated (set by compile).
  llm::PredictionWork work;
};

/// The HBM buffer of the prompt ids: one u32 id per 64-byte row, maxContext rows.
inline constexpr const char *kPromptBuffer = "run/prompt";

/// The lowering and FIFO sizing of the joined stages (llm/accelerator_graph). They read only the
/// program's shapes, so they may run while calibration and quantization work. Throws st::Error.
llm::AcceleratorGraph lowerLlmDesign(const ir::DecodeProgram &program,
                                     const llm::AcceleratorOptions &options);

/// Plans the design (see the file comment) around `graph`, lowerLlmDesign's result with
/// options.accelerator. Throws st::Error.
LlmPlan planLlmDesign(const frontend::LoadedModel &model, const frontend::QuantizedModel &q,
                      llm::AcceleratorGraph graph, const LlmPlanOptions &options);

/// The step prediction of a lowered design (timing simulations of its stages: seconds at full
/// size; it reads only the lowered graph and the program's attention windows, so it may run
/// beside calibration and quantization).
/// With `cache`, the steps the design choices simulated on this design are not simulated again.
LlmStepPrediction predictLlmSteps(const llm::AcceleratorGraph &graph,
                                  const llm::AcceleratorOptions &options,
                                  llm::StepCache *cache = nullptr);
/// The same prediction at `steps` (each below the max context; sim: the steps of its run).
LlmStepPrediction predictLlmSteps(const llm::AcceleratorGraph &graph,
                                  const llm::AcceleratorOptions &options,
                                  const std::vector<int64_t> &steps,
                                  llm::StepCache *cache = nullptr);

/// Per layer, the sliding window of the block's attention (0: none).
std::vector<int64_t> layerWindowsOf(const ir::DecodeProgram &program);

/// The decode stage of accelerator node `n` (a stage's node, not the control's).
const ir::DecodeStage &decodeStageOf(const llm::AcceleratorGraph &g, ir::NodeId n);

} // namespace st::plan
