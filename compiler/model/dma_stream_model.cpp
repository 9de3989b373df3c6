// Nominal timing of the DMA stream templates and of pass-through nodes.
#include "model/dma_stream_model.h"

#include <algorithm>

namespace st::model {

KernelTiming readDmaStreamTiming(int64_t tokens, int64_t words, int64_t maxBurstLen) {
  KernelTiming t;
  // Address merge of the first burst, AR, HBM latency, DMA buffer, unpack register and slice.
  t.firstOutputDelay = std::min(words, maxBurstLen) + kNominalHbmReadLatency + 5;
  t.ii = 1;
  t.outputTokens = tokens;
  t.totalLatency = t.firstOutputDelay + tokens - 1;
  return t;
}

KernelTiming passThroughTiming(int64_t tokens, int64_t ports) {
  KernelTiming t;
  t.firstOutputDelay = 1;
  t.ii = 1;
  t.outputTokens = tokens;
  t.totalLatency = tokens;
  for (int64_t p = 0; p < ports; ++p) {
    t.inputTokens.push_back(tokens);
    t.inputTokensNeeded.push_back([tokens](int64_t k) { return std::min(k + 1, tokens); });
  }
  return t;
}

KernelTiming writeDmaStreamTiming(int64_t tokens) {
  // One write per token (the pack register and the W slice): a pipeline of depth 2.
  KernelTiming t = passThroughTiming(tokens);
  t.firstOutputDelay = 2;
  t.totalLatency = tokens + 1;
  return t;
}

} // namespace st::model
