// Kernel parameters of quantized ops (see llm_kernel_params.h).
#include "model/llm_kernel_params.h"

#include <stdexcept>
#include <string>

#include "model/weight_stream.h"
#include "support/error.h"

namespace st::model {

LinearParams linearKernelParamsFor(const numerics::QuantizedLinear &layer) {
  LinearParams best;
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
      LinearParams p;
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

LinearParams linearKernelParamsForLanes(int64_t k, int64_t nOut, int64_t weightBits,
                                        int64_t activationBits, int64_t groupSize,
                                        int64_t outputBits, int64_t lanes) {
  LinearParams p;
  p.k = k;
  p.nOut = nOut;
  p.rows = lanes;
  p.lanes = lanes;
  p.weightBits = weightBits;
  p.activationBits = activationBits;
  p.groupSize = groupSize;
  p.outputBits = outputBits;
  if (lanes >= 1 && nOut % lanes == 0)
    for (int64_t kLanes = k; kLanes >= 2; --kLanes) {
      if (kLanes % 2 != 0 || k % kLanes != 0 || kLanes % lanes != 0 ||
          (groupSize != 0 && groupSize % kLanes != 0))
        continue;
      p.kLanes = kLanes;
      const int64_t payload = linearStreamPayloadBits(p);
      if (payload > kLinearStreamWordBits)
        continue;
      p.wordBits = 8;
      while (p.wordBits < payload)
        p.wordBits *= 2;
      if (model::linearBlockWords(p) < 5)
        continue;
      return p;
    }
  throw Error("linear kernel parameters",
              "layer " + std::to_string(nOut) + "x" + std::to_string(k) + " at " +
                  std::to_string(lanes) + " lanes",
              "a KLanes (multiple of the lanes, even, dividing K" +
                  std::string(groupSize ? " and the group size" : "") + ") whose word fits " +
                  std::to_string(kLinearStreamWordBits) + " bits");
}

LinearParams linearKernelParamsForLanes(const numerics::QuantizedLinear &layer, int64_t lanes) {
  return linearKernelParamsForLanes(
      static_cast<int64_t>(layer.cols), static_cast<int64_t>(layer.rows), layer.weightBits,
      layer.activationBits, layer.perChannel() ? 0 : static_cast<int64_t>(layer.groupSize),
      layer.outputBits, lanes);
}

int64_t normParamSlotBits(bool layerNorm, unsigned outBits) {
  const int64_t bits = 16 + (layerNorm ? outBits + 8 : 0);
  int64_t slot = 16;
  while (slot < bits)
    slot *= 2;
  return slot;
}

} // namespace st::model
