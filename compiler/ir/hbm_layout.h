// HbmTensorLayout: how one DMA's stream lies in HBM. Tensors are stored pre-tiled in exactly the
// order the DMA streams them (docs/hbm-image.md): tokens are padded to a power-of-two width and
// packed into the 512-bit words of the AXI port from bit 0 up; a "run" is the stretch of tokens
// inside the innermost reuse loop, and every run starts on a new word. Re-streamed data (reuse
// loops) is not stored twice: the DMA's address loops revisit it with stride 0. This file turns
// an itensor into the DMA's loop configuration, and packs and unpacks the bytes of a tensor in
// that layout (for the testbench's HBM image and for reading results back).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dataflow_graph.h"
#include "ir/itensor_type.h"

namespace st::ir {

struct DmaLoop {
  int64_t tripCount = 1;
  int64_t strideBytes = 0; ///< 0 for a reuse loop
};

struct HbmTensorLayout {
  /// The stream as the DMA delivers or takes it.
  ITensorType stream;
  int64_t wordBits = 512;
  int64_t tokenBits = 0;       ///< elements per token x element bits
  int64_t paddedTokenBits = 0; ///< the power of two >= max(8, tokenBits) a token occupies in a word
  int64_t tokensPerRun = 0;
  int64_t wordsPerRun = 0;
  int64_t runs = 0; ///< distinct runs stored
  /// The DMA's iteration space, outermost first (at most 6 loops); the innermost walks a run.
  std::vector<DmaLoop> loops;

  int64_t bytes() const { return runs * wordsPerRun * wordBits / 8; }
  /// Words the DMA moves (reuse included).
  int64_t wordsStreamed() const;
  /// The INCR bursts the DMA makes of its address sequence (st_axi_burst_former's greedy split:
  /// consecutive words, at most `maxBurstLen`, never across 4 KB), in beats, from a 4 KB-aligned
  /// base.
  std::vector<int64_t> burstLengths(int64_t maxBurstLen = 64) const;
};

/// The layout of `stream` behind a `wordBits`-wide AXI port. Throws st::Error if a token is
/// wider than a word or the DMA would need more than 6 loops.
HbmTensorLayout hbmLayoutOf(const ITensorType &stream, int64_t wordBits = 512);

/// The attribute (DataflowNode::attributes) of a KV read or append DMA of a striped cache
/// (llm/kv_striping.h): its slices, each a DMA of its own in the top, on its own pseudo-channel.
inline constexpr const char *kAttrKvSlices = "kv_slices";

/// Words a read DMA node streams from each pseudo-channel it reads: its stream's layout's, or,
/// for a node whose tokens are joined from one DMA per slice (kAttrKvSlices, a striped KV
/// cache), one bus word per token from each slice's channel.
int64_t readDmaWordsPerChannel(const DataflowNode &node);

/// The HBM bytes of a tensor (row-major element values, two's complement, each element
/// `elementBits` wide) in `layout`.
std::vector<uint8_t> packTensor(const HbmTensorLayout &layout, const std::vector<int64_t> &values);
/// The row-major element values read back from HBM bytes in `layout` (sign-extended if
/// `isSigned`).
std::vector<int64_t> unpackTensor(const HbmTensorLayout &layout, const std::vector<uint8_t> &bytes,
                                  bool isSigned);

} // namespace st::ir
