// The HBM bound of every decode step of a planned LLM design (see step_hbm_bound.h).
#include "plan/step_hbm_bound.h"

#include <algorithm>

#include "llm/step_prediction.h"

namespace st::plan {

StepHbmBound stepHbmBound(const HbmImagePlan &hbm, const std::vector<int64_t> &layerWindows,
                          int64_t steps, double kernelClockMhz) {
  // Bytes every step reads, and the K/V row bytes of one position of one layer.
  int64_t fixedBytes = 0;
  int64_t kvRowBytes = 0;
  for (const HbmBuffer &b : hbm.buffers) {
    if (b.kind == "linear_weights" || b.kind == "engine_stream" || b.kind == "norm_params")
      fixedBytes += b.bytes();
    else if (b.kind == "embedding_table")
      fixedBytes += b.lookupRowBytes;
    else if (b.kind == "k_cache" || b.kind == "v_cache")
      kvRowBytes += b.rowBytes;
  }
  StepHbmBound bound;
  bound.bytes.reserve(static_cast<size_t>(std::max<int64_t>(steps, 0)));
  for (int64_t t = 0; t < steps; ++t) {
    int64_t rows = 0;
    for (int64_t window : layerWindows)
      rows += std::max<int64_t>(llm::cachedRowsAt(window, t), 1);
    bound.bytes.push_back(fixedBytes + rows * kvRowBytes);
  }
  const double bytesPerCycle = hbm.device.totalPeakGBps * 1e3 / kernelClockMhz;
  if (hbm.device.totalPeakGBps > 0 && kernelClockMhz > 0)
    for (int64_t b : bound.bytes)
      bound.cycles.push_back(static_cast<double>(b) / bytesPerCycle);
  return bound;
}

} // namespace st::plan
