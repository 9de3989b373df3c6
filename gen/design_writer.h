// DesignWriter: writes a compiled design directory — rtl/ (the generated top, generated kernel
// modules, the templates it uses and filelist.f in dependency order), tb/ (the generated
// Verilator testbench, its CMakeLists.txt, the design manifest and the HBM data: seeded random
// inputs packed in each DMA's layout and the reference executor's outputs packed the same way),
// the reports, and the AMD tool deliverables of gen/vitis_writer.h (include/, vitis/, vivado/,
// host/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "plan/graph_plan.h"

namespace st::gen {

struct DesignWriteOptions {
  /// The streamtensor source tree (rtl_templates/, tb/, cmake/).
  std::string sourceDir;
  /// Seed of the random test inputs.
  uint64_t dataSeed = 1;
  /// Also write search/: the FIFO-depth search build (gen::FifoSearchTop; run by
  /// `streamtensor sim --fifo-search`, see docs/fifo-sizing.md), its FIFOs this deep at least.
  bool fifoSearch = false;
  int64_t searchPhysicalDepth = 8192;
};

/// Writes everything of the planned design into `dir` (which must exist and be empty). Throws
/// st::Error.
void writeDesign(const plan::GraphPlan &plan, const DesignWriteOptions &options,
                 const std::string &dir);

/// Writes the top, the generated kernels of `df`, the templates they use and filelist.f into
/// `rtlDir` (created); returns the file names in compile order.
std::vector<std::string> writeRtlSources(const std::string &rtlDir, const ir::DataflowGraph &df,
                                         const std::string &topModule, const std::string &topText,
                                         const std::string &sourceDir);

/// The CMakeLists.txt of a generated testbench directory: Verilates the files of ../rtl (in
/// order) into top `topModule` and links tb_main.cpp with the st_tb support library; with
/// `probes` also tb/probes.vlt, and FST tracing only when ST_TB_TRACE is ON.
std::string testbenchCmakeLists(const std::string &topModule, const std::string &sourceDir,
                                const std::vector<std::string> &rtlFiles, bool probes = false);

} // namespace st::gen
