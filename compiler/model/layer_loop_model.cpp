// Timing model of st_layer_loop around an ideal block (see layer_loop_model.h).
#include "model/layer_loop_model.h"

#include <algorithm>

#include "support/int_math.h"

namespace st::model {

ResourceEstimate layerLoopResources(const LayerLoopParams &p, int64_t width, int64_t depth) {
  ResourceEstimate r;
  if (p.layers == 1)
    return r;
  const int64_t counters = 2 * (bitsFor(p.vecTokens) + bitsFor(p.layers));
  const int64_t addrBits = bitsFor(depth), countBits = bitsFor(depth + 1);
  r.lut = width + 2 * counters + 6;
  r.ff = counters;
  if (depth <= 4) { // registers: one copy of every entry, a read multiplexer
    r.ff += depth * width + 2 * addrBits + countBits + 1;
    r.lut += width * ((depth + 3) / 4) + 2 * addrBits + countBits;
  } else if (depth <= 64) { // LUTRAM: RAM64M8 holds 64 x 7 bits
    r.lut += ((width + 6) / 7) * 8 + 2 * addrBits + countBits + 4;
    r.ff += 2 * addrBits + countBits + 2;
  } else { // block RAM plus the two-entry prefetch register and its select
    r.bram36 = double((width + 71) / 72 * ((depth + 511) / 512));
    r.ff += 2 * width + 2 * addrBits + countBits + 4;
    r.lut += 3 * width + 2 * addrBits + 2 * countBits + 8;
  }
  return r;
}

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
