// Timing model of rtl_templates/control/st_layer_loop.sv closed around an ideal block: the cycle
// of the last token on `last` for a run of steps in free flow, for a pipelined block and for a
// whole-vector block (one that takes a whole vector before it emits and takes nothing while it
// emits, as a norm or GEMV without double buffering). The Verilator test (tests/rtl/layer_loop)
// closes the loop through exactly these blocks and asserts the cycle counts.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

struct LayerLoopParams {
  int64_t width = 32;      ///< Width: bits of a token
  int64_t vecTokens = 16;  ///< VecTokens
  int64_t layers = 2;      ///< Layers
  int64_t fifoLatency = 1; ///< cycles from a loop FIFO write to the token being offered
};

/// An ideal block in the loop.
struct IdealLoopBlock {
  /// false: pipelined, a token accepted in cycle c is offered in cycle c + latency and the block
  /// always accepts. true: whole-vector, it accepts VecTokens tokens, offers output token 0
  /// `latency` cycles after the last input, then one token per cycle, and accepts input again
  /// in the cycle after its last output.
  bool wholeVector = false;
  int64_t latency = 1; ///< >= 1
};

/// LUT/FF/BRAM estimate with the default "auto" loop FIFO: the block-input multiplexer (one LUT
/// per bit), the token and layer counters of mux and demux, and the loop st_fifo (registers up
/// to depth 4, LUTRAM up to 64, else block RAM of 512 x 72 per BRAM36 plus its two-entry
/// prefetch register). Layers = 1 has no logic.
ResourceEstimate layerLoopResources(const LayerLoopParams &params, int64_t width,
                                    int64_t loopDepth);

/// Cycles from the start of one layer's input vector to the start of the next layer's, in free
/// flow (the loop FIFO is never full).
int64_t layerLoopLayerPeriod(const LayerLoopParams &params, const IdealLoopBlock &block);

/// Cycles from the start of one step's layer-0 vector to the start of the next step's, when the
/// prologue offers the next step's vector at once.
int64_t layerLoopStepPeriod(const LayerLoopParams &params, const IdealLoopBlock &block);

/// With `first` always valid, `last` always ready and the ideal block: the cycle of the last
/// `last` handshake of `steps` back-to-back steps, counted from the first `first` handshake
/// (cycle 0). Assumes LoopDepth >= VecTokens (the loop FIFO never fills).
int64_t layerLoopLastOutputCycle(const LayerLoopParams &params, const IdealLoopBlock &block,
                                 int64_t steps);

} // namespace st::model
