// Stage lowering: one stage graph of a DecodeProgram (prologue, the block, epilogue) becomes a
// dataflow graph of the LLM kernel templates (docs/accelerator.md §1): one kernel per named op,
// vector streams typed by itensors in one lane count per stage, a weight-stream read DMA per
// linear (docs/weight-stream.md words), a parameter read DMA per norm, K/V cache read DMAs and
// append write DMAs for attention, and DMAs standing for the stage's exchanged vectors (in the
// accelerator the layer loop and the token source drive those ports). Runtime scalars (position,
// per-layer scales) are sidebands, not streams. The result is ready for insert-forks and
// size-fifos, which give the stage's FIFO depths and predicted cycles. The widths come from the
// quantizer's per-edge rule (frontend::outputCodeBits) and each linear's parameters from
// model::linearKernelParamsForLanes, the functions the QuantizedModel and the HBM image use.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ir/dataflow_graph.h"
#include "ir/decode_program.h"
#include "model/llm_kernel_catalog.h"
#include "numerics/gemv_stream.h"
#include "numerics/quantization.h"

namespace st::llm {

struct StageLoweringOptions {
  numerics::Precision precision = numerics::Precision::W4A8;
  /// Upper bound of the stage's lane count (codes per vector token). A linear emits one
  /// Lanes-code token per row block and reads at least Lanes codes of K per weight word, so its
  /// word holds Lanes x Lanes weights: 8 lanes keep an int8 word within one 512-bit bus word.
  int64_t maxLanes = 8;
  /// Rows of each KV-cache region (the longest context the design decodes).
  int64_t maxContext = 64;
  /// The decode step the graph describes: how many cached rows attention reads (the hardware is
  /// the same for every step; only the cache streams' lengths and the timing change).
  int64_t cacheLength = 1;
  /// Lower every linear onto the shared GEMV engine (docs/gemv-engine.md) instead of a per-op
  /// st_linear with its own weight DMA: the linear becomes a call node (module st_gemv_engine,
  /// attribute kAttrEngineCall) with x in and y out and no weight stream of its own; the
  /// accelerator graph joins every call into one engine fed by the pseudo-channels. A call's y
  /// is padded to a multiple of the lanes (the LM head of an odd vocabulary), so linear outputs
  /// do not limit the lane count.
  bool gemvEngine = false;
  /// The engine's shape (gemvEngineShapeOf; its lanes are the stage's): the call nodes carry its
  /// Channels, KLanes and SegLanes so that their timing is the engine's.
  numerics::GemvEngineShape engineShape;
  /// Kv heads per cache token of the attention kernels (llm/kv_striping.h): 0 keeps one DMA per
  /// cache with tokens of part of a head; k >= 1 (a divisor of the kv heads) reads k heads per
  /// token, striped over kvStripingOf(...).slices DMAs when a token is wider than a bus word.
  int64_t attentionKvStep = 0;
  /// With attentionKvStep 1: each kv head in this many cache tokens (llm/kv_striping.h), the
  /// parts of a head wider than two bus words read in parallel.
  int64_t attentionHeadSplit = 1;
  /// Kv heads per token of the cache in HBM and its DMAs (kvReadStripingOf; 0: attention's own
  /// token): wider reads go through an st_width_converter into attention.
  int64_t attentionReadStep = 0;
  /// st_attention walks block-major (BlockMajor = 1): each kv-head block's positions in turn, a
  /// block's value pass beside the next block's score pass; the cache laid out block-major
  /// (KvStriping::blocks). Needs a striped cache of >= 2 blocks read at attention's token.
  bool attentionBlockMajor = false;
  /// >= 2: the cache's positions striped over this many slices (kvPositionStripingOf), attention
  /// at one kv head per token, block-major, dropping the read's pad (CacheRound); replaces the
  /// four above. 0 or 1: not.
  int64_t attentionPositionSlices = 0;
  /// > 0: st_attention in one pass (OnePass = 1, TilePositions = this, a power of two 2 ..
  /// maxContext): the value walker a tile behind the score walker, K and V of a block read
  /// together (docs/accelerator.md §7). Needs the block-major walk and a cache token of whole
  /// kv heads. 0: two passes.
  int64_t attentionTilePositions = 0;
};

/// Attributes the lowering puts on DMA nodes (DataflowNode::attributes).
inline constexpr const char *kAttrStageInput = "stage_input";   ///< an exchanged input vector
inline constexpr const char *kAttrStageOutput = "stage_output"; ///< an exchanged output vector
inline constexpr const char *kAttrKvCacheRead = "kv_cache_read";
inline constexpr const char *kAttrKvAppend = "kv_append";
/// Beside ir::kAttrKvSlices (ir/hbm_layout.h: a striped cache's slices, llm/kv_striping.h): the
/// codes of one slice's part of a cache token (KvStriping::partCodes).
inline constexpr const char *kAttrKvPartCodes = "kv_part_codes";
/// Beside kv_slices, on a block-major cache's DMAs (KvStriping::blocks > 1): its kv-head blocks,
/// each a region of every slice buffer, read one after the other.
inline constexpr const char *kAttrKvBlocks = "kv_blocks";
/// On a striped cache's DMAs: positions striped over its slices (KvStriping::positionSlices).
inline constexpr const char *kAttrKvPositionSlices = "kv_position_slices";
inline constexpr const char *kAttrWeightStream = "weight_stream";
/// On a kernel node: a linear computed by the shared GEMV engine (gemvEngine lowering).
using model::kAttrEngineCall;

struct LoweredStage {
  ir::DataflowGraph dataflow;
  /// Codes per vector token in this stage.
  int64_t lanes = 1;
  /// Signed code width of every streamed tensor of the stage graph, by tensor name.
  std::map<std::string, unsigned> codeBits;
};

/// The stage's lane count: the largest power of two up to `maxLanes` that divides every vector
/// of the stage, every RoPE half head, attention head and per-head norm, and 64 (a bus word of
/// embedding codes). The HBM image takes it per stage (planHbmImage's stageLanes) so that its
/// weight streams are the words the lowered kernels read.
/// With `paddedLinearOutputs` (the GEMV engine pads a linear's output to the lanes) the vectors
/// that linears produce do not count.
int64_t stageLanes(const ir::DecodeStage &stage, int64_t maxLanes,
                   bool paddedLinearOutputs = false);

/// Lowers `stage` (its graph must outlive the result: the dataflow graph points at it). Throws
/// st::Error naming the op or tensor when the stage cannot be mapped onto the templates (a vector
/// length no lane count divides, conflicting code widths, a plain loop-nest op).
LoweredStage lowerStage(const ir::DecodeStage &stage, const StageLoweringOptions &options);

} // namespace st::llm
