// The interface of the LLM accelerator's top, decided before it is printed (docs/accelerator.md
// §1): the scalar arguments n_prompt and n_steps, one AXI4 master per DMA (and the embedding
// gather's own) with the HBM buffer it addresses, its layer stride, row layout and pseudo-channel;
// and per kernel what the top drives beyond its streams (the sidebands of every layer, the table
// parameters, the attention windows). gen/llm_top_emitter prints the top from it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/hbm_layout.h"
#include "llm/accelerator_graph.h"
#include "plan/llm_kernel_bindings.h"
#include "plan/top_interface.h"

namespace st::plan {

/// What the emitter needs about one kernel beyond its graph node.
struct LlmKernelConfig {
  /// Per run (layer) of its stage, the sidebands (the same ports in the same order every run).
  std::vector<std::vector<SidebandValue>> sidebandsByRun;
  /// Parameters appended to the node's (table files).
  std::vector<ir::NodeParam> extraParams;
  /// Attention: the sliding window per layer (0: every cached row). The KV read DMA's rows and
  /// the CacheLength sideband both follow frontend::cacheRowsAt: min(t, window - 1), or t.
  std::vector<int64_t> windowByRun;
};

/// Whether some sideband of the kernel follows the decode step or the layer (Position,
/// CacheLength, or a constant that differs between runs). Only such a kernel gets an
/// st_vector_counter in the top: the others' sidebands are literals or pointer arguments.
bool sidebandsFollowStepOrLayer(const LlmKernelConfig &cfg);

/// One DMA (or the embedding gather's AXI master) of the LLM top, beside TopInterface's
/// entry.
struct LlmDmaPort {
  ir::NodeId node = 0;
  llm::AcceleratorRole role = llm::AcceleratorRole::WeightStream;
  std::string buffer;      ///< the HBM buffer its pointer addresses (image or run buffer name)
  int64_t layerStride = 0; ///< bytes between layers of the buffer
  /// The layout of one command's row (KV row, tap row, id row) or, for a weight stream, of the
  /// whole stream of one layer.
  ir::HbmTensorLayout rowLayout;
  int64_t rowBytes = 0;  ///< bytes between rows (rowLayout.bytes())
  int64_t ringSteps = 0; ///< a tap ring of this many steps (a power of two); 0: every step
  /// A striped KV cache (llm/kv_striping.h): the cache's name ("block/attention.k_cache"), its
  /// slices, and which slice this read DMA streams (a read node has one port per slice, in
  /// order; the append's one port writes every slice, `buffer` being slice 0).
  std::string kvCache;
  int64_t kvSlices = 1;
  int64_t kvSlice = 0;
  /// A block-major cache's kv-head blocks (its rowLayout's outer loop; rowBytes is then one
  /// block's row): the run-time rows loop goes inside the block loop.
  int64_t kvBlocks = 1;
  /// Positions striped over the slices (HbmBuffer::kvPositionSlices): a read's rows are
  /// ceil(rows / kvPositionSlices) tokens of that many positions; the append writes step t's row
  /// to slice t mod kvPositionSlices (kvSliceStride bytes apart) at row t div kvPositionSlices.
  int64_t kvPositionSlices = 1;
  int64_t kvSliceStride = 0;
};

struct LlmTopInterface {
  TopInterface top; ///< args: n_prompt, n_steps, first_step, then a pointer per AXI master
  std::vector<LlmDmaPort> dmas; ///< same order as top.dmas
  static constexpr const char *kPromptArg = "n_prompt";
  static constexpr const char *kStepsArg = "n_steps";
  /// The run's first step S (0: a fresh decode; P > 0: resume at position P over KV rows
  /// 0 .. P-1 already in HBM, as `sim --kv-prefill P` does). n_steps counts from step 0.
  static constexpr const char *kFirstStepArg = "first_step";
  /// Bytes of one HBM pseudo-channel (an address's channel is address / pseudoChannelBytes).
  int64_t pseudoChannelBytes = 0;
};

/// The interface: DMA order = node order. `bufferOf(node)` names the HBM buffer each DMA (and the
/// embedding gather) addresses, `bufferInfo(name)` gives its layer stride and HBM channel.
struct BufferPlacement {
  int64_t layerStride = 0;
  unsigned channel = 0;
  int64_t rowBytes = 0;  ///< a row-structured buffer's row (KV caches); 0: not checked
  int64_t ringSteps = 0; ///< HbmBuffer::ringSteps
  /// A striped KV cache's slice (HbmBuffer::kvSlices, kvPartCodes) and, for slice 0, the bytes
  /// and pseudo-channels from one slice to the next (plan::kvSliceStride).
  int64_t kvSlices = 1;
  int64_t kvPartCodes = 0;
  int64_t kvSliceStride = 0;
  unsigned kvLastChannel = 0;
  /// A block-major slice's kv-head blocks and the bytes from one block's region to the next
  /// (HbmBuffer::kvBlocks, kvBlockStride).
  int64_t kvBlocks = 1;
  int64_t kvBlockStride = 0;
  /// The buffer's last pseudo-channel (its blocks' when they spread over channels of their own:
  /// HbmBuffer::kvBlockChannels); below `channel`: `channel`.
  unsigned lastChannel = 0;
  /// HbmBuffer::kvPositionSlices.
  int64_t kvPositionSlices = 1;
};
LlmTopInterface
llmTopInterfaceOf(const llm::AcceleratorGraph &g, const std::string &designName,
                  const std::function<BufferPlacement(const std::string &)> &bufferInfo,
                  const std::function<std::string(ir::NodeId)> &bufferOf);

/// The layouts of a striped KV cache DMA node's AXI masters (llm/kv_striping.h; its kv_slices
/// and kv_part_codes attributes): a read's one per slice (each its slice's part of every token of
/// a row, a bus word per part), an append's one writing every slice, `sliceStride` bytes apart;
/// for a block-major cache (the node's kv_blocks), the blocks `blockStride` bytes apart.
/// Throws st::Error naming the node when it is not a striped cache's DMA.
std::vector<ir::HbmTensorLayout> stripedKvPortLayouts(const ir::DataflowNode &node,
                                                      int64_t sliceStride, int64_t blockStride = 0);

/// Whether an accelerator node of this role is a DMA with its own AXI master and sequencer.
bool isLlmDma(llm::AcceleratorRole role);

} // namespace st::plan
