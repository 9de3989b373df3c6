// Timing and resource model of st_attention (see attention_model.h).
#include "model/attention_model.h"

#include "model/softmax_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "support/int_math.h"

namespace st::model {

namespace {

void checkParams(const AttentionParams &p) {
  auto fail = [](const std::string &what) {
    throw std::invalid_argument("attention model: " + what);
  };
  if (p.numHeads < 1 || p.numKvHeads < 1 || p.numHeads % p.numKvHeads != 0)
    fail("numHeads must be a positive multiple of numKvHeads");
  if (p.lanes < 1 || p.cacheLanes < 1 || p.headDim % p.lanes != 0)
    fail("headDim must be a multiple of lanes");
  if (p.cacheLanes <= p.headDim
          ? p.headDim % p.cacheLanes != 0
          : p.cacheLanes % p.headDim != 0 || p.numKvHeads % (p.cacheLanes / p.headDim) != 0)
    fail("cacheLanes must divide headDim, or be a multiple of it covering a divisor of "
         "numKvHeads");
  if (p.maxContext < 2)
    fail("maxContext must be >= 2");
  if (p.cacheLength < 0 || p.cacheLength >= p.maxContext)
    fail("cacheLength " + std::to_string(p.cacheLength) + " outside 0 .. maxContext - 1");
  if (p.cacheRound < 1 || (p.cacheRound & (p.cacheRound - 1)) != 0 ||
      p.maxContext % p.cacheRound != 0 || (p.cacheRound > 1 && !p.blockMajor))
    fail("cacheRound must be a power of two dividing maxContext, and 1 unless blockMajor");
  if (p.onePass &&
      (!p.blockMajor || p.cacheLanes < p.headDim || p.headDim < 4 || p.tilePositions < 2 ||
       p.tilePositions > p.maxContext || (p.tilePositions & (p.tilePositions - 1)) != 0))
    fail("onePass needs blockMajor, cacheLanes >= headDim, headDim >= 4 and tilePositions a "
         "power of two 2 .. maxContext");
}

/// Cache positions each block's run of cache tokens holds: cacheLength rounded up to
/// cacheRound (the positions from cacheLength on are pad).
int64_t cachePositions(const AttentionParams &p) {
  return ceilDiv(p.cacheLength, p.cacheRound) * p.cacheRound;
}

/// Kv heads a cache token holds (heads in parallel), and its codes of one kv head.
int64_t kvStepOf(const AttentionParams &p) {
  return p.cacheLanes > p.headDim ? p.cacheLanes / p.headDim : 1;
}
int64_t chunksOf(const AttentionParams &p) {
  return p.headDim / (p.cacheLanes / kvStepOf(p));
}

/// One st_softmax instance of the kernel (weights, not probabilities) at n positions.
SoftmaxParams headSoftmax(const AttentionParams &p, int64_t n) {
  SoftmaxParams sm;
  sm.lanes = 1;
  sm.inBits = 32;
  sm.maxLen = p.maxContext;
  sm.length = n;
  sm.normalized = false;
  return sm;
}

} // namespace

int64_t attentionCacheLengthBits(const AttentionParams &p) {
  return ceilLog2(p.maxContext);
}

int64_t attentionAccumulatorBits(const AttentionParams &p) {
  return 24 + ceilLog2(p.maxContext);
}

namespace {

/// The one-pass schedule (attention_model.h): both walkers chunk by chunk, and the merges.
AttentionSchedule onePassSchedule(const AttentionParams &p) {
  using P = AttentionPipeline;
  const int64_t n = p.cacheLength + 1;
  const int64_t walked = cachePositions(p) + 1; // pad included, the new position last
  const int64_t blocks = p.numKvHeads / kvStepOf(p);
  const int64_t qTokens = p.numHeads * p.headDim / p.lanes;
  const int64_t tile = p.tilePositions;
  AttentionSchedule s;
  s.loadCycles = qTokens;
  s.chunksPerPosition = blocks;
  s.segmentChunks = 1;
  // Score walker: every block back to back.
  int64_t next = qTokens;
  for (int64_t b = 0; b < blocks; ++b) {
    std::vector<int64_t> cycles;
    for (int64_t w = 0; w < walked; ++w) {
      int64_t c = next;
      if (w == walked - 1 && b == 0)
        c = std::max(c, p.kNewLastTaken + 1);
      cycles.push_back(c);
      next = c + 1;
    }
    s.scoreStart.push_back(cycles.front());
    s.scoreCycles.push_back(std::move(cycles));
  }
  // The score of real position r of block b: its walk index (the new token's is the last).
  auto scoreOf = [&](int64_t b, int64_t r) {
    return s.scoreCycles[size_t(b)][size_t(r < p.cacheLength ? r : walked - 1)];
  };
  // Value walker and merges.
  std::vector<int64_t> readLast; // X_t per global tile
  int64_t previous = qTokens - 1, globalTile = -1, lastMergeStart = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    std::vector<int64_t> cycles, tiles;
    for (int64_t w = 0; w < walked; ++w) {
      const bool isNew = w == walked - 1, isPad = !isNew && w >= p.cacheLength;
      int64_t v = previous + 1;
      if (!isPad) {
        const int64_t r = isNew ? p.cacheLength : w;
        if (r % tile == 0)
          ++globalTile;
        const int64_t needed = std::min((r / tile + 1) * tile, n);
        v = std::max(v, scoreOf(b, needed - 1) + P::kScoreCounted);
        if (isNew)
          v = std::max(v, p.vNewLastTaken + 1);
        if (r % tile == 0 && globalTile >= 2)
          v = std::max(v, readLast[size_t(globalTile - 2)] + 1);
        if ((r + 1) % tile == 0 || isNew) {
          const int64_t start = std::max(
              v + P::kValueToMerge, readLast.empty() ? int64_t(0) : readLast.back() + P::kMergeGap);
          readLast.push_back(start + p.headDim - 1);
          lastMergeStart = start;
        }
      }
      if (!isNew)
        tiles.push_back(globalTile);
      else
        s.newPositionTiles.push_back(globalTile);
      cycles.push_back(v);
      previous = v;
    }
    s.valueStart.push_back(cycles.front());
    s.valueCycles.push_back(std::move(cycles));
    s.cacheTokenTiles.push_back(std::move(tiles));
  }
  s.lastScoreGroup0 = s.scoreCycles.front().back() + P::kScoreStages;
  s.firstValueIssue = s.valueStart.front();
  // Drain leaves for Output the cycle after the value side is idle and every (R, L) is in.
  s.firstOutputIssue = 1 + std::max({previous + 1, readLast.back() + P::kMergeDrain,
                                     lastMergeStart + P::kMergeToNorm});
  s.nextInvocation = s.firstOutputIssue + qTokens;
  return s;
}

} // namespace

