// Stage lowering: one stage graph of a DecodeProgram (prologue, the block, epilogue) becomes a
// dataflow graph of the LLM kernel templates (docs/accelerator.md §1): one kernel per named op,
// vector streams typed by itensors in one lane count per stage, a weight-stream read DMA per
// linear (docs/weight-stream.md words), a parameter read DMA per norm, K/V cache read DMAs and
// append write DMAs for attention, and DMAs standing for the stage's exchanged vectors (in the
// accelerator the layer loop and the token source drive those ports). Runtime scalars (position,
// per-layer scales) are sidebands, not streams. The stream code widths follow
// docs/numerics.md §1 from the precision. The result is ready for insert-forks and size-fifos,
// which give the stage's FIFO depths and predicted cycles.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ir/dataflow_graph.h"
#include "ir/decode_program.h"
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
};

/// Attributes the lowering puts on DMA nodes (DataflowNode::attributes).
inline constexpr const char *kAttrStageInput = "stage_input";   ///< an exchanged input vector
inline constexpr const char *kAttrStageOutput = "stage_output"; ///< an exchanged output vector
inline constexpr const char *kAttrKvCacheRead = "kv_cache_read";
inline constexpr const char *kAttrKvAppend = "kv_append";
inline constexpr const char *kAttrWeightStream = "weight_stream";

struct LoweredStage {
  ir::DataflowGraph dataflow;
  /// Codes per vector token in this stage.
  int64_t lanes = 1;
  /// Signed code width of every streamed tensor of the stage graph, by tensor name.
  std::map<std::string, unsigned> codeBits;
};

/// The group size of a linear's weights along K for a precision (docs/numerics.md §1, §3):
/// int4 uses groups of 128 (or 64, 32 when K is not a multiple), int8 one scale per output
/// channel (0).
int64_t linearGroupSize(numerics::Precision precision, int64_t k);

/// Lowers `stage` (its graph must outlive the result: the dataflow graph points at it). Throws
/// st::Error naming the op or tensor when the stage cannot be mapped onto the templates (a vector
/// length no lane count divides, conflicting code widths, a plain loop-nest op).
LoweredStage lowerStage(const ir::DecodeStage &stage, const StageLoweringOptions &options);

} // namespace st::llm
