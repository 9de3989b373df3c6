// The HBM bound of every decode step of a planned LLM design: the bytes the step reads from HBM
// (every weight stream, the norm parameters, one embedding row and the cached K/V rows
// attention reads) over HBM's peak bandwidth, in kernel cycles. The report's headline compares
// the step prediction with it ("x its bound"); tools/bench/decode_bench.py counts the same bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/hbm_plan.h"

namespace st::plan {

struct StepHbmBound {
  /// Per step t (0 .. max context - 1): the bytes step t reads from HBM.
  std::vector<int64_t> bytes;
  /// Per step t: bytes[t] / the peak bandwidth, in cycles of the kernel clock. Empty when the
  /// device gives no peak bandwidth or clock.
  std::vector<double> cycles;
};

/// The bytes step t reads: every linear_weights, engine_stream and norm_params buffer whole,
/// one row of every embedding table, and per layer of every k_cache and v_cache buffer
/// max(1, rows) rows, rows = t, or min(t, window - 1) on a layer with a sliding window (step 0
/// reads the row it has just written). `layerWindows`: per layer, its window (0: none).
StepHbmBound stepHbmBound(const HbmImagePlan &hbm, const std::vector<int64_t> &layerWindows,
                          int64_t steps, double kernelClockMhz);

} // namespace st::plan