AttentionSchedule attentionSchedule(const AttentionParams &p) {
  checkParams(p);
  if (p.onePass)
    return onePassSchedule(p);
  using P = AttentionPipeline;
  const int64_t n = p.cacheLength + 1;
  const int64_t walked = cachePositions(p) + 1; // positions a walk takes, pad included
  const int64_t chunks = chunksOf(p);
  const int64_t blocks = p.numKvHeads / kvStepOf(p);
  const int64_t qTokens = p.numHeads * p.headDim / p.lanes;
  AttentionSchedule s;
  // The walk starts after q; k_new and v_new load beside it (kvTokens <= qTokens) and are used
  // at the new position.
  s.loadCycles = qTokens;
  s.chunksPerPosition = blocks * chunks;
  // Position-major, one segment holds every block; block-major, one block.
  const int64_t segments = p.blockMajor ? blocks : 1;
  s.segmentChunks = p.blockMajor ? chunks : s.chunksPerPosition;
  // st_softmax emits its first weight (D - T) cycles after its last logit, and its (R, L)
  // (norm valid - T) cycles after it.
  const SoftmaxParams sm = headSoftmax(p, n);
  const int64_t softmaxAfterLast = softmaxTiming(sm).firstOutputDelay - n;
  const int64_t normAfterLast = softmaxNormValidCycle(sm) - n;
  int64_t lastScore = 0; // the last score of the segment's last block enters its softmax
  // Per segment, the cycle after its last score / value chunk.
  std::vector<int64_t> scoreEnd, valueEnd;
  for (int64_t b = 0; b < segments; ++b) {
    // The score walker runs on, except that (block-major) block b >= 2 waits for the value
    // walker's last chunk of block b - 2.
    int64_t score = b > 0 ? scoreEnd.back() : s.loadCycles;
    if (b > 1)
      score = std::max(score, valueEnd[size_t(b - 2)]);
    s.scoreStart.push_back(score);
    // The segment's first block issues its chunks of the new token's position after the cache
    // positions' chunks (pad included), the first segment's once all of k_new is in.
    int64_t scoreNew = score + (walked - 1) * s.segmentChunks;
    if (b == 0)
      scoreNew = std::max(scoreNew, p.kNewLastTaken + 1);
    scoreEnd.push_back(scoreNew + s.segmentChunks);
    const int64_t lastScoreFirstBlock = scoreNew + chunks - 1 + P::kScoreStages;
    lastScore = scoreEnd.back() - 1 + P::kScoreStages;
    if (b == 0)
      s.lastScoreGroup0 = lastScoreFirstBlock;
    // Value chunks of position p of block g need E[g's heads][p]; E arrives one position per
    // cycle and the walk takes >= 1 cycle per position, so only a block's first chunk waits
    // (pad chunks wait for nothing, and the new token's E is the cacheLength-th).
    // Position-major, the value walk follows the whole score walk (block-major, the E wait
    // implies it); each segment follows the previous one.
    int64_t value =
        std::max(scoreEnd.back(), lastScoreFirstBlock + softmaxAfterLast + P::kValueReady);
    if (b > 0)
      value = std::max(value, valueEnd.back());
    s.valueStart.push_back(value);
    int64_t valueNew = value + (walked - 1) * s.segmentChunks;
    if (b == 0)
      valueNew = std::max(valueNew, p.vNewLastTaken + 1);
    valueEnd.push_back(valueNew + s.segmentChunks);
  }
  s.firstValueIssue = s.valueStart.front();
  // The output waits for the value pipeline and for the last kv-head block's (R, L).
  s.firstOutputIssue =
      std::max(valueEnd.back() - 1 + P::kValueDrain, lastScore + normAfterLast + P::kNormToOutput);
  s.nextInvocation = s.firstOutputIssue + qTokens;
  return s;
}

