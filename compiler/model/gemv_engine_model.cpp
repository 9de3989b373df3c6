// Timing and resource model of st_gemv_engine (see gemv_engine_model.h).
#include "model/gemv_engine_model.h"

#include "support/error.h"

#include <algorithm>
#include <limits>
#include <string>

#include "support/int_math.h"

namespace st::model {

GemvEngineCallTiming gemvEngineCallTiming(const GemvEngineShape &shape, const GemvEngineCall &call,
                                          const GemvEngineCarry &previous) {
  numerics::checkGemvEngineShape(shape);
  if (call.rows <= 0 || call.rows % shape.lanes != 0)
    throw Error("gemv engine model", "rows",
                "a positive multiple of Lanes = " + std::to_string(shape.lanes) + ", got " +
                    std::to_string(call.rows));
  GemvEngineCallTiming t;
  t.superWords = numerics::gemvWordsPerChannel(call.k, call.rows, call.groupSize, shape);
  t.xTokens = call.reuseX ? 0 : call.k / shape.lanes;
  if (call.reuseX && previous.preloadStart)
    throw Error("gemv engine model", "reuseX",
                "a new x after a call that announced one (the next call loads it)");
  if (t.xTokens > 0) {
    t.xFirst = previous.preloadStart ? *previous.preloadStart : 1;
    t.xDone = std::max<int64_t>(0, t.xFirst + t.xTokens - 1);
  }
  if (call.preloadsNext)
    t.nextPreloadStart = t.xDone + 1;
  const int64_t blocks = ceilDiv(call.rows, shape.channels);
  const int64_t fullTokens = shape.channels / shape.lanes;
  int64_t lastWord = -previous.cyclesSinceLastWord;
  int64_t lastTokens = previous.lastBlockTokens;
  int64_t q = 0; // Q(b - 1); the first word after D is Q = 1 at cycle X' + 1
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t qb = numerics::gemvWordsThroughBlock(b, call.k, call.groupSize, shape);
    const int64_t natural = b == 0 ? t.xDone + qb : lastWord + (qb - q);
    const int64_t paced =
        lastTokens > 0 ? lastWord + lastTokens : std::numeric_limits<int64_t>::min();
    lastWord = std::max(natural, paced);
    lastTokens =
        b + 1 < blocks ? fullTokens : (call.rows - (blocks - 1) * shape.channels) / shape.lanes;
    q = qb;
    t.blockLastWord.push_back(lastWord);
    t.blockTokens.push_back(lastTokens);
    t.blockSuperWords.push_back(1 + qb);
    for (int64_t i = 0; i < lastTokens; ++i) {
      t.outputs.push_back(lastWord + kGemvOutputDelay + i);
      t.outputBlock.push_back(b);
    }
  }
  return t;
}

std::vector<GemvEngineCallTiming>
gemvEngineSequenceTiming(const GemvEngineShape &shape, const std::vector<GemvEngineCall> &calls) {
  std::vector<GemvEngineCallTiming> out;
  GemvEngineCarry carry;
  for (const GemvEngineCall &call : calls) {
    out.push_back(gemvEngineCallTiming(shape, call, carry));
    carry = out.back().carry(1);
  }
  return out;
}

KernelTiming gemvEngineTiming(const GemvEngineShape &shape, const GemvEngineCall &call,
                              const GemvEngineCarry &previous) {
  const GemvEngineCallTiming c = gemvEngineCallTiming(shape, call, previous);
  KernelTiming t;
  t.firstOutputDelay = c.outputs.front();
  t.totalLatency = c.outputs.back();
  t.ii = 1;
  t.notBefore = c.outputs;
  t.outputTokens = int64_t(c.outputs.size());
  t.inputTokens = {c.xTokens, c.superWords};
  const int64_t x = c.xTokens;
  std::vector<int64_t> words;
  for (int64_t b : c.outputBlock)
    words.push_back(c.blockSuperWords[size_t(b)]);
  t.inputTokensNeeded = {[x](int64_t) { return x; },
                         [words](int64_t k) { return words[size_t(k)]; }};
  return t;
}

ResourceEstimate gemvEngineResources(const GemvEngineShape &shape) {
  const GemvEngineResourceSplit split = gemvEngineResourceSplit(shape);
  ResourceEstimate r = split.core;
  for (const GemvEngineResourceSplit::Channel &c : split.channels)
    r += c.resources;
  return r;
}

