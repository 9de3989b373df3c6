// Resource model of st_fork (rtl_templates/stream/st_fork.sv): the data fans out as wires, so a
// fork costs one "already taken" flag per branch and its valid/ready gating, independent of the
// token width. Calibrated on synth.fork.n4w64 (Yosys: LUT 11, FF 4); synth.fork.n4w64.vs_model
// prints the comparison.
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

struct ForkParams {
  int64_t branches = 2; ///< N
  int64_t width = 32;   ///< Width: bits of a token
};

/// One st_fork #(.N(branches), .Width(width)).
ResourceEstimate forkResources(int64_t branches, int64_t width);

} // namespace st::model
