// The planned design of a compiled tensor graph (`streamtensor compile <graph.yaml>`): everything
// decided before anything is printed. It takes the pass pipeline's result (passes::CompileState:
// the tiled, converted, forked, fused and FIFO-sized dataflow graph with its predictions) and
// adds what the top needs: each layout converter's address tables (as data, with the parameters
// naming their files) and the top's interface (DMA ports, HBM channels, register map).
// gen/design_writer prints the directory from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/converter_program.h"
#include "ir/dataflow_graph.h"
#include "ir/tensor_graph.h"
#include "model/memory_read_model.h"
#include "passes/compile_state.h"
#include "plan/design_resources.h"
#include "plan/top_interface.h"

namespace st::plan {

/// The three $readmemh tables of one layout converter (<stem>_counts/_prod/_cons.mem) and the
/// parameters naming them, appended to the converter's own when the top is printed.
struct ConverterTables {
  ir::NodeId node = 0;
  std::vector<ir::NodeParam> params;
  std::string stem;
  ir::ConverterProgram program;
  ir::ConverterLimits limits;
};

/// The kernel's predicted cycles under one testbench memory (passes/kernel_cycles.h).
struct KernelCyclePrediction {
  std::string memory; ///< "sim_default", "deterministic"
  model::MemoryTiming timing;
  std::optional<int64_t> cycles; ///< none when the design deadlocks at its (forced) depths
  std::string deadlock;          ///< then the timing graph's wait-for report
};

struct GraphPlan {
  std::string designName;
  /// The source graph (the testbench's inputs and the reference executor's outputs).
  const ir::TensorGraph *graph = nullptr;
  /// Kernels, converters, forks, DMAs and the streams with their itensor types and FIFO depths.
  ir::DataflowGraph dataflow;
  std::vector<ConverterTables> converterTables;
  TopInterface top;
  passes::DeviceConstraints device;
  // The compile's figures, for the report.
  int64_t fusionGroups = 0;
  std::string fifoMode;
  int64_t lpScheduleCycles = 0;
  int64_t deepFifoCycles = 0;
  std::vector<int64_t> searchedMinDepths; ///< per stream of dataflow.streams() (0: not searched)
  std::vector<KernelCyclePrediction> kernelCycles;
  /// The whole top's resource estimate (design_resources.h), which the report prints beside the
  /// device budget.
  DesignResources resources;
};

/// Plans the design of a compiled graph; converter table parameters name their files as
/// `tablePrefix` + file. Throws st::Error (e.g. more DMAs than the device's pseudo-channels).
GraphPlan planGraphDesign(const passes::CompileState &state, const std::string &designName,
                          const std::string &tablePrefix);

} // namespace st::plan
