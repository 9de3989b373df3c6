// Timing and resource model of the shared GEMV engine st_gemv_engine
// (rtl_templates/kernels/st_gemv_engine.sv, docs/gemv-engine.md). The Verilator test
// tests/rtl/gemv_engine asserts that the measured cycles equal gemvEngineCallTiming().
//
// Timing, exact under ideal sources (every channel valid in every cycle, x offered in every cycle
// the engine is ready, y never back-pressured). Cycle 0 is the descriptor (D) handshake of the
// invocation. With C = Channels, L = Lanes, G = K/KLanes, B = ceil(N/C):
//   x tokens                 cycles 1 .. X, X = K/L (0 when the descriptor reuses x); when
//                            the previous call announced this x: from the cycle after the
//                            previous call's own x was complete, one a cycle (before this D)
//   x done, X'               the cycle of the last x token, at least 0 (0: whole at the D)
//   Q(b)                     super-words after D through block b's last W word:
//                            floor(b/6) + 1 + (b+1)*G + S(b),
//                            S(b) = ceil((b+1)*G / (32*g/KLanes)) when grouped, else 0
//   n(b)                     y tokens of block b: C/L, the last block (N - (B-1)*C)/L
//   F(b), block b's last W   F(0) = max(X' + Q(0), F(-1) + n(-1))
//                            F(b) = F(b-1) + max(Q(b) - Q(b-1), n(b-1))
//   output token t of b      F(b) + 11 + t        (kGemvOutputDelay)
//   the next descriptor      F(B-1) + 1 at the earliest
// F(-1), n(-1) are the previous invocation's last block (GemvEngineCarry): F(-1) = -1 and n(-1)
// its tokens when the descriptor follows it back to back; no constraint without one. Every
// super-word other than a block's last W goes in the cycle after the previous one; a block's
// last W waits until the previous block's n tokens leave the output buffer by its hand-off, so
// when the weights are the bottleneck (Q(b) - Q(b-1) >= n(b-1) and X' + Q(0) >= n(-1) - 1:
// every full-size shape, n <= 4 and G >= 7)
//   F(b) = X' + Q(b) and the engine takes one super-word per cycle from X' + 1 to F(B-1).
// Output token k of block b needs X x tokens and 1 + Q(b) super-words (D included).
#pragma once

#include "model/kernel_timing.h"
#include "numerics/gemv_stream.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace st::model {

using numerics::GemvEngineShape;

/// Cycles from a block's last W super-word to its hand-off into the output buffer (R1..R5).
constexpr int64_t kGemvHandoffDelay = 5;
/// Cycles from a block's last W super-word to its first y token: R1..R5, the hand-off, the
/// requantization r1..r4 and the output register slice.
constexpr int64_t kGemvOutputDelay = 11;

/// A stage graph's call node (llm/stage_lowering's engine mode): one linear on the engine,
/// carrying the call's own sizes beside the engine's shape until the engines are joined.
struct GemvCallParams {
  int64_t k = 128;            ///< K: reduction length
  int64_t nOut = 16;          ///< NOut: output rows of the layer
  int64_t nDeliver = 16;      ///< NDeliver: rows delivered on y (NOut padded to the lanes)
  int64_t weightBits = 4;     ///< WBits
  int64_t activationBits = 8; ///< ABits
  int64_t groupSize = 0;      ///< GroupSize; 0 = per output channel
  int64_t outputBits = 16;    ///< OutBits
  int64_t lanes = 2;          ///< Lanes
  int64_t channels = 32;      ///< Channels of the engine
  int64_t kLanes = 16;        ///< KLanes of the engine
  int64_t segLanes = 16;      ///< SegLanes of the engine
};

/// One invocation as its timing sees it.
struct GemvEngineCall {
  int64_t k = 0;         ///< reduction length
  int64_t rows = 0;      ///< N: rows delivered on y (a multiple of Lanes)
  int64_t groupSize = 0; ///< g; 0 = per output channel
  bool reuseX = false;
  /// Its descriptor announces the next call's x (numerics::GemvNextX), which the engine loads
  /// from the cycle after this call's own x is complete.
  bool preloadsNext = false;
};

