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

#include "passes/compile_state.h"

namespace st::gen {

struct DesignWriteOptions {
  std::string designName;
  /// The streamtensor source tree (rtl_templates/, tb/, cmake/).
  std::string sourceDir;
  /// Seed of the random test inputs.
  uint64_t dataSeed = 1;
  /// Where the directory will finally live (it may be written under a temporary name first):
  /// the $readmemh paths of converter tables point there.
  std::string finalDir;
  /// Also write search/: the FIFO-depth search build (gen::FifoSearchTop; run by
  /// `streamtensor sim --fifo-search`, see docs/fifo-sizing.md), its FIFOs this deep at least.
  bool fifoSearch = false;
  int64_t searchPhysicalDepth = 8192;
};

/// Writes everything into `dir` (which must exist and be empty). Throws st::Error.
void writeDesign(const passes::CompileState &state, const DesignWriteOptions &options,
                 const std::string &dir);

/// Writes the top, the generated kernels of `df`, the templates they use and filelist.f into
/// `rtlDir` (created); returns the file names in compile order.
std::vector<std::string> writeRtlSources(const std::string &rtlDir, const ir::DataflowGraph &df,
                                         const std::string &topModule, const std::string &topText,
                                         const std::string &sourceDir);

} // namespace st::gen
