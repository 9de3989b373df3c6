// KV striping: how attention's cache rows lie in HBM and reach st_attention (docs/accelerator.md
// §6, docs/decisions.md "KV rows striped over pseudo-channels").
//
// st_attention reads each cached position as `chunks` tokens of CacheLanes codes. With kvStep
// k >= 1 a token holds k whole kv heads (heads in parallel), or with kvStep 1 and headSplit f > 1
// one f-th of a head (a head wider than two bus words, Gemma 3's 256 codes: its parts in
// parallel), and the token is cut into `slices` parts of partCodes codes (the largest divisor of
// the head dimension that fits one 512-bit bus word). Part j of every token of every row lives in
// its own HBM buffer on its own pseudo-channel ("<stage>/<op>.k_cache.s<j>"), one bus word per
// part, so a row of the cache is read by `slices` DMAs in parallel, each at its channel's rate, and
// joined into one token (kvReadStripingOf: the DMAs may read wider tokens than attention takes,
// split for it by an st_width_converter). kvStep 0 is the design before striping: one buffer and
// one DMA per cache, tokens of the largest power of two up to 64 codes dividing the head dimension,
// rows packed.
#pragma once

#include <cstdint>
#include <string>

namespace st::llm {

struct KvStriping {
  int64_t kvStep = 0;     ///< kv heads per cache token (0: chunks of one head, unstriped)
  int64_t headSplit = 1;  ///< tokens per kv head (> 1 only with kvStep 1)
  int64_t cacheLanes = 0; ///< codes per cache token (st_attention's CacheLanes)
  int64_t partCodes = 0;  ///< codes of one slice's part of a token (<= 64: one bus word)
  int64_t slices = 1;     ///< read DMAs (and HBM buffers) per cache; 1: not striped
  int64_t chunks = 0;     ///< cache tokens per row (numKvHeads * headDim / cacheLanes)
  int64_t rowBytes = 0;   ///< bytes of one row in each buffer (a slice's: chunks bus words)
  /// Kv-head blocks (numKvHeads / kvStep) laid out one after the other in each slice buffer for
  /// st_attention's block-major walk: word (b, p, c) of block b, position p, chunk c < chunks /
  /// blocks at (b * maxContext + p) * blockRowBytes() + c * 64, so that each block's rows are
  /// one burst. 1: rows position-major, word (p, c) at p * rowBytes + c * 64.
  int64_t blocks = 1;
  /// Positions striped over the slices (kvPositionStripingOf): position p of every block lies in
  /// slice p mod positionSlices at row p div positionSlices, each slice a block-major cache of
  /// maxContext / positionSlices rows of one bus word per block; a read token is
  /// positionSlices consecutive positions of one block (one word of each slice). 1: a row is
  /// one position, each slice holding its part of it.
  int64_t positionSlices = 1;
  bool striped() const { return slices > 1; }
  bool blockMajor() const { return blocks > 1; }
  /// Bytes of one position of one block in a slice buffer (rowBytes when not block-major).
  int64_t blockRowBytes() const { return rowBytes / blocks; }
};

/// The striping of a cache of `numKvHeads` heads of `headDim` s8 codes at `kvStep` kv heads per
/// token (0, or a divisor of numKvHeads), each head in `headSplit` tokens (1, or with kvStep 1 a
/// divisor of the head's bus-word parts that leaves at least two parts per token). Throws
/// st::Error naming the value otherwise.
KvStriping kvStripingOf(int64_t numKvHeads, int64_t headDim, int64_t kvStep, int64_t headSplit = 1);

/// The striping the cache is read with, in HBM and by its DMAs: `readStep` kv heads per token
/// (0: attention's own token, kvStripingOf(numKvHeads, headDim, kvStep, headSplit)), a whole
/// number of attention's tokens, which an st_width_converter after the DMAs' join gives the
/// kernel one at a time. Reading wider than the kernel takes makes a cache pass run at the
/// kernel's token a cycle where one slice's channel (0.78 words a cycle) would limit it.
/// `blockMajor`: the layout of st_attention's block-major walk (KvStriping::blocks), which
/// needs a striped cache of more than one kv-head block read at attention's own token. Throws
/// st::Error naming the value when readStep does not divide the kv heads, its token is not a
/// multiple of attention's, or the block-major layout does not apply.
KvStriping kvReadStripingOf(int64_t numKvHeads, int64_t headDim, int64_t kvStep, int64_t headSplit,
                            int64_t readStep, bool blockMajor = false);

/// The position-striped cache of `numKvHeads` (>= 2) heads of `headDim` (<= 64: one bus word)
/// codes over `positionSlices` (a power of two, 2 .. 16) slices: attention takes one kv head
/// per token, block-major (blocks = numKvHeads), and the DMAs read positionSlices positions of
/// a block per token from as many pseudo-channels at once (cacheLanes = positionSlices x
/// headDim), split for attention by an st_width_converter. A read of cache_len positions takes
/// ceil(cache_len / positionSlices) tokens per block; attention drops the pad
/// (st_attention's CacheRound). Throws st::Error naming the value otherwise.
KvStriping kvPositionStripingOf(int64_t numKvHeads, int64_t headDim, int64_t positionSlices);

/// The striping a cache is read with: kvPositionStripingOf(numKvHeads, headDim,
/// positionSlices) when positionSlices >= 2 (which then replaces the other choices), else
/// kvReadStripingOf(numKvHeads, headDim, kvStep, headSplit, readStep, blockMajor).
KvStriping kvCacheReadStriping(int64_t numKvHeads, int64_t headDim, int64_t kvStep,
                               int64_t headSplit, int64_t readStep, bool blockMajor,
                               int64_t positionSlices);

/// A lowered attention's two stripings: the cache token st_attention takes (`kernel`; one kv
/// head when positions are striped) and the cache as its DMAs read it (`reading`,
/// kvCacheReadStriping).
struct AttentionStripings {
  KvStriping kernel, reading;
};

/// The stripings of an attention over `numKvHeads` heads of `headDim` codes under the lowering's
/// choices (kv step, head split, read step, block-major walk, position slices). Throws st::Error
/// naming the value, as kvStripingOf and kvCacheReadStriping do.
AttentionStripings attentionStripingsOf(int64_t numKvHeads, int64_t headDim, int64_t kvStep,
                                        int64_t headSplit, int64_t readStep, bool blockMajor,
                                        int64_t positionSlices);

/// Whether the block-major layout (kvReadStripingOf's blockMajor) applies: a cache striped over
/// at least two slices, at least two kv-head blocks, read at attention's own token.
bool kvBlockMajorApplies(int64_t numKvHeads, int64_t headDim, int64_t kvStep, int64_t headSplit,
                         int64_t readStep);

/// Whether st_attention's one pass (OnePass) applies to a lowered attention: the block-major
/// walk over cache tokens of whole kv heads (cacheLanes >= headDim) of at least 4 codes.
bool attentionOnePassApplies(int64_t headDim, int64_t cacheLanes, bool blockMajor);

/// The bus-word parts of one kv head of `headDim` codes (headDim / partCodes).
int64_t kvHeadParts(int64_t headDim);

/// The pseudo-channel of slice `slice` of a striped K (or, `valueCache`, V) cache of `slices`
/// slices on a device of `channels`: j * 2s for K and j * 2s + s for V, s = channels / (2 *
/// slices) (at least 1), so that the slices of both caches are spread over the channels, one
/// each. Throws st::Error when the slices do not fit.
int64_t kvSliceChannel(int64_t slice, int64_t slices, bool valueCache, int64_t channels);

/// The pseudo-channels the `blocks` kv-head blocks of each of the `slices` slices of a
/// block-major cache (kvCacheReadStriping's blocks and slices) spread over on a device of
/// `channels`: block b of slice j on channel
/// kvSliceChannel(j) + b, its region at the same offset, one pseudo-channel (channelBytes)
/// from the block before, so that a layer's K/V rows draw on as many channels as the cache has
/// blocks (each pass of st_attention's block-major walk reads one block: its channel, while the
/// slice's other channels refill the engine's weights). It is `blocks` when the blocks fit
/// between a slice's channel and the next slice's (kvSliceChannel's spacing, 1 .. 4 channels
/// of one HBM mini-switch apart, so that a read master's range HBM[c:c+blocks-1] stays inside
/// it), else 1: every block on the slice's channel (also for an unstriped cache, slices 1, or
/// one block).
int64_t kvBlockChannels(int64_t slices, int64_t blocks, int64_t channels);

/// The HBM buffer of slice `slice` of cache buffer `cache` ("block/attention.k_cache"): the
/// cache's own name when it is not striped.
std::string kvSliceBufferName(const std::string &cache, int64_t slices, int64_t slice);

} // namespace st::llm
