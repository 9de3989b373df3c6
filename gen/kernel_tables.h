// Writes the kernels' $readmemh table files (plan::KernelTable: the fixed tables of
// numerics::fixedTables() and st_rope's phase tables) into a design's rtl/tables/.
#pragma once

#include <string>
#include <vector>

#include "plan/llm_kernel_bindings.h"

namespace st::gen {

/// Writes every table into `dir` (created) under its file name. Throws st::Error naming a file
/// that cannot be written.
void writeKernelTables(const std::vector<plan::KernelTable> &tables, const std::string &dir);

} // namespace st::gen
