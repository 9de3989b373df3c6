// Timing and resource model of rtl_templates/kernels/st_attention.sv (decode attention of one
// new token over a streamed KV cache; see the template's header for the phases). The timing
// depends on the runtime cache length; its Verilator test (tests/rtl/attention) asserts these
// cycle counts exactly for many cache lengths at every parameter set.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>
#include <vector>

namespace st::model {

/// The template's parameters, plus the runtime cache length of the invocation being timed.
struct AttentionParams {
  int64_t numHeads = 4;    ///< NumHeads
  int64_t numKvHeads = 2;  ///< NumKvHeads
  int64_t headDim = 16;    ///< HeadDim
  int64_t maxContext = 64; ///< MaxContext: positions incl. the new token (cache_len < this)
  int64_t lanes = 4;       ///< Lanes: codes per q / k_new / v_new / o token
  int64_t cacheLanes = 4;  ///< CacheLanes: codes per k_cache / v_cache token (a divisor of
                           ///< headDim, or whole kv heads in parallel: a multiple of it)
  int64_t outBits = 8;     ///< OutBits
  bool blockMajor = false; ///< BlockMajor: the cache walked (and streamed) by kv-head block
  /// CacheRound: each block's run of cache tokens holds cacheLength rounded up to a multiple of
  /// it (a power of two dividing maxContext; > 1 only block-major), the rest pad it drops.
  int64_t cacheRound = 1;
  /// OnePass: the value walker a tile behind the score walker, each tile merged into the
  /// running accumulators (block-major, a cache token of whole kv heads, headDim >= 4).
  bool onePass = false;
  int64_t tilePositions = 64; ///< TilePositions (one pass): a power of two, 2 .. maxContext
  int64_t cacheLength = 0;    ///< runtime cache_len of the invocation (0 .. maxContext - 1)
  /// attentionSchedule only: the cycle k_new's (v_new's) last token is taken, if its stream
  /// comes late (-1: offered with q, one token a cycle). The walkers wait for it only at the
  /// new position.
  int64_t kNewLastTaken = -1;
  int64_t vNewLastTaken = -1;
};

/// Width of the cache_len_i sideband input.
int64_t attentionCacheLengthBits(const AttentionParams &params);
/// Width of the signed E x v accumulators: 24 + ceil(log2(maxContext)).
int64_t attentionAccumulatorBits(const AttentionParams &params);

/// Pipeline constants of the template (cycles).
struct AttentionPipeline {
  static constexpr int64_t kScoreStages = 3;  ///< operand register, dot products, accumulator
  static constexpr int64_t kValueReady = 1;   ///< a P write is readable the next cycle
  static constexpr int64_t kValueDrain = 4;   ///< last value issue -> first output issue
  static constexpr int64_t kNormToOutput = 2; ///< last head's (R, L) -> first output issue
  /// accumulator read, a x R, round (a / S), x M_o, round and saturate, slice
  static constexpr int64_t kOutputStages = 6;
  // One pass:
  /// a score chunk issued at c is counted (its tile's value chunks may issue) from c + this
  static constexpr int64_t kScoreCounted = 4;
  /// a tile's last value chunk issued at v: its merge reads from v + this at the earliest
  /// (score read, six exponent stages, E * v, partial accumulate, merge start)
  static constexpr int64_t kValueToMerge = 10;
  /// a merge starts reading this many cycles after the previous one's last read
  static constexpr int64_t kMergeGap = 2;
  /// the last merge's last read at X: the value side is idle from X + this
  static constexpr int64_t kMergeDrain = 3;
  /// the block's last merge starting at R: its heads' (R, L) have arrived from R + this
  static constexpr int64_t kMergeToNorm = 9;
};

/// Derived schedule of one invocation (cycle 0 = the first handshake; every input offers a
/// token whenever the kernel is ready for one, k_new and v_new unless they come late
/// (AttentionParams::kNewLastTaken); no output backpressure). Each pass (score, value)
/// is a sequence of segments of m * segmentChunks chunks (m = n = cache_len + 1, or with pad
/// positions, see attentionTiming), one chunk a cycle
/// once a segment has started: position-major, one segment (the whole pass, segmentChunks =
/// chunksPerPosition); block-major, one per kv-head block b in turn (segmentChunks = the chunks
/// of one position of a block, HeadDim/CacheLanes or 1), its k_cache / v_cache tokens first and
/// the k_new / v_new chunks at its last position.
struct AttentionSchedule {
  int64_t loadCycles = 0;          ///< q tokens: the score walk starts here
  int64_t chunksPerPosition = 0;   ///< NumKvHeads * HeadDim / CacheLanes (every block's)
  int64_t segmentChunks = 0;       ///< chunks of one position of a segment (see above)
  std::vector<int64_t> scoreStart; ///< per segment: its first score chunk
  std::vector<int64_t> valueStart; ///< per segment: its first value chunk (waits for E[.][0])
  int64_t lastScoreGroup0 = 0;     ///< cycle kv-head block 0's last score enters its softmax
  int64_t firstValueIssue = 0;     ///< valueStart[0]
  int64_t firstOutputIssue = 0;    ///< the accumulators are final
  /// One pass only (empty otherwise): per block, the cycle of each cache token's score / value
  /// chunk (pad included; the value walker waits for its tile's scores and, at a tile's first
  /// position, for the merge of the tile two before).
  std::vector<std::vector<int64_t>> scoreCycles, valueCycles;
  /// One pass only: per block, the global tile index (tiles counted over the blocks in walk
  /// order) of each cache token (a pad token: its block's last cache tile), and of the block's
  /// new position.
  std::vector<std::vector<int64_t>> cacheTokenTiles;
  std::vector<int64_t> newPositionTiles;
  int64_t nextInvocation = 0; ///< the next invocation's q can be accepted from this cycle
};
AttentionSchedule attentionSchedule(const AttentionParams &params);

/// Inputs: port 0 = q, 1 = k_new, 2 = v_new, 3 = k_cache, 4 = v_cache; all of every input is
/// needed before output 0. With n = cache_len + 1, Q = NumHeads*HeadDim/Lanes, K =
/// NumKvHeads*HeadDim/Lanes, C = HeadDim/CacheLanes (1 when a chunk holds whole kv heads),
/// B = the kv-head blocks (NumKvHeads*HeadDim/CacheLanes / C), W = B*C chunks per position, and
/// st_softmax's weights starting 12 cycles (its D - T) and its (R, L) n + 16 cycles after its
/// last logit:
///   Load q 0 .. Q - 1 (k_new and v_new beside it, K <= Q tokens, and on into Run: used only at
///   the new position).
///   Position-major: score chunks from S = Q, n*W of them; block 0's last score at
///   a0 = S + (n-1)*W + C + 2; value chunks from V = max(S + n*W, a0 + 13), n*W of them; the
///   first output issue at O = max(V + n*W + 3, a0 + (B-1)*C + n + 18).
///   Block-major, with m = cache_len rounded up to CacheRound, plus 1 (the positions a block's
///   walk takes, pad included; m = n at CacheRound 1): block b's m*C score chunks from S_b
///   (S_0 = Q), its last score at a_b = S_b + m*C + 2; its m*C value chunks from
///   V_b = max(V_{b-1} + m*C, a_b + 13); block b >= 2 waits for value block b - 2:
///   S_b = max(S_{b-1} + m*C, V_{b-2} + m*C); O = max(V_{B-1} + m*C + 3, a_{B-1} + n + 18).
///   One pass (block-major, C = 1), with T = TilePositions and tiles of real positions (the
///   cache, then the new token at cache_len; pad positions belong to none): the score walker
///   runs every block back to back from Q (block 0's new position once k_new is in), the score
///   of a chunk issued at c written at c + 3 and counted from c + 4. The value walker takes a
///   chunk a cycle; the chunk of real position r waits until the scores of its tile (through
///   position min(tile end, n) - 1) are counted, the new token's for v_new, and a tile's first
///   chunk for the merge of the tile two before (same partials) to have read them. Tile t (in
///   walk order over the blocks) whose last chunk issues at v is merged from
///   R_t = max(v + 10, X_(t-1) + 2) to X_t = R_t + HeadDim - 1 (its partials free from X_t + 1);
///   the last block's (R, L) arrive at R_last + 9; O = 1 + max(last value chunk + 1,
///   X_last + 3, R_last + 9).
///   D = O + 6, ii = 1, L = D + Q - 1.
/// inputRanks are the schedule's cycles (one pass: scoreCycles / valueCycles; phases by global
/// tile t: its k_cache tokens phase 2t + 1, its v_cache tokens phase 2t + 2, k_new buffered
/// from block 0's new tile's value phase, v_new from the phase after it; the k_cache port waits
/// for q and k_new only, inputWaitsFor): k_cache token j of segment b at scoreStart[b] + j,
/// v_cache token j at valueStart[b] + j (j < (m-1) * segmentChunks, pad tokens included).
/// inputPhases: q, k_new and v_new phase 0; the k_cache tokens of segment b phase b + 1, its
/// v_cache tokens phase b + 2 (position-major: k_cache 1, v_cache 2; block-major, value block b
/// beside score block b + 1, both after score block b and value block b - 1). inputBuffered:
/// k_new needed from phase 2 at scoreStart[0] + (m-1)*W' - 1 (the cycle before segment 0's new
/// position, W' = segmentChunks), v_new from phase 3 at valueStart[0] + (m-1)*W' - 1: the cache
/// walk does not wait for them before it reaches the new position.
KernelTiming attentionTiming(const AttentionParams &params);

/// LUT/FF/DSP/BRAM estimate: NumHeads st_softmax instances (Lanes 1, s32, MaxLen = MaxContext,
/// weights: their logit buffers are the score buffer), the q / k_new / v_new registers, the
/// accumulators (NumHeads*HeadDim registers of attentionAccumulatorBits) with their
/// read-modify-write muxes, Group x CacheLanes s8 x s8 and u16 x s8 multipliers (one DSP each),
/// the per-head weight memories (MaxContext x 16, block RAM) and the Lanes-wide normalize and
/// requantize pipeline; block-major, the value walker's counters. One pass: instead of the
/// st_softmax instances, weight memories and accumulators' read-modify-write, per head slot two
/// exponent lanes, a reciprocal and the merge (its read muxes, a x f and S x f), per MAC two
/// partial accumulators, and a MaxContext x 32 score memory per head.
ResourceEstimate attentionResources(const AttentionParams &params);

} // namespace st::model
