// HBM image plan: buffer sizes, contents and placement (see hbm_plan.h, docs/hbm-image.md).
#include "plan/hbm_plan.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "llm/kv_striping.h"
#include "model/llm_kernel_params.h"
#include "model/weight_stream.h"
#include "numerics/embedding.h"
#include "numerics/gemv_stream.h"
#include "support/error.h"
#include "support/int_math.h"

namespace st::plan {

using frontend::QuantizedModel;
using frontend::QuantizedOp;

namespace {

/// Bits one norm parameter element occupies in HBM (model/llm_kernel_params.h).
int64_t normSlotBits(const numerics::QuantizedNorm &n) {
  return model::normParamSlotBits(n.kind == numerics::NormKind::LayerNorm, n.outputBits);
}

std::vector<uint8_t> normParamBytes(const numerics::QuantizedNorm &n, int64_t layerBytes) {
  std::vector<uint8_t> bytes(static_cast<size_t>(layerBytes), 0);
  const int64_t slotBytes = normSlotBits(n) / 8;
  const bool layerNorm = n.kind == numerics::NormKind::LayerNorm;
  for (size_t i = 0; i < n.size; ++i) {
    uint64_t element = static_cast<uint16_t>(n.gamma[i]);
    if (layerNorm) {
      const uint64_t betaMask = (uint64_t(1) << (n.outputBits + 8)) - 1;
      element |= (static_cast<uint64_t>(static_cast<int64_t>(n.beta[i])) & betaMask) << 16;
    }
    for (int64_t b = 0; b < slotBytes; ++b)
      bytes[static_cast<size_t>(static_cast<int64_t>(i) * slotBytes + b)] =
          static_cast<uint8_t>(element >> (8 * b));
  }
  return bytes;
}

/// The free room of every channel (HbmImagePlan::channelRoom), made from channelBytes for a
/// plan that has none (one read back from a manifest).
std::vector<HbmChannelRoom> &roomOf(HbmImagePlan &plan) {
  const size_t channels = static_cast<size_t>(plan.device.pseudoChannels);
  if (plan.channelRoom.size() != channels) {
    plan.channelBytes.resize(channels, 0);
    plan.channelRoom.assign(channels, {0, plan.device.pseudoChannelBytes});
  }
  // Where nothing lies at a channel's top, channelBytes is the bottom of its room (a caller may
  // have set it, e.g. to leave a channel no room).
  for (size_t c = 0; c < channels; ++c)
    if (plan.channelRoom[c].top == plan.device.pseudoChannelBytes)
      plan.channelRoom[c].bottom = plan.channelBytes[c];
  return plan.channelRoom;
}

/// Sets the bottom of channel `c`'s room and its extent (channelBytes) to match.
void setBottom(HbmImagePlan &plan, int64_t c, int64_t bottom) {
  HbmChannelRoom &room = roomOf(plan)[static_cast<size_t>(c)];
  room.bottom = bottom;
  plan.channelBytes[static_cast<size_t>(c)] =
      room.top < plan.device.pseudoChannelBytes ? plan.device.pseudoChannelBytes : bottom;
}

/// The pinned buffer alone at the bottom of channel `c` (that a span may move to its top), or
/// nullptr.
HbmBuffer *movablePinned(HbmImagePlan &plan, int64_t c) {
  const HbmChannelRoom &room = roomOf(plan)[static_cast<size_t>(c)];
  if (room.top != plan.device.pseudoChannelBytes || room.bottom == 0)
    return nullptr;
  for (HbmBuffer &p : plan.buffers)
    if (p.pinnedChannel == c && p.channels == std::vector<int64_t>{c} &&
        p.address == c * plan.device.pseudoChannelBytes &&
        roundUp(p.bytes(), plan.device.alignmentBytes) == room.bottom)
      return &p;
  return nullptr;
}

/// A placement of a buffer over channels first .. last, from `start` (a global address).
struct Span {
  int64_t first = -1, last = -1, start = 0;
  HbmBuffer *moved = nullptr; ///< the pinned buffer of `last` to move to its top
};

/// Whether a row of `b` lies across the channel boundary `offset` bytes into it.
bool splitsRow(const HbmBuffer &b, int64_t offset) {
  const int64_t row = b.rowUnitBytes();
  if (row <= 0 || b.layerStride <= 0)
    return false;
  const int64_t within = offset % b.layerStride;
  return within < b.layerBytes && within % row != 0;
}

/// The span of `size` bytes over channels first .. first + n - 1, or an empty Span when it does
/// not fit there (HbmImagePlan rule: see placeBuffer).
Span spanAt(HbmImagePlan &plan, const HbmBuffer &b, int64_t size, int64_t first, int64_t n) {
  const HbmDevice &device = plan.device;
  const int64_t channelBytes = device.pseudoChannelBytes;
  const std::vector<HbmChannelRoom> &room = roomOf(plan);
  const int64_t last = first + n - 1;
  if (room[static_cast<size_t>(first)].top != channelBytes ||
      room[static_cast<size_t>(first)].bottom >= channelBytes)
    return {};
  for (int64_t c = first + 1; c < last; ++c)
    if (room[static_cast<size_t>(c)].bottom != 0 ||
        room[static_cast<size_t>(c)].top != channelBytes)
      return {};
  Span span{first, last, first * channelBytes + room[static_cast<size_t>(first)].bottom, nullptr};
  int64_t lastRoom = room[static_cast<size_t>(last)].top;
  if (room[static_cast<size_t>(last)].bottom != 0) {
    span.moved = movablePinned(plan, last);
    if (!span.moved)
      return {};
    lastRoom = channelBytes - roundUp(span.moved->bytes(), device.alignmentBytes);
  }
  if (span.start + size > last * channelBytes + lastRoom)
    return {};
  const int64_t perSwitch = device.miniSwitchChannels;
  for (int64_t c = first; c < last; ++c)
    if ((perSwitch <= 0 || c / perSwitch != (c + 1) / perSwitch) &&
        splitsRow(b, (c + 1) * channelBytes - span.start))
      return {};
  return span;
}

/// The room the plan leaves: bytes free in all, and the largest free room of one channel.
std::string freeRoom(HbmImagePlan &plan) {
  int64_t total = 0, largest = 0;
  for (const HbmChannelRoom &r : roomOf(plan)) {
    total += r.top - r.bottom;
    largest = std::max(largest, r.top - r.bottom);
  }
  return std::to_string(total) + " bytes free in all, at most " + std::to_string(largest) +
         " in one channel";
}

/// Places `b` (its layerStride set) with the planner's rule (planHbmImage): a pinned buffer at
/// offset 0 of its empty channel; another in the least-used channel with room, else spanning
/// channels (spanAt: the fewest, then no pinned buffer moved, then the lowest first channel).
/// Throws st::Error naming the buffer, its size and the free room when there is none.
void placeBuffer(HbmImagePlan &plan, HbmBuffer &b) {
  const HbmDevice &device = plan.device;
  const int64_t channelBytes = device.pseudoChannelBytes;
  const int64_t size = roundUp(b.bytes(), device.alignmentBytes);
  std::vector<HbmChannelRoom> &room = roomOf(plan);
  if (b.pinnedChannel >= 0) {
    const size_t c = static_cast<size_t>(b.pinnedChannel);
    if (b.pinnedChannel < device.pseudoChannels && room[c].bottom == 0 &&
        room[c].top == channelBytes && size <= channelBytes) {
      b.address = b.pinnedChannel * channelBytes;
      b.channels = {b.pinnedChannel};
      setBottom(plan, b.pinnedChannel, size);
      return;
    }
  } else {
    int64_t best = -1;
    auto used = [&](int64_t c) {
      const HbmChannelRoom &r = room[static_cast<size_t>(c)];
      return r.bottom + (channelBytes - r.top);
    };
    for (int64_t c = 0; c < device.pseudoChannels; ++c)
      if (room[static_cast<size_t>(c)].bottom + size <= room[static_cast<size_t>(c)].top &&
          (best < 0 || used(c) < used(best)))
        best = c;
    if (best >= 0) {
      b.address = best * channelBytes + room[static_cast<size_t>(best)].bottom;
      b.channels = {best};
      setBottom(plan, best, room[static_cast<size_t>(best)].bottom + size);
      return;
    }
    Span span;
    for (int64_t n = 2; n <= device.pseudoChannels && span.first < 0; ++n)
      for (int pass = 0; pass < 2 && span.first < 0; ++pass) // without a move first
        for (int64_t c = 0; c + n <= device.pseudoChannels && span.first < 0; ++c) {
          const Span s = spanAt(plan, b, size, c, n);
          if (s.first >= 0 && (s.moved != nullptr) == (pass == 1))
            span = s;
        }
    if (span.first >= 0) {
      if (span.moved) { // to the top of its channel
        const int64_t movedSize = roundUp(span.moved->bytes(), device.alignmentBytes);
        span.moved->address = (span.last + 1) * channelBytes - movedSize;
        room[static_cast<size_t>(span.last)] = {0, channelBytes - movedSize};
      }
      b.address = span.start;
      for (int64_t c = span.first; c <= span.last; ++c) {
        b.channels.push_back(c);
        setBottom(plan, c, c < span.last ? channelBytes : span.start + size - c * channelBytes);
      }
      return;
    }
  }
  int64_t need = 0;
  for (const HbmBuffer &other : plan.buffers)
    need += roundUp(other.bytes(), device.alignmentBytes);
  throw Error("hbm image", "buffer '" + b.name + "' (" + std::to_string(b.bytes()) + " bytes)",
              "room in " + std::to_string(device.pseudoChannels) + " pseudo-channels of " +
                  std::to_string(channelBytes) + " bytes; the model's buffers need " +
                  std::to_string(need) + " bytes in all, " + freeRoom(plan) +
                  " (reduce --max-context or the model)");
}

/// Places the slices of every striped cache (HbmBuffer::kvSlices > 1): the k_cache's slice j on
/// channel j * 2s, the v_cache's on j * 2s + s (s = channels / (2 * slices), at least 1), each
/// slice's kv-head blocks on that channel and the next kvBlockChannels - 1, all slices of one
/// cache at the same offset, the first free one on all their channels, so that consecutive
/// slices (and blocks) are one fixed stride apart.
void placeKvSlices(HbmImagePlan &plan) {
  const HbmDevice &device = plan.device;
  for (size_t first = 0; first < plan.buffers.size(); ++first) {
    const HbmBuffer &head = plan.buffers[first];
    if (head.kvSlices < 2 || head.kvSlice != 0)
      continue;
    const int64_t slices = head.kvSlices;
    const bool value = head.kind == "v_cache";
    auto channelOf = [&](int64_t j) {
      try {
        return llm::kvSliceChannel(j, slices, value, device.pseudoChannels);
      } catch (const Error &e) {
        throw Error("hbm image", "buffer '" + head.name + "'", e.expected());
      }
    };
    const int64_t size = roundUp(head.bytes(), device.alignmentBytes);
    // Each slice's blocks on its channel and the next kvBlockChannels - 1 (kv_striping.h).
    const int64_t spread = head.kvBlockChannels;
    const std::vector<HbmChannelRoom> &room = roomOf(plan);
    int64_t offset = 0, top = device.pseudoChannelBytes;
    for (int64_t j = 0; j < slices; ++j)
      for (int64_t b = 0; b < spread; ++b) {
        offset = std::max(offset, room[static_cast<size_t>(channelOf(j) + b)].bottom);
        top = std::min(top, room[static_cast<size_t>(channelOf(j) + b)].top);
      }
    offset = roundUp(offset, device.alignmentBytes);
    if (offset + size > top)
      throw Error("hbm image",
                  "buffer '" + head.name + "' (" + std::to_string(head.bytes()) +
                      " bytes per slice)",
                  "room at one offset of " + std::to_string(slices) + " pseudo-channels of " +
                      std::to_string(device.pseudoChannelBytes) + " bytes, " +
                      std::to_string(std::max<int64_t>(0, top - offset)) +
                      " free there (reduce --max-context or the model)");
    for (int64_t j = 0; j < slices; ++j) {
      HbmBuffer &b = plan.buffers[first + static_cast<size_t>(j)];
      const int64_t channel = channelOf(j);
      b.address = channel * device.pseudoChannelBytes + offset;
      b.channels.clear();
      for (int64_t block = 0; block < spread; ++block) {
        b.channels.push_back(channel + block);
        setBottom(plan, channel + block, offset + size);
      }
    }
  }
}

} // namespace

HbmDevice hbmDeviceOf(const passes::DeviceConstraints &device) {
  HbmDevice d;
  d.pseudoChannels = device.hbmPseudoChannels;
  d.pseudoChannelBytes = device.hbmPseudoChannelBytes;
  d.alignmentBytes = device.hbmAlignmentBytes;
  d.totalPeakGBps = device.hbmTotalPeakGBps;
  d.miniSwitchChannels = device.hbmMiniSwitchChannels;
  return d;
}

HbmDevice loadHbmDevice(const std::string &constraintsPath) {
  return hbmDeviceOf(passes::loadHbmConstraints(constraintsPath));
}

int64_t HbmImagePlan::totalBytes() const {
  int64_t total = std::accumulate(channelBytes.begin(), channelBytes.end(), int64_t(0));
  for (const HbmChannelRoom &r : channelRoom)
    if (r.top < device.pseudoChannelBytes) // a buffer at the top: the room below it is free
      total -= r.top - r.bottom;
  return total;
}

std::string engineStreamBufferName(int64_t channel) {
  return "engine/w" + std::to_string(channel);
}

namespace {

/// The engine stream buffers of `engine`, one per pseudo-channel (hbm_plan.h).
std::vector<HbmBuffer> engineStreamBuffers(const ir::DecodeProgram &program,
                                           const QuantizedModel &model,
                                           const llm::EngineUse &engine) {
  std::vector<HbmBuffer> buffers;
  const QuantizedModel *m = &model;
  const llm::EngineUse *e = &engine;
  const std::string block = program.stages.at(1).name, epilogue = program.stages.at(2).name;
  for (int64_t c = 0; c < engine.shape.channels; ++c) {
    HbmBuffer b;
    b.name = engineStreamBufferName(c);
    b.kind = "engine_stream";
    b.stage = "engine";
    b.op = "w" + std::to_string(c);
    b.layers = 1;
    b.layerBytes = engine.channelWordsPerStep() * (numerics::kGemvWordBits / 8);
    b.pinnedChannel = c;
    b.format = "st_gemv_engine channel stream (docs/gemv-engine.md): " +
               std::to_string(engine.calls.size()) + " calls (block x " +
               std::to_string(engine.layers) + ", epilogue), KLanes " +
               std::to_string(engine.shape.kLanes) + ", " + std::to_string(engine.shape.channels) +
               " channels";
    b.contents = [m, e, c, block, epilogue](int64_t) {
      std::vector<uint8_t> bytes;
      bytes.reserve(static_cast<size_t>(e->channelWordsPerStep() * (numerics::kGemvWordBits / 8)));
      auto append = [&](size_t index, const std::string &stage, int64_t layer) {
        const llm::EngineCall &call = e->calls[index];
        numerics::GemvInvocation inv;
        inv.xPort = call.xPort;
        inv.nextX = e->nextXOf(index, layer);
        inv.reuseX = call.reuseX;
        inv.yPort = call.yPort;
        // Padding rows that reach y (an odd vocabulary's LM head) saturate to the most
        // negative code, so that they never win the argmax.
        inv.deliverPaddedRows = call.nDeliver > call.nOut;
        inv.padding = inv.deliverPaddedRows ? numerics::GemvPaddingRecord::Saturate
                                            : numerics::GemvPaddingRecord::Zero;
        numerics::appendGemvChannelBytes(m->get<numerics::QuantizedLinear>(stage, layer, call.op),
                                         e->shape, inv, c, bytes);
      };
      for (int64_t layer = 0; layer < e->layers; ++layer)
        for (size_t i = 0; i < e->calls.size(); ++i)
          if (e->calls[i].stage == 1)
            append(i, block, layer);
      for (size_t i = 0; i < e->calls.size(); ++i)
        if (e->calls[i].stage == 2)
          append(i, epilogue, 0);
      return bytes;
    };
    buffers.push_back(std::move(b));
  }
  return buffers;
}

/// The attention options that decide a KV cache's striping (llm/kv_striping.h).
struct KvCacheOptions {
  int64_t kvStep = 0, headSplit = 1, readStep = 0;
  bool blockMajor = false;
  int64_t positionSlices = 0;
};

/// A per-op design's linear: its st_linear weight stream, every layer.
HbmBuffer linearBuffer(HbmBuffer b, const numerics::QuantizedLinear &l, const QuantizedModel *m,
                       const std::map<std::string, int64_t> &stageLanes) {
  b.kind = "linear_weights";
  auto lanes = stageLanes.find(b.stage);
  b.linearParams = lanes == stageLanes.end() ? model::linearKernelParamsFor(l)
                                             : model::linearKernelParamsForLanes(l, lanes->second);
  const model::LinearParams p = b.linearParams;
  b.layerBytes = (p.nOut / p.rows) * model::linearBlockWords(p) * p.wordBits / 8;
  b.format = "st_linear weight stream (docs/weight-stream.md): W" + std::to_string(p.weightBits) +
             " " + (p.groupSize ? "g" + std::to_string(p.groupSize) : std::string("per-channel")) +
             ", Rows " + std::to_string(p.rows) + ", KLanes " + std::to_string(p.kLanes) +
             ", WordBits " + std::to_string(p.wordBits);
  const std::string stageName = b.stage, opName = b.op;
  b.contents = [m, stageName, opName, p](int64_t layer) {
    return model::linearWeightStreamBytes(
        m->get<numerics::QuantizedLinear>(stageName, layer, opName), p);
  };
  b.name = b.stage + "/" + b.op + ".weights";
  return b;
}

/// An embedding table: s8 rows, zero padded to whole words.
HbmBuffer embeddingBuffer(HbmBuffer b, const frontend::QuantizedEmbeddingOp &e,
                          const QuantizedModel *m) {
  b.kind = "embedding_table";
  b.layerBytes = static_cast<int64_t>(e.table.rows * numerics::embeddingRowBytes(e.table.dim));
  b.lookupRowBytes = static_cast<int64_t>(numerics::embeddingRowBytes(e.table.dim));
  b.format = "s8 codes, row r at r * " + std::to_string(numerics::embeddingRowBytes(e.table.dim)) +
             " bytes, zero padded (numerics::embeddingImage)";
  const std::string stageName = b.stage, opName = b.op;
  b.contents = [m, stageName, opName](int64_t layer) {
    return numerics::embeddingImage(
        m->get<frontend::QuantizedEmbeddingOp>(stageName, layer, opName).table);
  };
  b.name = b.stage + "/" + b.op + ".table";
  return b;
}

/// A norm's parameters: gamma (and beta) per element, every layer.
HbmBuffer normBuffer(HbmBuffer b, const frontend::QuantizedNormOp &n, const QuantizedModel *m) {
  b.kind = "norm_params";
  const int64_t slot = normSlotBits(n.norm);
  b.layerBytes = roundUp(static_cast<int64_t>(n.norm.size) * slot / 8,
                         static_cast<int64_t>(numerics::kHbmWordBytes));
  b.format = std::to_string(n.norm.size) + " elements of " + std::to_string(slot) +
             " bits: gamma s16 in bits [15:0]" +
             (n.norm.kind == numerics::NormKind::LayerNorm
                  ? ", beta s" + std::to_string(n.norm.outputBits + 8) + " above"
                  : std::string()) +
             "; replayed for each of " + std::to_string(n.groups) + " group(s)";
  const int64_t layerBytes = b.layerBytes;
  const std::string stageName = b.stage, opName = b.op;
  b.contents = [m, stageName, opName, layerBytes](int64_t layer) {
    return normParamBytes(m->get<frontend::QuantizedNormOp>(stageName, layer, opName).norm,
                          layerBytes);
  };
  b.name = b.stage + "/" + b.op + ".params";
  return b;
}

/// An attention's K and V caches: one buffer per slice of each (llm/kv_striping.h).
void addKvCacheBuffers(HbmImagePlan &plan, const HbmBuffer &b,
                       const frontend::QuantizedAttentionOp &a, const KvCacheOptions &kv) {
  const HbmDevice &device = plan.device;
  const int64_t maxContext = plan.maxContext;
  const llm::KvStriping striping = llm::kvCacheReadStriping(
      static_cast<int64_t>(a.shape.numKvHeads), static_cast<int64_t>(a.shape.headDim), kv.kvStep,
      kv.headSplit, kv.readStep, kv.blockMajor, kv.positionSlices);
  const int64_t rowBytes = striping.rowBytes;
  // Rows per slice: positions striped over S slices leave maxContext / S to each.
  const int64_t sliceRows = maxContext / striping.positionSlices;
  if (sliceRows * striping.positionSlices != maxContext)
    throw Error("hbm image", "KV cache of " + b.stage + "/" + b.op,
                "a max context that is a multiple of the " +
                    std::to_string(striping.positionSlices) +
                    " slices its positions are striped over, got " + std::to_string(maxContext));
  const std::string row = striping.positionSlices > 1
                              ? "p div " + std::to_string(striping.positionSlices) +
                                    " (positions p = " + "slice mod " +
                                    std::to_string(striping.positionSlices) + ")"
                              : "p";
  const int64_t blockChannels =
      llm::kvBlockChannels(striping.slices, striping.blocks, device.pseudoChannels);
  const std::string positions =
      blockChannels > 1
          ? "block-major: kv-head block b on the slice's pseudo-channel + b, position p at " + row +
                " * " + std::to_string(striping.blockRowBytes()) + " bytes"
      : striping.blockMajor()
          ? "block-major: kv-head block b, position p at (b * " + std::to_string(sliceRows) +
                " + " + row + ") * " + std::to_string(striping.blockRowBytes()) + " bytes"
          : "position p at p * " + std::to_string(rowBytes) + " bytes";
  for (const char *which : {"k_cache", "v_cache"})
    for (int64_t slice = 0; slice < striping.slices; ++slice) {
      HbmBuffer c = b;
      c.kind = which;
      // With the blocks on channels of their own, a layer is one block's rows on each.
      c.layerBytes = sliceRows * rowBytes / blockChannels;
      c.format = striping.positionSlices > 1
                     ? "s8 codes, slice " + std::to_string(slice) + " of " +
                           std::to_string(striping.slices) + ": the positions p with p mod " +
                           std::to_string(striping.positionSlices) + " = " + std::to_string(slice) +
                           ", " + positions + ", one 64-byte word per kv head and position, " +
                           std::to_string(sliceRows) + " rows, zero at start"
                 : striping.striped()
                     ? "s8 codes, slice " + std::to_string(slice) + " of " +
                           std::to_string(striping.slices) + ": " + positions +
                           ", one 64-byte word per token " + "of " +
                           std::to_string(striping.cacheLanes) + " codes holding " + "its codes " +
                           std::to_string(slice * striping.partCodes) + " .. +" +
                           std::to_string(striping.partCodes) + ", " + std::to_string(maxContext) +
                           " positions, zero at start"
                     : "s8 codes, position p at p * " + std::to_string(rowBytes) +
                           " bytes (kv head, then dim), " + std::to_string(maxContext) +
                           " positions, zero at start";
      c.name = llm::kvSliceBufferName(b.stage + "/" + b.op + "." + which, striping.slices, slice);
      c.rowBytes = rowBytes;
      c.kvSlice = slice;
      c.kvSlices = striping.slices;
      c.kvPartCodes = striping.partCodes;
      c.kvBlocks = striping.blocks;
      c.kvBlockChannels = blockChannels;
      if (blockChannels > 1)
        c.kvBlockStrideBytes = device.pseudoChannelBytes;
      c.kvPositionSlices = striping.positionSlices;
      plan.buffers.push_back(std::move(c));
    }
}

/// Strides and placement: pinned buffers first, then the rest from largest to smallest; the
/// striped caches' slices on their spread channels before the first unpinned buffer.
void placeBuffers(HbmImagePlan &plan) {
  plan.channelBytes.assign(static_cast<size_t>(plan.device.pseudoChannels), 0);
  plan.channelRoom.clear();
  roomOf(plan);
  for (HbmBuffer &b : plan.buffers)
    b.layerStride = roundUp(b.layerBytes, plan.device.alignmentBytes);
  std::vector<size_t> bySize(plan.buffers.size());
  std::iota(bySize.begin(), bySize.end(), 0);
  std::stable_sort(bySize.begin(), bySize.end(), [&](size_t x, size_t y) {
    const bool px = plan.buffers[x].pinnedChannel >= 0, py = plan.buffers[y].pinnedChannel >= 0;
    if (px != py)
      return px;
    return plan.buffers[x].bytes() > plan.buffers[y].bytes();
  });
  bool slicesPlaced = false;
  for (size_t index : bySize) {
    if (plan.buffers[index].kvSlices > 1)
      continue;
    if (!slicesPlaced && plan.buffers[index].pinnedChannel < 0) {
      placeKvSlices(plan);
      slicesPlaced = true;
    }
    placeBuffer(plan, plan.buffers[index]);
  }
  if (!slicesPlaced)
    placeKvSlices(plan);
}

} // namespace

HbmImagePlan planHbmImage(const ir::DecodeProgram &program, const QuantizedModel &model,
                          const HbmDevice &device, int64_t maxContext,
                          const std::map<std::string, int64_t> &stageLanes,
                          const llm::EngineUse *engine, int64_t attentionKvStep,
                          int64_t attentionHeadSplit, int64_t attentionReadStep,
                          bool attentionBlockMajor, int64_t attentionPositionSlices) {
  if (maxContext < 1 || maxContext > program.maxPositions)
    throw Error("hbm image", "max context",
                "1 .. " + std::to_string(program.maxPositions) + " positions, got " +
                    std::to_string(maxContext));
  HbmImagePlan plan;
  plan.device = device;
  plan.architecture = model.architecture;
  plan.precision = frontend::precisionName(model.precision);
  plan.maxContext = maxContext;
  plan.ropeTables = ropeTablesOf(program, model);
  if (engine)
    plan.buffers = engineStreamBuffers(program, model, *engine);
  const KvCacheOptions kv{attentionKvStep, attentionHeadSplit, attentionReadStep,
                          attentionBlockMajor, attentionPositionSlices};
  for (const ir::DecodeStage &stage : program.stages) {
    for (ir::OpId o : stage.graph.topologicalOrder()) {
      const ir::Op &op = stage.graph.op(o);
      const QuantizedOp &first = model.op(stage.name, 0, op.name);
      HbmBuffer b;
      b.stage = stage.name;
      b.op = op.name;
      b.layers = stage.repeat;
      if (auto *l = std::get_if<numerics::QuantizedLinear>(&first.descriptor)) {
        if (!engine) // else in the engine streams
          plan.buffers.push_back(linearBuffer(std::move(b), *l, &model, stageLanes));
      } else if (auto *e = std::get_if<frontend::QuantizedEmbeddingOp>(&first.descriptor)) {
        plan.buffers.push_back(embeddingBuffer(std::move(b), *e, &model));
      } else if (auto *n = std::get_if<frontend::QuantizedNormOp>(&first.descriptor)) {
        plan.buffers.push_back(normBuffer(std::move(b), *n, &model));
      } else if (auto *a = std::get_if<frontend::QuantizedAttentionOp>(&first.descriptor)) {
        addKvCacheBuffers(plan, b, *a, kv);
      }
    }
  }
  placeBuffers(plan);
  return plan;
}

int64_t kvSliceStride(const HbmImagePlan &plan, const std::string &sliceZero) {
  const HbmBuffer &zero = hbmBufferNamed(plan, sliceZero);
  if (zero.kvSlices < 2)
    return 0;
  const std::string stem = sliceZero.substr(0, sliceZero.size() - 1);
  return hbmBufferNamed(plan, stem + "1").address - zero.address;
}

HbmBuffer addRunBuffer(HbmImagePlan &plan, HbmBuffer buffer) {
  if (buffer.layerBytes < 1)
    throw Error("hbm image", "run buffer '" + buffer.name + "'",
                "at least 1 byte, got " + std::to_string(buffer.layerBytes));
  for (const HbmBuffer &b : plan.buffers)
    if (b.name == buffer.name)
      throw Error("hbm image", "run buffer '" + buffer.name + "'",
                  "a name no other buffer of the plan has");
  buffer.layers = 1;
  buffer.layerStride = roundUp(buffer.layerBytes, plan.device.alignmentBytes);
  buffer.contents = nullptr;
  buffer.channels.clear();
  plan.buffers.push_back(std::move(buffer));
  try {
    placeBuffer(plan, plan.buffers.back());
  } catch (...) {
    plan.buffers.pop_back();
    throw;
  }
  return plan.buffers.back();
}

std::vector<RopeOpTables> ropeTablesOf(const ir::DecodeProgram &program,
                                       const QuantizedModel &model) {
  std::vector<RopeOpTables> result;
  for (const ir::DecodeStage &stage : program.stages)
    for (ir::OpId o : stage.graph.topologicalOrder()) {
      const ir::Op &op = stage.graph.op(o);
      if (!std::holds_alternative<ir::RopeAttrs>(op.llm))
        continue;
      RopeOpTables r{stage.name, op.name, {}, {}, {}};
      for (int64_t run = 0; run < stage.repeat; ++run) {
        const auto &d = model.get<frontend::QuantizedRopeOp>(stage.name, run, op.name);
        size_t index = 0;
        while (index < r.tables.size() && r.tables[index].phaseIncrement != d.table.phaseIncrement)
          ++index;
        if (index == r.tables.size()) {
          r.tables.push_back(d.table);
          r.bases.push_back(d.base);
        }
        r.runTable.push_back(static_cast<int64_t>(index));
      }
      result.push_back(std::move(r));
    }
  return result;
}

const HbmBuffer &hbmBufferNamed(const HbmImagePlan &plan, const std::string &name) {
  for (const HbmBuffer &b : plan.buffers)
    if (b.name == name)
      return b;
  throw Error("hbm image", "HBM buffer '" + name + "'", "a buffer of the image plan");
}

} // namespace st::plan
