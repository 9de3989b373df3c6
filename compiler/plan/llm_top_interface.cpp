// The LLM top's interface (see llm_top_interface.h).
#include "plan/llm_top_interface.h"

#include <algorithm>

#include "llm/kv_striping.h"
#include "llm/stage_lowering.h"
#include "support/error.h"

namespace st::plan {

using llm::AcceleratorRole;

namespace {

/// Bytes of one AXI word (the 512-bit HBM port).
constexpr int64_t kWordBytes = 64;

/// The type of one row of a stream whose outermost loop walks rows (a KV-cache read): that loop
/// dropped, or cut to one trip when it is the only loop (a row of one token).
ir::ITensorType rowTypeOf(const ir::ITensorType &stream, bool dropOuterLoop) {
  ir::ITensorType t = stream;
  if (dropOuterLoop && t.loops.size() == 1) {
    t.loops[0].tripCount = 1;
  } else if (dropOuterLoop) {
    t.loops.erase(t.loops.begin());
    for (auto &m : t.iterMap)
      if (m) {
        if (*m == 0)
          m.reset();
        else
          --*m;
      }
  }
  t.verify();
  return t;
}

/// One slice's read of a striped KV row (llm/kv_striping.h): `chunks` tokens of `partCodes`
/// codes, each in a bus word of its own; block-major (`blocks` > 1), the chunks of each block
/// `blockStride` bytes apart (the emitter puts the run-time rows loop inside the block loop).
ir::HbmTensorLayout kvSliceReadLayout(int64_t chunks, int64_t partCodes, int64_t blocks,
                                      int64_t blockStride) {
  ir::ITensorType t;
  t.elementShape = {partCodes};
  t.elementType = "i8";
  t.loops = {{chunks, partCodes}};
  t.iterMap = {0u};
  t.verify();
  ir::HbmTensorLayout L;
  L.stream = t;
  L.tokenBits = partCodes * 8;
  L.paddedTokenBits = 8;
  while (L.paddedTokenBits < L.tokenBits)
    L.paddedTokenBits *= 2;
  L.tokensPerRun = 1;
  L.wordsPerRun = 1;
  L.runs = chunks;
  L.loops = {{chunks, kWordBytes}};
  // Block-major: the blocks, then (inside the emitter's rows loop) a block's chunks, a loop of one
  // trip left out (a DMA loop costs its counter and adders).
  if (blocks > 1 && chunks == blocks)
    L.loops = {{blocks, blockStride}};
  else if (blocks > 1)
    L.loops = {{blocks, blockStride}, {chunks / blocks, kWordBytes}};
  return L;
}

/// The append of one striped KV row from stream `row` (the row's codes in order, a whole number
/// of tokens per part): token part j of chunk c goes to word c of slice j, slices `sliceStride`
/// bytes apart; block-major (`blocks` > 1), chunk c of block b to word c of block b's region,
/// `blockStride` bytes after block b - 1's.
/// The layout of an append from stream `row` whose every run is one bus word of `partCodes` codes
/// (the loops are the caller's): its tokens must divide a part.
ir::HbmTensorLayout wordPerPartLayout(const ir::ITensorType &row, int64_t partCodes,
                                      const std::string &where) {
  ir::HbmTensorLayout L = ir::hbmLayoutOf(row, kWordBytes * 8);
  const int64_t codesPerToken = row.elementsPerToken();
  if (partCodes % codesPerToken != 0 || L.paddedTokenBits != L.tokenBits)
    throw Error("emitter", where,
                "tokens of a power-of-two number of codes dividing a slice's " +
                    std::to_string(partCodes) + " codes, got " + std::to_string(codesPerToken));
  L.tokensPerRun = partCodes / codesPerToken;
  L.wordsPerRun = 1;
  return L;
}

ir::HbmTensorLayout kvSliceAppendLayout(const ir::ITensorType &row, int64_t chunks, int64_t slices,
                                        int64_t partCodes, int64_t sliceStride, int64_t blocks,
                                        int64_t blockStride, const std::string &where) {
  ir::HbmTensorLayout L = wordPerPartLayout(row, partCodes, where);
  L.runs = chunks * slices;
  L.loops = {{chunks, kWordBytes}, {slices, sliceStride}, {1, kWordBytes}};
  if (blocks > 1 && chunks == blocks)
    L.loops[0] = ir::DmaLoop{blocks, blockStride}; // a block's one chunk: no loop of one trip
  else if (blocks > 1)
    L.loops = {{blocks, blockStride},
               {chunks / blocks, kWordBytes},
               {slices, sliceStride},
               {1, kWordBytes}};
  return L;
}

/// The append of one row of a position-striped cache from stream `row`: kv head b's bus word to
/// block b's region of one slice (the emitter picks the slice and the row from the step),
/// `blockStride` bytes after block b - 1's.
ir::HbmTensorLayout kvPositionAppendLayout(const ir::ITensorType &row, int64_t blocks,
                                           int64_t partCodes, int64_t blockStride,
                                           const std::string &where) {
  ir::HbmTensorLayout L = wordPerPartLayout(row, partCodes, where);
  L.runs = blocks;
  L.loops = {{blocks, blockStride}};
  return L;
}

} // namespace

std::vector<ir::HbmTensorLayout> stripedKvPortLayouts(const ir::DataflowNode &node,
                                                      int64_t sliceStride, int64_t blockStride) {
  const std::string where = "KV DMA '" + node.name + "'";
  const auto slices = node.attributes.find(ir::kAttrKvSlices);
  const auto partCodes = node.attributes.find(llm::kAttrKvPartCodes);
  if (slices == node.attributes.end() || slices->second < 2 || partCodes == node.attributes.end() ||
      partCodes->second < 1)
    throw Error("emitter", where, "the kv_slices (>= 2) and kv_part_codes of a striped cache");
  const auto blocksAttribute = node.attributes.find(llm::kAttrKvBlocks);
  const int64_t blocks =
      blocksAttribute == node.attributes.end() ? 1 : std::max<int64_t>(1, blocksAttribute->second);
  const int64_t cacheCodes = slices->second * partCodes->second; // st_attention's CacheLanes
  if (node.kind == ir::NodeKind::ReadDma) {
    const ir::ITensorType &stream = node.outputs.at(0).type;
    if (stream.elementsPerToken() != cacheCodes)
      throw Error("emitter", where,
                  "cache tokens of " + std::to_string(cacheCodes) + " codes, got " +
                      std::to_string(stream.elementsPerToken()));
    const int64_t chunks = rowTypeOf(stream, true).numTokens();
    if (chunks % blocks != 0)
      throw Error("emitter", where,
                  "rows of whole kv-head blocks: " + std::to_string(chunks) + " tokens in " +
                      std::to_string(blocks) + " blocks");
    return std::vector<ir::HbmTensorLayout>(
        static_cast<size_t>(slices->second),
        kvSliceReadLayout(chunks, partCodes->second, blocks, blockStride));
  }
  const ir::ITensorType &row = node.inputs.at(0).type;
  const int64_t rowCodes = row.numTokens() * row.elementsPerToken();
  if (node.attributes.count(llm::kAttrKvPositionSlices)) {
    if (rowCodes != blocks * partCodes->second)
      throw Error("emitter", where,
                  "a row of " + std::to_string(blocks) + " kv heads of " +
                      std::to_string(partCodes->second) + " codes, got " +
                      std::to_string(rowCodes) + " codes");
    return {kvPositionAppendLayout(row, blocks, partCodes->second, blockStride, where)};
  }
  if (rowCodes % cacheCodes != 0)
    throw Error("emitter", where,
                "a row of whole cache tokens of " + std::to_string(cacheCodes) + " codes, got " +
                    std::to_string(rowCodes) + " codes");
  if (rowCodes / cacheCodes % blocks != 0)
    throw Error("emitter", where,
                "rows of whole kv-head blocks: " + std::to_string(rowCodes / cacheCodes) +
                    " tokens in " + std::to_string(blocks) + " blocks");
  return {kvSliceAppendLayout(row, rowCodes / cacheCodes, slices->second, partCodes->second,
                              sliceStride, blocks, blockStride, where)};
}

bool isLlmDma(AcceleratorRole r) {
  switch (r) {
  case AcceleratorRole::WeightStream:
  case AcceleratorRole::KvCacheRead:
  case AcceleratorRole::KvAppend:
  case AcceleratorRole::Tap:
  case AcceleratorRole::PromptRead:
  case AcceleratorRole::TokenWrite:
  case AcceleratorRole::EngineStream:
    return true;
  default:
    return false;
  }
}

bool sidebandsFollowStepOrLayer(const LlmKernelConfig &cfg) {
  if (cfg.sidebandsByRun.empty())
    return false;
  const std::vector<SidebandValue> &first = cfg.sidebandsByRun[0];
  for (size_t i = 0; i < first.size(); ++i) {
    if (first[i].source == SidebandSource::Position ||
        first[i].source == SidebandSource::CacheLength)
      return true;
    if (first[i].source == SidebandSource::Constant)
      for (const std::vector<SidebandValue> &run : cfg.sidebandsByRun)
        if (i < run.size() && run[i].value != first[i].value)
          return true;
  }
  return false;
}

namespace {

/// The AXI masters of a striped KV cache's DMA node: a read streams each slice through a master
/// of its own (ports in slice order); the append writes all slices through one.
void addStripedKvPorts(LlmTopInterface &out, ir::NodeId n, const ir::DataflowNode &node,
                       AcceleratorRole role, const std::string &cache, int64_t slices,
                       const std::function<BufferPlacement(const std::string &)> &bufferInfo,
                       unsigned &offset) {
  const std::string where = "KV DMA '" + node.name + "'";
  const bool isRead = role == AcceleratorRole::KvCacheRead;
  if (!isRead && role != AcceleratorRole::KvAppend)
    throw Error("emitter", where, "a KV read or append DMA for its kv_slices");
  for (int64_t j = 0; j < (isRead ? slices : 1); ++j) {
    LlmDmaPort port;
    port.node = n;
    port.role = role;
    port.buffer = llm::kvSliceBufferName(cache, slices, j);
    port.kvCache = cache;
    port.kvSlices = slices;
    port.kvSlice = j;
    const BufferPlacement placement = bufferInfo(port.buffer);
    if (placement.kvSlices != slices)
      throw Error("emitter", where,
                  std::to_string(slices) + " slices in buffer '" + port.buffer + "', got " +
                      std::to_string(placement.kvSlices));
    port.layerStride = placement.layerStride;
    const auto blocks = node.attributes.find(llm::kAttrKvBlocks);
    if ((blocks == node.attributes.end() ? 1 : blocks->second) != placement.kvBlocks)
      throw Error("emitter", where,
                  std::to_string(placement.kvBlocks) + " kv-head blocks in buffer '" + port.buffer +
                      "'");
    port.rowLayout =
        stripedKvPortLayouts(node, placement.kvSliceStride, placement.kvBlockStride).at(0);
    const auto positionSlices = node.attributes.find(llm::kAttrKvPositionSlices);
    port.kvPositionSlices = positionSlices == node.attributes.end() ? 1 : positionSlices->second;
    if (port.kvPositionSlices != placement.kvPositionSlices)
      throw Error("emitter", where,
                  "positions striped over " + std::to_string(placement.kvPositionSlices) +
                      " slices in buffer '" + port.buffer + "'");
    port.kvSliceStride = placement.kvSliceStride;
    // An append writes every slice's part of a row, or (positions striped) one slice's row.
    const int64_t appendSlices = port.kvPositionSlices > 1 ? 1 : slices;
    if (placement.kvPartCodes != node.attributes.at(llm::kAttrKvPartCodes) ||
        port.rowLayout.runs / (isRead ? 1 : appendSlices) * kWordBytes != placement.rowBytes)
      throw Error("emitter", where,
                  "slices of " + std::to_string(placement.kvPartCodes) + "-code parts in rows of " +
                      std::to_string(placement.rowBytes) + " bytes (buffer '" + port.buffer + "')");
    port.kvBlocks = placement.kvBlocks;
    port.rowBytes = placement.rowBytes / placement.kvBlocks; // from one position to the next
    TopInterface &top = out.top;
    const unsigned index = static_cast<unsigned>(top.dmas.size());
    TopInterface::DmaPort dma{n,
                              svIdentifier(node.name) + (isRead ? "_s" + std::to_string(j) : ""),
                              isRead,
                              offset,
                              port.rowLayout,
                              placement.channel};
    dma.hbmChannelLast =
        isRead ? std::max(placement.channel, placement.lastChannel) : placement.kvLastChannel;
    top.dmas.push_back(dma);
    top.args.push_back({top.dmas.back().name, true, offset, static_cast<int>(index)});
    offset += 12;
    out.dmas.push_back(std::move(port));
  }
}

} // namespace

LlmTopInterface
llmTopInterfaceOf(const llm::AcceleratorGraph &g, const std::string &designName,
                  const std::function<BufferPlacement(const std::string &)> &bufferInfo,
                  const std::function<std::string(ir::NodeId)> &bufferOf) {
  LlmTopInterface out;
  TopInterface &top = out.top;
  top.module = svIdentifier(designName) + "_top";
  unsigned offset = TopInterface::kFirstArgOffset;
  for (const char *scalar :
       {LlmTopInterface::kPromptArg, LlmTopInterface::kStepsArg, LlmTopInterface::kFirstStepArg}) {
    top.args.push_back({scalar, false, offset, -1});
    offset += 8;
  }
  const ir::DataflowGraph &df = g.dataflow;
  for (ir::NodeId n : df.nodes()) {
    const ir::DataflowNode &node = df.node(n);
    const AcceleratorRole role = g.nodes.at(n).role;
    // A kernel with its own AXI master (the embedding gather) gets a port like a read DMA.
    const bool embedding = kernelPorts(node).ownAxiMaster;
    if (!isLlmDma(role) && !embedding)
      continue;
    const auto slicesAttribute = node.attributes.find(ir::kAttrKvSlices);
    if (slicesAttribute != node.attributes.end() && slicesAttribute->second > 1) {
      addStripedKvPorts(out, n, node, role, bufferOf(n), slicesAttribute->second, bufferInfo,
                        offset);
      continue;
    }
    LlmDmaPort port;
    port.node = n;
    port.role = role;
    port.buffer = bufferOf(n);
    const BufferPlacement placement = bufferInfo(port.buffer);
    port.layerStride = placement.layerStride;
    port.ringSteps = placement.ringSteps;
    const bool isRead = node.kind == ir::NodeKind::ReadDma || embedding;
    if (!embedding) {
      const ir::ITensorType &type = isRead ? node.outputs[0].type : node.inputs[0].type;
      // KV reads, the prompt and the tokens stream a run-time number of rows.
      const bool rows = role == AcceleratorRole::KvCacheRead ||
                        role == AcceleratorRole::PromptRead || role == AcceleratorRole::TokenWrite;
      port.rowLayout = ir::hbmLayoutOf(
          rowTypeOf(type, rows && role == AcceleratorRole::KvCacheRead), kWordBytes * 8);
      port.rowBytes = port.rowLayout.bytes();
      const bool kv = role == AcceleratorRole::KvCacheRead || role == AcceleratorRole::KvAppend;
      if (kv && placement.rowBytes != port.rowBytes)
        throw Error("emitter", "KV DMA '" + node.name + "'",
                    "rows of " + std::to_string(placement.rowBytes) + " bytes (buffer '" +
                        port.buffer + "'), got " + std::to_string(port.rowBytes));
    }
    const unsigned index = static_cast<unsigned>(top.dmas.size());
    top.dmas.push_back(
        {n, svIdentifier(node.name), isRead, offset, port.rowLayout, placement.channel});
    // A buffer spanning channels (plan::planHbmImage): the master's range HBM[first:last].
    top.dmas.back().hbmChannelLast = std::max(placement.channel, placement.lastChannel);
    top.args.push_back({top.dmas.back().name, true, offset, static_cast<int>(index)});
    offset += 12;
    out.dmas.push_back(std::move(port));
  }
  if (top.args.size() > 64)
    throw Error("emitter", "design '" + designName + "'",
                "at most 64 kernel arguments (st_axi_lite_ctrl), got " +
                    std::to_string(top.args.size()));
  while ((1u << top.controlAddrBits) < offset)
    ++top.controlAddrBits;
  return out;
}

} // namespace st::plan