GemvEngineResourceSplit gemvEngineResourceSplit(const GemvEngineShape &s) {
  numerics::checkGemvEngineShape(s);
  // The widths st_gemv_engine declares (docs/numerics.md §3).
  const int64_t nSeg = s.kLanes / s.segLanes;
  const int64_t gMax = s.maxK / s.kLanes;
  const int64_t prodBits = s.weightBits + s.activationBits;
  const int64_t segBits = prodBits + ceilLog2(s.segLanes);
  const int64_t scaledBits = segBits + 16;
  const int64_t sumBits = scaledBits + ceilLog2(nSeg) + ceilLog2(gMax);
  const int64_t biasedBits = std::max<int64_t>(sumBits, 48) + 1;
  const int64_t mulBits = biasedBits + 24;
  const int64_t rndBits = std::max<int64_t>(mulBits, 63) + 1;
  const int64_t recordBits = 78, recordSlots = 3 * numerics::kGemvRecordsPerWord;
  const int64_t portBits = s.numY > 1 ? ceilLog2(s.numY) : 1;
  const int64_t tokenBits = s.lanes * s.outputBits;
  const int64_t xEntryBits = s.kLanes * s.activationBits;
  // Yosys splits a multiplier into DSP48E2s in chunks of about 17 x 24 bits, the wider operand
  // on the 24 side (fitted: 4x8, 8x16, 17x17, 18x17 take one; 30x17 two; 49x25 six).
  auto dsps = [](int64_t a, int64_t b) {
    return std::min(ceilDiv(a, 17) * ceilDiv(b, 24), ceilDiv(b, 17) * ceilDiv(a, 24));
  };

  // One st_gemv_channel instance of `ways` channels (PackedPairs instances of two whose lanes'
  // products share one multiply, Channels - 2 * PackedPairs of one): per way the records (three
  // P slots), the mantissa chunk, the weight word, per segment its mantissa pipeline, sum and
  // scaled sum, and the accumulator; the products (packed: one of WBits + SegBits + 1 x ABits
  // bits per lane). LUTs per product bit of a lane: the segment adder trees and operand routing
  // as Yosys maps them (fitted: 5.9 .. 6.3 at W4A8 and W8A16, KLanes 32 .. 128, one channel per
  // instance; the packed instance checked at W4A8 KLanes 128); per segment and way its 32:1
  // mantissa mux (8 per bit) and, packed, the split of the sum; the record mux and control.
  auto channelInstance = [&](int64_t ways) {
    const int64_t packedBits = s.weightBits + segBits + 1;
    const int64_t laneProdBits = ways == 2 ? packedBits + s.activationBits : prodBits;
    ResourceEstimate c;
    c.ff = ways * (recordSlots * recordBits + numerics::kGemvWordBits + s.kLanes * s.weightBits +
                   nSeg * (3 * 16 + segBits + scaledBits) + sumBits) +
           s.kLanes * laneProdBits;
    c.dsp = s.kLanes * (ways == 2 ? dsps(packedBits, s.activationBits)
                                  : dsps(s.weightBits, s.activationBits)) +
            ways * nSeg * dsps(segBits, 17);
    c.lut = 6 * laneProdBits * s.kLanes + ways * (128 * nSeg + 700) +
            (ways == 2 ? nSeg * 2 * (laneProdBits + segBits) : 0);
    return c;
  };
  const ResourceEstimate single = channelInstance(1), pair = channelInstance(2);

  // Per output lane one st_requant_row: bias adder, 49 x 25 product, rounding adder, 64-way
  // arithmetic shift and the saturation to a runtime width (15 LUTs per bit of the rounded
  // product, fitted on Yosys runs at OutBits 16).
  ResourceEstimate requant;
  requant.ff = biasedBits + 24 + 3 * 6 + 3 * 6 + mulBits + rndBits + s.outputBits;
  requant.dsp = dsps(biasedBits, 25);
  requant.lut = 15 * rndBits;

  // The engine around them: the output buffer (accumulator and record of every channel, a 2:1
  // mux each for the shift by Lanes), the x entry register and assembly, the output slice and
  // control; the x loader's counters and the announced x (port, entries); the two x buffers
  // (2 x MaxK codes) in LUTRAM (RAM32M16: 14 bits x 32 per 8 LUTs) below 16 Kbit, else BRAM36
  // (512 x 72).
  ResourceEstimate engine;
  const int64_t holdBits = s.channels * (sumBits + recordBits);
  const int64_t xPortBits = s.numX > 1 ? ceilLog2(s.numX) : 1;
  const int64_t entryBits = ceilLog2(gMax + 1);
  engine.ff = holdBits + xEntryBits + (s.kLanes / s.lanes - 1) * s.lanes * s.activationBits +
              2 * (portBits + tokenBits) + 160 + 2 * xPortBits + 3 * entryBits + 8;
  engine.lut = holdBits + (portBits + tokenBits) + 300 + 4 * entryBits;
  const int64_t xEntries = 2 * gMax;
  if (xEntries * xEntryBits < 16384)
    engine.lut += 8 * ceilDiv(xEntryBits, 14) * ceilDiv(xEntries, 32);
  else
    engine.bram36 = double(ceilDiv(xEntryBits, 72) * ceilDiv(xEntries, 512));

  GemvEngineResourceSplit split;
  split.core = engine;
  for (int64_t l = 0; l < s.lanes; ++l)
    split.core += requant;
  for (int64_t i = 0; i < s.packedPairs; ++i)
    split.channels.push_back({2 * i, 2, pair});
  for (int64_t c = 2 * s.packedPairs; c < s.channels; ++c)
    split.channels.push_back({c, 1, single});
  // st_gemv_channel's ports: x_i (KLanes codes), mant_idx_i (5 bits per segment), the slot and
  // record selects and the strobes in; acc_o and rec_o out per way.
  split.coreToChannelBits = xEntryBits + 5 * nSeg + 2 + 2 + 3 + 8;
  split.channelToCoreBits = sumBits + recordBits;
  return split;
}

} // namespace st::model