/// The state of the previous invocation that the next one's timing depends on.
struct GemvEngineCarry {
  /// Cycles from the previous invocation's last super-word to this descriptor's handshake
  /// (1: back to back).
  int64_t cyclesSinceLastWord = 1;
  /// y tokens of the previous invocation's last block (0: none; no constraint).
  int64_t lastBlockTokens = 0;
  /// The previous invocation announced this one's x: the cycle, relative to this descriptor
  /// (<= 0), of the loader's first chance at it. None: x loads after the descriptor.
  std::optional<int64_t> preloadStart;
};

/// Cycles of one invocation relative to its descriptor handshake (cycle 0).
struct GemvEngineCallTiming {
  int64_t xTokens = 0; ///< x tokens, taken one a cycle from xFirst
  int64_t xFirst = 1;  ///< the first x token's cycle (<= 0: announced, early)
  int64_t xDone = 0;   ///< X': the cycle x is whole (0: at the descriptor)
  /// It announces the next call's x: the loader's first chance at it (xDone + 1).
  std::optional<int64_t> nextPreloadStart;
  int64_t superWords = 0;             ///< per channel, D included (gemvWordsPerChannel)
  std::vector<int64_t> blockLastWord; ///< per block: its last W super-word, F(b)
  std::vector<int64_t> blockTokens;   ///< per block: its y tokens, n(b)
  /// Per block: the super-words (D included) its tokens need, 1 + Q(b).
  std::vector<int64_t> blockSuperWords;
  std::vector<int64_t> outputs;     ///< per y token: its handshake
  std::vector<int64_t> outputBlock; ///< per y token: its block
  /// The cycle of the last super-word, F(B-1).
  int64_t lastWord() const { return blockLastWord.back(); }
  /// The carry for a descriptor taken `cyclesAfter` cycles after the last super-word.
  GemvEngineCarry carry(int64_t cyclesAfter = 1) const {
    GemvEngineCarry c{cyclesAfter, blockTokens.back(), std::nullopt};
    if (nextPreloadStart)
      c.preloadStart = *nextPreloadStart - (lastWord() + cyclesAfter);
    return c;
  }
};

/// The timing of one invocation (see the header comment). Throws st::Error when the call does
/// not fit the shape (the rules of gemvWordsPerChannel, rows not a multiple of Lanes), or reuses
/// x that the previous call announced as a new one.
GemvEngineCallTiming gemvEngineCallTiming(const GemvEngineShape &shape, const GemvEngineCall &call,
                                          const GemvEngineCarry &previous = {});
/// Invocations back to back: each descriptor in the cycle after the previous last super-word.
/// Each call's cycles stay relative to its own descriptor.
std::vector<GemvEngineCallTiming>
gemvEngineSequenceTiming(const GemvEngineShape &shape, const std::vector<GemvEngineCall> &calls);

/// Input port order of KernelTiming::inputTokens / inputTokensNeeded.
enum GemvEngineInput : int { kGemvInputX = 0, kGemvInputSuperWords = 1 };
/// One invocation as a KernelTiming (cycle 0 = the descriptor handshake, an input handshake):
/// D, L and the output schedule (notBefore: every token's cycle; ii = 1 inside a block).
KernelTiming gemvEngineTiming(const GemvEngineShape &shape, const GemvEngineCall &call,
                              const GemvEngineCarry &previous = {});

/// Structural estimate for Yosys synth_xilinx -family xcup (see gemv_engine_model.cpp).
ResourceEstimate gemvEngineResources(const GemvEngineShape &shape);

/// The same estimate split where the floorplan may cut the engine (plan/floorplan): one entry
/// per st_gemv_channel instance (gen_channel[firstChannel]; `ways` channels: 2 for a packed
/// pair) and the core (x loader and buffers, output buffer, requantization, control). The parts
/// sum to gemvEngineResources.
struct GemvEngineResourceSplit {
  struct Channel {
    int64_t firstChannel = 0;
    int64_t ways = 1;
    ResourceEstimate resources;
  };
  std::vector<Channel> channels;
  ResourceEstimate core;
  /// Bits from the core to every channel instance (x entry, mantissa indices, slot and take
  /// strobes) and from one channel of an instance back to the core (accumulator and record).
  int64_t coreToChannelBits = 0, channelToCoreBits = 0;
};
GemvEngineResourceSplit gemvEngineResourceSplit(const GemvEngineShape &shape);

} // namespace st::model
