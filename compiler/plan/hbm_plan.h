// The HBM image plan of a quantized model (docs/hbm-image.md): every buffer a read DMA streams
// (linear weight streams, embedding tables, norm parameters) and the KV-cache region, each laid
// out in exactly the order its DMA reads it, all layers of one kind contiguous at a fixed
// per-layer stride, and striped over the device's pseudo-channels; each buffer's contents as a
// function of the layer, and the RoPE ops' phase tables. Device facts (channel count and size)
// come from constraints/<device>.yaml. gen/hbm_image writes the files of a plan.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/quantized_model.h"
#include "ir/decode_program.h"
#include "llm/gemv_engine_join.h"
#include "model/linear_model.h"
#include "numerics/nonlinear_tables.h"
#include "passes/compile_state.h"

namespace st::plan {

/// The HBM facts the layout needs.
struct HbmDevice {
  int64_t pseudoChannels = 32;
  int64_t pseudoChannelBytes = int64_t(512) << 20;
  int64_t alignmentBytes = 4096; ///< every layer starts on an AXI 4 KiB boundary
  /// HBM's peak bandwidth over all pseudo-channels in GB/s (hbm.total_peak_gbps; 0 when the
  /// YAML gives none: no HBM bound is reported).
  double totalPeakGBps = 0;
  /// Pseudo-channels of one HBM mini-switch (hbm.mini_switch_pseudo_channels: channels 4m ..
  /// 4m + 3 on the U55C). A buffer spanning channels splits no row at a channel boundary
  /// between two mini-switches. 0: unknown, every channel boundary counts as one.
  int64_t miniSwitchChannels = 4;
  int64_t capacityBytes() const { return pseudoChannels * pseudoChannelBytes; }
};
/// The HBM facts of the device constraints (passes::loadDeviceConstraints reads them: hbm.*).
HbmDevice hbmDeviceOf(const passes::DeviceConstraints &device);
/// hbmDeviceOf the hbm: section of the device constraints YAML at `constraintsPath` (st::Error
/// naming the file and the key for a missing or malformed one).
HbmDevice loadHbmDevice(const std::string &constraintsPath);

/// One buffer: `layers` equal slices of `layerBytes` at `layerStride` from `address` (a global
/// HBM address: channel * pseudoChannelBytes + offset). It occupies `channels` (consecutive; a
/// buffer larger than the room of one channel spans several: the global address space runs on
/// from the top of one channel into the bottom of the next).
struct HbmBuffer {
  std::string name; ///< "stage/op.kind", e.g. "block/q_proj.weights"
  /// linear_weights, engine_stream (one pseudo-channel's words of every engine call of a step,
  /// docs/gemv-engine.md), embedding_table, norm_params, k_cache, v_cache; run buffers the
  /// design writes during a run (addRunBuffer): run_tokens, run_tap
  std::string kind;
  std::string format; ///< the element format, for people
  std::string stage, op;
  int64_t layers = 1;
  int64_t layerBytes = 0;
  int64_t layerStride = 0;
  int64_t address = 0;
  std::vector<int64_t> channels;
  model::LinearParams linearParams; ///< linear_weights only
  int64_t rowBytes = 0; ///< bytes of one row (KV caches, run buffers); 0: not row-structured
  /// embedding_table: the bytes of the one row a step looks up (0 for other kinds).
  int64_t lookupRowBytes = 0;
  /// A run buffer that keeps only the last ringSteps steps (a power of two): step t's rows at
  /// t mod ringSteps. 0: one row set per step of the whole context.
  int64_t ringSteps = 0;
  /// A tap whose rows hold more codes than its op's (an engine's padded LM head; the extra
  /// codes are the most negative code): the codes per row. 0: the op's.
  int64_t paddedCodes = 0;
  /// The pseudo-channel the buffer must lie in (an engine stream), or -1: placed by the
  /// planner's rule. A pinned buffer starts at offset 0 of its channel, or ends at the channel's
  /// top when the planner moved it there to let a spanning buffer run on into the channel
  /// (docs/hbm-image.md).
  int64_t pinnedChannel = -1;
  /// The row a read fetches, that a spanning placement never splits at a mini-switch boundary:
  /// lookupRowBytes, else rowBytes (0: none, e.g. a weight stream read whole).
  int64_t rowUnitBytes() const { return lookupRowBytes > 0 ? lookupRowBytes : rowBytes; }
  /// A slice of a striped KV cache (llm/kv_striping.h): kvSlice of kvSlices, its row the
  /// chunks' parts of partCodes codes, one bus word each. kvSlices 1: the whole row, packed.
  int64_t kvSlice = 0;
  int64_t kvSlices = 1;
  int64_t kvPartCodes = 0;
  /// A block-major slice (llm::KvStriping::blocks > 1): its layer holds kvBlocks regions of
  /// layerBytes / kvBlocks bytes, one per kv-head block, each a row per position of rowBytes /
  /// kvBlocks bytes. 1: rows position-major.
  int64_t kvBlocks = 1;
  /// The pseudo-channels its blocks spread over (llm::kvBlockChannels): block b on channels[b]
  /// at the same offset, kvBlockStride = the device's pseudoChannelBytes apart, and a layer
  /// (layerBytes, layerStride) is one block's region on each. 1: every block in one channel, a
  /// layer the kvBlocks regions one after the other.
  int64_t kvBlockChannels = 1;
  /// Bytes from one block's region to the next: layerBytes / kvBlocks, or with kvBlockChannels
  /// > 1 the pseudo-channel's bytes (set by the planner).
  int64_t kvBlockStrideBytes = 0;
  int64_t kvBlockStride() const {
    return kvBlockStrideBytes > 0 ? kvBlockStrideBytes : layerBytes / kvBlocks;
  }
  /// Positions striped over the kvSlices slices (llm::KvStriping::positionSlices): position p
  /// lies in slice p mod kvPositionSlices at row p div kvPositionSlices. 1: every slice holds
  /// its part of every position.
  int64_t kvPositionSlices = 1;
  int64_t bytes() const { return layerStride * (layers - 1) + layerBytes; }
  /// The bytes of layer `l` (empty: zero-filled, e.g. the KV cache).
  std::function<std::vector<uint8_t>(int64_t)> contents;
};

/// RoPE ops of the program with their distinct tables and the table index of each run.
struct RopeOpTables {
  std::string stage, op;
  std::vector<numerics::RopeTable> tables;
  std::vector<double> bases;
  std::vector<int64_t> runTable;
};

/// The free room of one pseudo-channel: offsets [bottom, top). Buffers are placed from offset 0
/// up (bottom) and, an engine stream moved to make room for a spanning buffer, down from the
/// channel's end (top).
struct HbmChannelRoom {
  int64_t bottom = 0;
  int64_t top = 0;
};

struct HbmImagePlan {
  HbmDevice device;
  std::string architecture;
  std::string precision;
  int64_t maxContext = 0;
  std::vector<HbmBuffer> buffers; ///< in program order (the order the DMAs stream)
  /// Per pseudo-channel: the bytes from offset 0 to the end of its last buffer (its image
  /// file's size; zero room inside stays a sparse hole).
  std::vector<int64_t> channelBytes;
  /// Per pseudo-channel: its free room (the planner's; empty in a plan read from a manifest,
  /// where it follows from channelBytes).
  std::vector<HbmChannelRoom> channelRoom;
  /// The RoPE ops' phase tables (st_rope's rope_<op>.mem files beside the image).
  std::vector<RopeOpTables> ropeTables;
  /// The bytes the buffers use: channelBytes without the free room inside a channel.
  int64_t totalBytes() const;
};

/// Lays out every buffer of `model` for a context of `maxContext` positions (1 ..
/// program.maxPositions). Placement: buffers from largest to smallest; one that fits the room of
/// a channel goes to the channel with the fewest bytes used that has room; a larger one spans
/// consecutive channels: from the bottom of the first's room to its top, through empty ones, into
/// the bottom of the last, whose engine stream (a pinned buffer alone at its bottom) moves to the
/// channel's top to make that room; never splitting a row (HbmBuffer::rowUnitBytes) at a channel
/// boundary between two mini-switches; the fewest channels first, then no move, then the lowest
/// channel. Throws st::Error ("hbm image", naming the buffer, its size and the free room) when a
/// buffer finds no room. The plan refers to `model` (contents).
/// `stageLanes` (stage name -> codes per vector token, the e2e lowering's lane count): the
/// linears of a stage listed there use model::linearKernelParamsForLanes(layer, lanes), the others
/// model::linearKernelParamsFor(layer).
/// With `engine` (a design whose linears run on the shared GEMV engine) the linears get no
/// buffers of their own: pseudo-channel c holds buffer "engine/w<c>" at offset 0, the channel's
/// words of every engine call of one decode step in program order (numerics/gemv_stream).
/// `attentionKvStep`, `attentionHeadSplit`, `attentionReadStep` and `attentionBlockMajor`
/// (llm/kv_striping.h, kvReadStripingOf: the cache as its DMAs read it): a striped cache is one
/// buffer
/// per slice, all at one offset of equally spaced pseudo-channels (slice j at channel j * 2s, the V
/// cache's at j * 2s + s, s = channels / (2 * slices)), placed right after the engine streams.
HbmImagePlan planHbmImage(const ir::DecodeProgram &program, const frontend::QuantizedModel &model,
                          const HbmDevice &device, int64_t maxContext,
                          const std::map<std::string, int64_t> &stageLanes = {},
                          const llm::EngineUse *engine = nullptr, int64_t attentionKvStep = 0,
                          int64_t attentionHeadSplit = 1, int64_t attentionReadStep = 0,
                          bool attentionBlockMajor = false, int64_t attentionPositionSlices = 0);

/// Bytes between slice j and slice j + 1 of a striped cache (kvSliceStride of its slices'
/// addresses; the append DMA writes every slice through one master with this stride).
int64_t kvSliceStride(const HbmImagePlan &plan, const std::string &sliceZero);

/// The name of the engine stream buffer of pseudo-channel `channel`.
std::string engineStreamBufferName(int64_t channel);

/// Adds a buffer that the design writes while it runs (docs/accelerator.md §4: the generated
/// tokens, debug taps) to a plan made by planHbmImage: one zero-filled slice of
/// `buffer.layerBytes` (layers 1, no contents; name, kind, stage, op, format and rowBytes as the
/// caller sets them), placed by the planner's rule in the room the image's buffers left, so it
/// overlaps none of them. Returns the placed buffer (also appended to plan.buffers). Throws the
/// planner's st::Error when it finds no room, and one naming the buffer for a repeated name or a
/// size below 1.
HbmBuffer addRunBuffer(HbmImagePlan &plan, HbmBuffer buffer);

/// The buffer of `plan` named `name`. Throws st::Error naming it when there is none.
const HbmBuffer &hbmBufferNamed(const HbmImagePlan &plan, const std::string &name);

/// The RoPE ops of `program` in program order, with their tables from `model`.
std::vector<RopeOpTables> ropeTablesOf(const ir::DecodeProgram &program,
                                       const frontend::QuantizedModel &model);

} // namespace st::plan
