// KV striping (see kv_striping.h).
#include "llm/kv_striping.h"

#include <algorithm>

#include "support/error.h"
#include "support/int_math.h"

namespace st::llm {

namespace {

constexpr int64_t kWordBytes = 64;

/// The largest divisor of the head dimension that fits one bus word.
int64_t headPartCodes(int64_t headDim) {
  int64_t part = 1;
  for (int64_t d = 1; d <= std::min(headDim, kWordBytes); ++d)
    if (headDim % d == 0)
      part = d;
  return part;
}

} // namespace

KvStriping kvStripingOf(int64_t numKvHeads, int64_t headDim, int64_t kvStep, int64_t headSplit) {
  if (numKvHeads < 1 || headDim < 1)
    throw Error("kv striping",
                "cache of " + std::to_string(numKvHeads) + " x " + std::to_string(headDim),
                "at least one kv head of at least one code");
  KvStriping s;
  s.kvStep = kvStep;
  s.headSplit = headSplit;
  const int64_t width = numKvHeads * headDim;
  if (headSplit != 1 && kvStep != 1)
    throw Error("kv striping", "a kv head in " + std::to_string(headSplit) + " cache tokens",
                "one kv head per token (kv step 1) to split a head, got kv step " +
                    std::to_string(kvStep));
  if (kvStep == 0) {
    s.cacheLanes = 1;
    while (s.cacheLanes * 2 <= kWordBytes && headDim % (s.cacheLanes * 2) == 0)
      s.cacheLanes *= 2;
    s.partCodes = s.cacheLanes;
    s.chunks = width / s.cacheLanes;
    s.rowBytes = roundUp(width, kWordBytes);
    return s;
  }
  if (kvStep < 0 || numKvHeads % kvStep != 0)
    throw Error("kv striping", "kv heads per cache token " + std::to_string(kvStep),
                "0 or a divisor of the " + std::to_string(numKvHeads) + " kv heads, got " +
                    std::to_string(kvStep));
  s.partCodes = headPartCodes(headDim);
  const int64_t headParts = headDim / s.partCodes;
  if (headSplit < 1 || headParts % headSplit != 0 || (headSplit > 1 && headParts / headSplit < 2))
    throw Error("kv striping",
                "a kv head of " + std::to_string(headDim) + " codes in " +
                    std::to_string(headSplit) + " cache tokens",
                "1, or a divisor of its " + std::to_string(headParts) +
                    " bus-word parts that leaves at least two per token, got " +
                    std::to_string(headSplit));
  s.cacheLanes = kvStep * headDim / headSplit;
  s.slices = s.cacheLanes / s.partCodes;
  s.chunks = numKvHeads / kvStep * headSplit;
  s.rowBytes = s.striped() ? s.chunks * kWordBytes : roundUp(width, kWordBytes);
  return s;
}

bool kvBlockMajorApplies(int64_t numKvHeads, int64_t headDim, int64_t kvStep, int64_t headSplit,
                         int64_t readStep) {
  const KvStriping kernel = kvStripingOf(numKvHeads, headDim, kvStep, headSplit);
  const bool wider =
      readStep != 0 &&
      kvReadStripingOf(numKvHeads, headDim, kvStep, headSplit, readStep).cacheLanes !=
          kernel.cacheLanes;
  return kernel.striped() && kvStep >= 1 && numKvHeads / kvStep >= 2 && !wider;
}

bool attentionOnePassApplies(int64_t headDim, int64_t cacheLanes, bool blockMajor) {
  return blockMajor && cacheLanes >= headDim && headDim >= 4;
}

KvStriping kvReadStripingOf(int64_t numKvHeads, int64_t headDim, int64_t kvStep, int64_t headSplit,
                            int64_t readStep, bool blockMajor) {
  KvStriping kernel = kvStripingOf(numKvHeads, headDim, kvStep, headSplit);
  if (blockMajor) {
    if (!kvBlockMajorApplies(numKvHeads, headDim, kvStep, headSplit, readStep))
      throw Error("kv striping",
                  "the block-major cache of " + std::to_string(numKvHeads) + " kv heads at " +
                      std::to_string(kvStep) + " per token",
                  "a cache striped over at least two slices, at least two kv-head blocks and "
                  "reads of attention's own token for --attention-walk block, got " +
                      std::to_string(kernel.slices) + " slice(s), " +
                      std::to_string(kvStep > 0 ? numKvHeads / kvStep : 0) + " block(s)" +
                      (readStep > 0 && readStep != kvStep
                           ? ", reads of " + std::to_string(readStep) + " kv heads"
                           : ""));
    kernel.blocks = numKvHeads / kvStep;
    return kernel;
  }
  if (readStep == 0)
    return kernel;
  const KvStriping read = kvStripingOf(numKvHeads, headDim, readStep);
  if (read.cacheLanes % kernel.cacheLanes != 0)
    throw Error("kv striping", "cache reads of " + std::to_string(readStep) + " kv heads per token",
                "a whole number of attention's " + std::to_string(kernel.cacheLanes) +
                    "-code tokens, got " + std::to_string(read.cacheLanes) + " codes");
  return read;
}

KvStriping kvPositionStripingOf(int64_t numKvHeads, int64_t headDim, int64_t positionSlices) {
  if (numKvHeads < 2 || headDim < 1 || headDim > kWordBytes)
    throw Error("kv striping",
                "position-striped cache of " + std::to_string(numKvHeads) + " x " +
                    std::to_string(headDim),
                "at least two kv heads (blocks) of at most " + std::to_string(kWordBytes) +
                    " codes (one bus word) to stripe positions");
  if (positionSlices < 2 || positionSlices > 16 || (positionSlices & (positionSlices - 1)) != 0)
    throw Error("kv striping",
                "positions striped over " + std::to_string(positionSlices) + " slices",
                "a power of two from 2 to 16");
  KvStriping s;
  s.kvStep = 1;
  s.headSplit = 1;
  s.partCodes = headDim;
  s.slices = positionSlices;
  s.positionSlices = positionSlices;
  s.cacheLanes = positionSlices * headDim;
  s.blocks = numKvHeads;
  s.chunks = numKvHeads; // read tokens per row of positionSlices positions: one per block
  s.rowBytes = numKvHeads * kWordBytes;
  return s;
}

KvStriping kvCacheReadStriping(int64_t numKvHeads, int64_t headDim, int64_t kvStep,
                               int64_t headSplit, int64_t readStep, bool blockMajor,
                               int64_t positionSlices) {
  if (positionSlices >= 2)
    return kvPositionStripingOf(numKvHeads, headDim, positionSlices);
  return kvReadStripingOf(numKvHeads, headDim, kvStep, headSplit, readStep, blockMajor);
}

AttentionStripings attentionStripingsOf(int64_t numKvHeads, int64_t headDim, int64_t kvStep,
                                        int64_t headSplit, int64_t readStep, bool blockMajor,
                                        int64_t positionSlices) {
  // Positions striped over slices: attention takes one kv head per token.
  const bool positionStriped = positionSlices >= 2;
  AttentionStripings s;
  s.kernel = kvStripingOf(numKvHeads, headDim, positionStriped ? 1 : kvStep,
                          positionStriped ? 1 : headSplit);
  s.reading = kvCacheReadStriping(numKvHeads, headDim, kvStep, headSplit, readStep, blockMajor,
                                  positionSlices);
  return s;
}

int64_t kvHeadParts(int64_t headDim) {
  if (headDim < 1)
    throw Error("kv striping", "a kv head of " + std::to_string(headDim) + " codes",
                "at least one code");
  return headDim / headPartCodes(headDim);
}

int64_t kvSliceChannel(int64_t slice, int64_t slices, bool valueCache, int64_t channels) {
  const int64_t spacing = std::max<int64_t>(1, channels / (2 * slices));
  if ((slices - 1) * 2 * spacing + spacing >= channels + (valueCache ? 0 : spacing))
    throw Error("kv striping", std::to_string(slices) + " slices per KV cache",
                "at most " + std::to_string(channels / 2) +
                    " (one pseudo-channel each for K and V of " + std::to_string(channels) + ")");
  return slice * 2 * spacing + (valueCache ? spacing : 0);
}

int64_t kvBlockChannels(int64_t slices, int64_t blocks, int64_t channels) {
  if (slices < 2 || blocks < 2)
    return 1;
  const int64_t spacing = std::max<int64_t>(1, channels / (2 * slices));
  // A mini-switch holds channels 4m .. 4m + 3; with a power-of-two spacing s every slice's
  // channel (a multiple of s) starts a run of min(s, 4) channels inside one.
  if ((spacing & (spacing - 1)) != 0)
    return 1;
  const int64_t roomInSwitch = std::min<int64_t>(spacing, 4);
  return blocks <= roomInSwitch ? blocks : 1;
}

std::string kvSliceBufferName(const std::string &cache, int64_t slices, int64_t slice) {
  return slices > 1 ? cache + ".s" + std::to_string(slice) : cache;
}

} // namespace st::llm
