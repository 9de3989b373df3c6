// Timing model of st_layer_loop around an ideal block (see layer_loop_model.h).
#include "model/layer_loop_model.h"

#include <algorithm>

namespace st::model {

int64_t layerLoopLayerPeriod(const LayerLoopParams &p, const IdealLoopBlock &b) {
  if (b.wholeVector) // take V tokens, wait, emit V tokens; the next layer starts after the last
    return 2 * p.vecTokens - 1 + b.latency;
  // Layer l+1's token 0 is block output token 0 of layer l after the loop FIFO, but the mux takes
  // it only once layer l's V tokens are in.
  return std::max(p.vecTokens, b.latency + p.fifoLatency);
}

int64_t layerLoopStepPeriod(const LayerLoopParams &p, const IdealLoopBlock &b) {
  const int64_t layer = layerLoopLayerPeriod(p, b);
  if (b.wholeVector) // the next step's vector waits for the block to finish emitting
    return p.layers * layer;
  // The mux takes the next step's vector right after the last layer's input.
  return (p.layers - 1) * layer + p.vecTokens;
}

int64_t layerLoopLastOutputCycle(const LayerLoopParams &p, const IdealLoopBlock &b, int64_t steps) {
  const int64_t lastLayerStart =
      (steps - 1) * layerLoopStepPeriod(p, b) + (p.layers - 1) * layerLoopLayerPeriod(p, b);
  // The last layer's last input token enters at +V-1; a pipelined block emits it `latency` later,
  // a whole-vector block emits its first token then and the last V-1 cycles after that.
  const int64_t emitStart = lastLayerStart + p.vecTokens - 1 + b.latency;
  return b.wholeVector ? emitStart + p.vecTokens - 1 : emitStart;
}

} // namespace st::model