KernelTiming attentionTiming(const AttentionParams &p) {
  const AttentionSchedule s = attentionSchedule(p);
  const int64_t qTokens = p.numHeads * p.headDim / p.lanes;
  const int64_t kvTokens = p.numKvHeads * p.headDim / p.lanes;
  const int64_t cacheTokens = cachePositions(p) * s.chunksPerPosition;
  KernelTiming t;
  t.firstOutputDelay = s.firstOutputIssue + AttentionPipeline::kOutputStages;
  t.ii = 1;
  t.totalLatency = t.firstOutputDelay + qTokens - 1;
  t.outputTokens = qTokens;
  t.inputTokens = {qTokens, kvTokens, kvTokens, cacheTokens, cacheTokens};
  for (int64_t tokens : t.inputTokens)
    t.inputTokensNeeded.push_back([tokens](int64_t) { return tokens; });
  // The phases (dataflow_timing_sim.h): Load takes q, k_new and v_new, each port on its own;
  // the score walker reads a segment's cache rows one chunk a cycle from its start, the value
  // walker from its own start, as long after the segment's scores as the softmax needs. Ranks
  // are the cycles of the schedule, phases the order: segment b's k_cache after segment b - 1's
  // v_cache (b + 1), its v_cache after its k_cache (b + 2). The walk starts after q: k_new is
  // buffered until the score walker's new position in segment 0 (the cycle after its last
  // cache chunk), which segment 0's values (phase 2) follow; v_new until the value walker's,
  // which segment 1's values (phase 3) follow.
  auto phase = [](int64_t value, int64_t tokens) {
    return std::vector<int64_t>(static_cast<size_t>(tokens), value);
  };
  auto range = [](int64_t first, int64_t tokens) {
    std::vector<int64_t> ranks(static_cast<size_t>(tokens));
    for (int64_t j = 0; j < tokens; ++j)
      ranks[static_cast<size_t>(j)] = first + j;
    return ranks;
  };
  t.inputRanks = {range(0, qTokens), range(0, kvTokens), range(0, kvTokens), {}, {}};
  t.inputPhases = {phase(0, qTokens), phase(0, kvTokens), phase(0, kvTokens), {}, {}};
  if (p.onePass) {
    // Ranks the walkers' cycles; phases by global tile: tile t's k_cache tokens 2t + 1, its
    // v_cache tokens 2t + 2 (a value tile after its own tile's scores). k_new is used at block
    // 0's new position, v_new at the value walker's.
    const int64_t walked = cachePositions(p);
    for (size_t b = 0; b < s.scoreCycles.size(); ++b)
      for (int64_t j = 0; j < walked; ++j) {
        t.inputRanks[3].push_back(s.scoreCycles[b][size_t(j)]);
        t.inputRanks[4].push_back(s.valueCycles[b][size_t(j)]);
        const int64_t globalTile = s.cacheTokenTiles[b][size_t(j)];
        t.inputPhases[3].push_back(2 * globalTile + 1);
        t.inputPhases[4].push_back(2 * globalTile + 2);
      }
    const int64_t newTile = s.newPositionTiles.front();
    t.inputBuffered = {{},
                       {2 * newTile + 2, s.scoreCycles.front().back() - 1},
                       {2 * newTile + 3, s.valueCycles.front().back() - 1},
                       {},
                       {}};
    // The score walker waits for q and k_new only, never for the value walker behind it.
    t.inputWaitsFor = {{}, {}, {}, {true, true, false, true, false}, {}};
    return t;
  }
  const int64_t segmentTokens = cachePositions(p) * s.segmentChunks;
  t.inputBuffered = {{},
                     {2, s.scoreStart.front() + segmentTokens - 1},
                     {3, s.valueStart.front() + segmentTokens - 1},
                     {},
                     {}};
  auto append = [](std::vector<int64_t> &to, const std::vector<int64_t> &from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  for (size_t b = 0; b < s.scoreStart.size(); ++b) {
    append(t.inputRanks[3], range(s.scoreStart[b], segmentTokens));
    append(t.inputRanks[4], range(s.valueStart[b], segmentTokens));
    append(t.inputPhases[3], phase(int64_t(b) + 1, segmentTokens));
    append(t.inputPhases[4], phase(int64_t(b) + 2, segmentTokens));
  }
  return t;
}

ResourceEstimate attentionResources(const AttentionParams &p) {
  checkParams(p);
  const int64_t group = p.numHeads / p.numKvHeads;
  const int64_t chunks = chunksOf(p);
  const int64_t stepHeads = kvStepOf(p) * group; // query heads served per chunk
  const int64_t dimLanes = p.cacheLanes / kvStepOf(p);
  const int64_t qCodes = p.numHeads * p.headDim, kvCodes = p.numKvHeads * p.headDim;
  const int64_t qTokens = qCodes / p.lanes;
  const int64_t walk = p.numKvHeads / kvStepOf(p) * chunks; // chunks per token position
  const int64_t lenBits = ceilLog2(p.maxContext + 1);
  const int64_t macs = group * p.cacheLanes;
  const int64_t accBits = attentionAccumulatorBits(p);
  const int64_t normBits = accBits + 33; // a x R
  auto mux = [](int64_t inputs) { return inputs <= 1 ? 0 : ceilDiv(inputs - 1, 3); };
  ResourceEstimate r;
  if (p.onePass) {
    // One pass: per head slot two exponent lanes (E, and the tile's rescale factor f) and a
    // reciprocal, its running maximum and its tile maxima (distributed RAM, 32 bits a tile);
    // per MAC two partial accumulators (by tile parity) with their adder; per head slot the
    // merge: A (blocks x headDim to 1) and P (2 x headDim to 1) read muxes, a x f and S x f
    // (DSPs), the rounding and the adds, and the M1 / M2 registers; the value chunk and its tag
    // waiting six stages beside the exponent lanes; the scores, MaxContext x 32 block RAM a
    // head.
    const int64_t blocks = p.numKvHeads / kvStepOf(p);
    const int64_t tileBits = ceilLog2(p.tilePositions);
    const int64_t partBits = 24 + tileBits, tileSumBits = 16 + tileBits;
    const int64_t sumBits = 16 + ceilLog2(p.maxContext);
    const int64_t tiles = ceilDiv(p.maxContext, p.tilePositions);
    const ResourceEstimate lane = softmaxExpLaneResources(32);
    const ResourceEstimate reciprocal = softmaxReciprocalResources(sumBits + 17);
    for (int64_t j = 0; j < stepHeads; ++j) {
      r += lane;
      r += lane;
      r += reciprocal;
    }
    r.lut += stepHeads * (48 + 32 * ceilDiv(tiles, 64) * (p.numHeads / stepHeads) + 17);
    r.ff += stepHeads * (32 + 3 * 32 + 2 * 33 + 16 + 2 * tileSumBits);
    r.lut += macs * partBits * 2;
    r.ff += macs * 2 * partBits;
    r.lut += stepHeads * (accBits * mux(blocks * p.headDim) + partBits * mux(2 * p.headDim) +
                          3 * accBits + 2 * sumBits + 2 * tileSumBits);
    r.ff += stepHeads * (2 * accBits + 34 + 2 * partBits + 2 * sumBits + 34 + 2 * tileSumBits);
    r.dsp += stepHeads * (ceilDiv(accBits, 26) * ceilDiv(34, 17) + ceilDiv(sumBits, 26) * 2);
    r.ff += p.numHeads * (sumBits + 32) + 6 * (p.cacheLanes * 8 + 8) + 2 * lenBits * blocks;
    // A RAMB18 holds 512 x 32 (Yosys: two heads of 128 in one BRAM36).
    r.bram36 += p.numHeads * (p.maxContext <= 512 ? 0.5 : double(ceilDiv(p.maxContext, 1024)));
  } else {
    const ResourceEstimate softmax = softmaxResources(headSoftmax(p, p.maxContext));
    for (int64_t h = 0; h < p.numHeads; ++h)
      r += softmax;
    // The accumulators' read-modify-write (walk-to-1 per MAC bit) and adder.
    r.lut += macs * accBits * (mux(walk) + 1);
    // Weight memories: MaxContext x 16 per head, block RAM (ram_style), as the logit
    // buffers of the softmax instances.
    r.bram36 += p.numHeads * (p.maxContext <= 1024 ? 0.5 : double(ceilDiv(p.maxContext, 2048)));
  }
  // Registers: q, k_new, v_new; the accumulators; score pipeline (S1 k and q chunks, S2
  // partials, S3 scores); value pipeline (V1 chunk and every head's E, V2 products); output
  // pipeline (O1 accumulators, (R, L) and scale, O2 a x R, O3 means, O4 products, O5 codes,
  // slice); sideband; control.
  r.ff += qCodes * 8 + 2 * kvCodes * 8 + qCodes * accBits;
  r.ff += (group + 1) * p.cacheLanes * 8 + 2 * stepHeads * 32;
  r.ff += p.cacheLanes * 8 + p.numHeads * 16 + macs * 24;
  r.ff += p.lanes * (accBits + normBits + 32 + 57 + 3 * p.outBits) + 38 + 3 * 30;
  r.ff += 60 + ceilLog2(p.maxContext) + p.numKvHeads * lenBits + 40;
  // LUTs. Chunk selects: q (group lanes) and k_new / v_new from walk-to-1 muxes (a LUT6 is a
  // 4:1 mux bit, so an m:1 mux costs about (m-1)/3 LUTs per bit); the output read mux
  // (qTokens-to-1 per lane bit); the dot-product adder trees; the output rounding shift (six mux
  // levels of 57 bits) and saturation; the token-register write enables; control.
  r.lut += (group + 2) * p.cacheLanes * 8 * mux(walk);
  r.lut += p.lanes * accBits * mux(qTokens) + 38 * mux(p.numHeads);
  // Per score lane (StepHeads x DimLanes products of a chunk): its share of the dot-product
  // tree, the q and k operand registers and routing and the value side that grows with the
  // heads in parallel (fitted on Yosys runs: h4 kv2 d12 at CacheLanes 4 and 24, h2 kv1 d16 at
  // CacheLanes 4: 10497 / 18861 / 6742 LUTs).
  r.lut += stepHeads * dimLanes * 150;
  // The normalize stage (a x R rounded by L - 2, saturated to 32 bits) measured about 3 LUTs
  // per product bit and 3 per mean bit in Yosys (h2 kv1 d16: +1,028 LUTs for 4 lanes).
  r.lut += p.lanes * (6 * 57 + 57 + 2 * p.outBits + 3 * normBits + 3 * 32);
  r.lut += (qCodes + 2 * kvCodes) / p.lanes + qCodes + 150 + p.numKvHeads * 2 * lenBits;
  if (p.blockMajor) {
    // The value walker's own position, block and chunk counters (position-major, one walker
    // serves both passes): their incrementers, its position compare and the score walker's
    // block compare.
    const int64_t walkerBits = ceilLog2(p.maxContext) + ceilLog2(walk / chunks) + ceilLog2(chunks);
    r.ff += walkerBits;
    r.lut += 2 * walkerBits + ceilLog2(p.maxContext) + 2 * ceilLog2(walk / chunks);
  }
  if (p.cacheRound > 1) {
    // cache_len rounded up to CacheRound, and each walker's pad compare.
    r.lut += 3 * lenBits;
  }
  // DSPs, one DSP48E2 (27 x 18 signed) per s8 x s8 score product and per u16 x s8 value
  // product; the s32 x u24 output multiply splits into 2 x 2 of them, the a x u32 R one into
  // 26-bit by 17-bit pieces.
  r.dsp += 2 * macs + 4 * p.lanes + p.lanes * ceilDiv(accBits, 26) * ceilDiv(33, 17);
  return r;
}

} // namespace st::model
