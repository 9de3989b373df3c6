// Kernel parameters of quantized ops (see kernel_params.h).
#include "gen/kernel_params.h"

#include <stdexcept>
#include <string>

#include "support/error.h"

namespace st::gen {

model::LinearParams linearKernelParamsFor(const numerics::QuantizedLinear &layer) {
  model::LinearParams best;
  int64_t bestBits = -1;
  const int64_t k = static_cast<int64_t>(layer.cols), n = static_cast<int64_t>(layer.rows);
  const int64_t wb = layer.weightBits;
  const int64_t group = layer.perChannel() ? 0 : static_cast<int64_t>(layer.groupSize);
  const int64_t span = group ? group : k; // KLanes must divide this (and K)
  for (int64_t kLanes = 2; kLanes * wb <= kLinearStreamWordBits && kLanes <= span; kLanes += 2) {
    if (span % kLanes != 0 || k % kLanes != 0)
      continue;
    for (int64_t rows = 1; rows * kLanes * wb <= kLinearStreamWordBits && rows <= n; ++rows) {
      if (n % rows != 0)
        continue;
      model::LinearParams p;
      p.k = k;
      p.nOut = n;
      p.rows = rows;
      p.kLanes = kLanes;
      p.weightBits = wb;
      p.activationBits = layer.activationBits;
      p.groupSize = group;
      p.outputBits = layer.outputBits;
      p.wordBits = kLinearStreamWordBits;
      p.lanes = kLanes;
      while (p.lanes * p.activationBits > kLinearStreamWordBits || kLanes % p.lanes != 0)
        --p.lanes;
      try {
        model::checkLinearParams(p);
      } catch (const std::invalid_argument &) {
        continue;
      }
      const int64_t bits = rows * kLanes * wb;
      if (bits > bestBits || (bits == bestBits && kLanes > best.kLanes)) {
        best = p;
        bestBits = bits;
      }
    }
  }
  if (bestBits < 0)
    throw Error("linear kernel parameters", "layer " + std::to_string(n) + "x" + std::to_string(k),
                "a Rows/KLanes choice that st_linear accepts with " +
                    std::to_string(kLinearStreamWordBits) + "-bit words");
  return best;
}

} // namespace st::gen
