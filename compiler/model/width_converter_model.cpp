// Timing and resource model of st_width_converter (see width_converter_model.h).
#include "model/width_converter_model.h"

#include <stdexcept>

namespace st::model {

namespace {

int64_t ratioOf(int64_t inWidth, int64_t outWidth) {
  if (inWidth < 1 || outWidth < 1 || inWidth % outWidth != 0)
    throw std::invalid_argument("an output width dividing the input width");
  return inWidth / outWidth;
}

} // namespace

KernelTiming widthConverterTiming(int64_t inWidth, int64_t outWidth, int64_t inputTokens) {
  const int64_t ratio = ratioOf(inWidth, outWidth);
  KernelTiming t;
  t.firstOutputDelay = 1;
  t.ii = 1;
  t.outputTokens = inputTokens * ratio;
  t.totalLatency = t.outputTokens;
  t.inputTokens = {inputTokens};
  t.inputTokensNeeded = {[ratio](int64_t k) { return k / ratio + 1; }};
  return t;
}

ResourceEstimate widthConverterResources(int64_t inWidth, int64_t outWidth) {
  const int64_t ratio = ratioOf(inWidth, outWidth);
  int64_t countBits = 1;
  while ((int64_t{1} << countBits) < ratio)
    ++countBits;
  ResourceEstimate r;
  r.ff = inWidth + countBits + 1;
  r.lut = outWidth * ((ratio - 1 + 2) / 3) + countBits + 4;
  return r;
}

} // namespace st::model
