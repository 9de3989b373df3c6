// Timing and resource model of st_linear (see linear_model.h).
#include "model/linear_model.h"

#include "model/weight_stream.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "support/int_math.h"

namespace st::model {

namespace {

constexpr int64_t kRowParamBits = model::kLinearRowRecordBits;
constexpr int64_t kGroupScaleBits = model::kLinearGroupScaleBits;

void require(bool ok, const std::string &what) {
  if (!ok)
    throw std::invalid_argument("st_linear parameters: " + what);
}

} // namespace

// The stream layout has one implementation, model/weight_stream.
int64_t linearWeightPayloadBits(const LinearParams &p) {
  return model::linearStreamPayloadBits(p);
}

int64_t linearHeaderWords(const LinearParams &p) {
  return model::linearStreamHeaderWords(p);
}

int64_t linearBlockWords(const LinearParams &p) {
  return linearHeaderWords(p) + p.k / p.kLanes;
}

void checkLinearParams(const LinearParams &p) {
  require(p.weightBits == 4 || p.weightBits == 8, "WBits must be 4 or 8");
  require(p.activationBits == 8 || p.activationBits == 16, "ABits must be 8 or 16");
  require(p.outputBits >= 2 && p.outputBits <= 32, "OutBits must be in 2..32");
  require(p.rows >= 1 && p.nOut % p.rows == 0, "NOut must be a positive multiple of Rows");
  require(p.kLanes >= 2 && p.kLanes % 2 == 0 && p.k % p.kLanes == 0,
          "KLanes must be even and divide K");
  require(p.lanes >= 1 && p.kLanes % p.lanes == 0, "Lanes must divide KLanes");
  require(p.groupSize == 0 || (p.groupSize % p.kLanes == 0 && p.k % p.groupSize == 0),
          "GroupSize must be a multiple of KLanes and divide K");
  require(p.wordBits >= linearWeightPayloadBits(p), "WordBits below the weight word payload");
  require(linearBlockWords(p) >= 5, "HeaderWords + K/KLanes must be >= 5");
}

KernelTiming linearTiming(const LinearParams &p) {
  checkLinearParams(p);
  const int64_t xTokens = p.k / p.lanes;
  const int64_t blockWords = linearBlockWords(p);
  const int64_t blocks = p.nOut / p.rows;
  KernelTiming t;
  t.firstOutputDelay = xTokens + blockWords - 1 + kLinearPipelineDepth;
  t.ii = blockWords;
  t.totalLatency = xTokens + blocks * blockWords - 1 + kLinearPipelineDepth;
  t.outputTokens = blocks;
  t.inputTokens = {xTokens, blocks * blockWords};
  t.inputTokensNeeded = {[xTokens](int64_t) { return xTokens; },
                         [blockWords](int64_t k) { return (k + 1) * blockWords; }};
  return t;
}

ResourceEstimate linearResources(const LinearParams &p) {
  checkLinearParams(p);
  const bool grouped = p.groupSize != 0;
  const int64_t wordsPerRow = p.k / p.kLanes;
  const int64_t headerWords = linearHeaderWords(p);
  // The widths st_linear declares (docs/numerics.md §3).
  const int64_t prodBits = p.weightBits + p.activationBits;
  const int64_t dotBits = prodBits + ceilLog2(p.kLanes);
  const int64_t scaledBits = grouped ? dotBits + kGroupScaleBits : dotBits;
  const int64_t sumBits = scaledBits + ceilLog2(wordsPerRow);
  const int64_t biasedBits = std::max<int64_t>(sumBits, 48) + 1;
  const int64_t mulBits = biasedBits + 24;
  const int64_t rndBits = std::max<int64_t>(mulBits, 63) + 1;
  const int64_t xEntryBits = p.kLanes * p.activationBits;
  const int64_t xBufBits = wordsPerRow * xEntryBits;
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  // Yosys splits a signed multiplier into DSP48E2s in chunks of about 17 x 24 bits (fitted:
  // 4x8, 8x16 and 16x17 take one, the 49x25 requantization product six).
  auto dspsForProduct = [&](int64_t a, int64_t b) { return ceilDiv(a, 17) * ceilDiv(b, 24); };

  ResourceEstimate r;
  r.dsp = p.rows * p.kLanes * dspsForProduct(p.weightBits, p.activationBits) +
          (grouped ? p.rows * dspsForProduct(dotBits, 17) : 0) +
          p.rows * dspsForProduct(biasedBits, 25);

  // Registers: word and x read registers, products, per row the pipeline (dot, mantissas,
  // scaled, accumulator, biased, mantissa/shifts, product, rounded, output), both header
  // registers, x assembly, the output register slice and the counters.
  const int64_t perRowFf = dotBits + (grouped ? 2 * kGroupScaleBits : 0) + scaledBits + sumBits +
                           biasedBits + 24 + 3 * 6 + mulBits + rndBits + p.outputBits;
  const int64_t headerFf = (headerWords > 1 ? headerWords * p.wordBits : p.rows * kRowParamBits) +
                           p.rows * kRowParamBits;
  r.ff = p.wordBits + xEntryBits + p.rows * p.kLanes * prodBits + p.rows * perRowFf + headerFf +
         (p.kLanes - p.lanes) * p.activationBits + 2 * p.rows * p.outputBits + 40;

  // LUTs: per MAC lane the adder-tree share and operand routing (4 per product bit), per row
  // the requantizer (rounding adder, 64-way arithmetic shift, saturation: 10 per bit of the
  // rounded product). Centred on four Yosys runs (W4A8 g32 (Rows, KLanes) = (4,16), (4,8),
  // (2,16); W8A8 per channel (4,16)): ratios 0.86..1.13. Yosys itself moved by 30 % on one of
  // them between two equivalent elaborations, so no closer fit is meaningful. The x buffer:
  // LUTRAM (RAM32M16: 14 bits x 32 per 8 LUTs) below 16 Kbit, else BRAM36 (512 x 72).
  r.lut = 4 * prodBits * p.rows * p.kLanes + p.rows * 10 * rndBits;
  if (xBufBits < 16384)
    r.lut += 8 * ceilDiv(xEntryBits, 14) * ceilDiv(wordsPerRow, 32);
  else
    r.bram36 = double(ceilDiv(xEntryBits, 72) * ceilDiv(wordsPerRow, 512));
  return r;
}

} // namespace st::model
