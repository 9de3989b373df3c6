// Timing and resource model of st_softmax (see softmax_model.h).
#include "model/softmax_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "support/int_math.h"

namespace st::model {

namespace {

int64_t vectorLength(const SoftmaxParams &p) {
  return runtimeVectorLength(p.length, p.maxLen, "softmax");
}

/// Block RAM for a width x depth buffer: RAMB36 as 512x72, 1Kx36, 2Kx18, 4Kx9 (or RAMB18 at
/// half the depth), whichever needs the fewest; buffers under 1 Kb go to LUTRAM (0 here).
double bramFor(int64_t width, int64_t depth) {
  if (width * depth <= 1024)
    return 0;
  double best = 1e18;
  // RAMB36E2 depth per width: 512x72, 1024x36, 2048x18, 4096x9, 8192x4, 16384x2, 32768x1.
  const int64_t widths[] = {72, 36, 18, 9, 4, 2, 1};
  const int64_t depths[] = {512, 1024, 2048, 4096, 8192, 16384, 32768};
  for (int i = 0; i < 7; ++i) {
    const double tiles = double(ceilDiv(width, widths[i]) * ceilDiv(depth, depths[i]));
    // A RAMB18 (half a RAMB36: half the depth, at most 36 wide) when it is enough.
    const double halves = (widths[i] <= 36 && depth <= depths[i] / 2) ? tiles * 0.5 : tiles;
    best = std::min(best, halves);
  }
  return best;
}

} // namespace

int64_t softmaxLengthBits(const SoftmaxParams &p) {
  return ceilLog2(p.maxLen + 1);
}
int64_t softmaxConfigBits(const SoftmaxParams &p) {
  return softmaxLengthBits(p) + 30;
}

KernelTiming softmaxTiming(const SoftmaxParams &p) {
  using P = SoftmaxPipeline;
  const int64_t tokens = ceilDiv(vectorLength(p), p.lanes);
  // Pass 1: config at 0, logits at 1..T; the last token's maximum merges in T+1.
  const int64_t firstSumRead = tokens + 1 + P::kMaxMerge;
  // Pass 2: the last read's e reaches the accumulator; S is final kSumStages later.
  const int64_t sumFinal = firstSumRead + (tokens - 1) + P::kReadToE + P::kSumStages;
  // The reciprocal starts in that cycle; the state machine sees its result one cycle later.
  // Without normalization the weight pass reads right away, where pass 2 would.
  const int64_t firstNormalizeRead = p.normalized ? sumFinal + P::kReciprocal + 1 : firstSumRead;
  KernelTiming t;
  t.firstOutputDelay = firstNormalizeRead + P::kReadToE + P::kNormalize + P::kOutSlice;
  t.ii = 1;
  t.totalLatency = t.firstOutputDelay + tokens - 1;
  t.outputTokens = tokens;
  t.inputTokens = {1, tokens};
  t.inputTokensNeeded = {[](int64_t) { return int64_t(1); }, [tokens](int64_t) { return tokens; }};
  return t;
}

int64_t softmaxNormValidCycle(const SoftmaxParams &p) {
  using P = SoftmaxPipeline;
  const int64_t tokens = ceilDiv(vectorLength(p), p.lanes);
  // The weight pass reads from T + 2; its last weight is summed as pass 2's last e would be.
  const int64_t lastRead = tokens + 1 + P::kMaxMerge + tokens - 1;
  return lastRead + P::kReadToE + P::kSumStages + P::kReciprocal;
}

namespace {

/// Per exponent lane (see softmaxResources), without normalization's e * R.
ResourceEstimate expLane(int64_t in, bool normalized) {
  ResourceEstimate r;
  // LUTs: subtract (InBits), rounding barrel shift of the InBits+25-bit product by 0..63 (six
  // 2:1 mux levels, as Yosys maps a shift) and its rounding adder, saturation of n, two 129x21
  // table reads (2 LUTs per bit each), interpolation adder and rounding (~60), the e shift (34
  // bits, six levels) and its rounding adder, the p shift and rounding (18 bits). Without
  // normalization the p shift and rounding give way to the weight's rounding adder.
  r.lut = in + 6 * (in + 25) + (in + 25) + 10 + 2 * 21 * 2 + 60 + 6 * 34 + 34 +
          (normalized ? 3 * 18 + 18 : 17);
  // FFs: the stage registers B..I of one lane, less the two multiplier outputs (absorbed into
  // the DSPs' P registers).
  r.ff = in + 22 + (2 * 21 + 9 + 6) + (21 + 6) + 33 + 16;
  // DSPs: InBits x 24 (scale), 33 x 32 (e * R) and 22 x 10 (interpolation) multiplies, tiled
  // as Yosys does: 26-bit by 17-bit unsigned pieces of a DSP48E2. Without normalization there
  // is no e * R.
  r.dsp =
      ceilDiv(in, 26) * ceilDiv(24, 17) + (normalized ? ceilDiv(33, 26) * ceilDiv(32, 17) : 0) + 1;
  return r;
}

} // namespace

ResourceEstimate softmaxExpLaneResources(int64_t inBits) {
  return expLane(inBits, false);
}

ResourceEstimate softmaxReciprocalResources(int64_t sumBits) {
  // Leading-one detect, two normalizing shifts of S, 257x18 table reads, interpolation, and the
  // Newton step's 32x18 and 18x49 multiplies (DSPs).
  ResourceEstimate r;
  r.lut = 2 * sumBits * 3 + 2 * 18 * 4 + 60 + 120;
  r.ff = sumBits + 6 * 6 + 17 + 3 * 32 + 2 * 18 + 8 + 18 + 49 + 18 + 32 + 6 + 6;
  r.dsp = ceilDiv(32, 26) * ceilDiv(18, 17) + ceilDiv(49, 26) * ceilDiv(18, 17);
  return r;
}

ResourceEstimate softmaxResources(const SoftmaxParams &p) {
  const int64_t lanes = p.lanes, in = p.inBits;
  const int64_t lenBits = softmaxLengthBits(p);
  const int64_t depth = ceilDiv(p.maxLen, lanes);
  const int64_t addrBits = std::max<int64_t>(1, ceilLog2(depth));
  const int64_t sumBits = 33 + ceilLog2(p.maxLen);
  const int64_t leaves = int64_t(1) << ceilLog2(lanes);
  ResourceEstimate r;
  const ResourceEstimate lane = expLane(in, p.normalized);
  r.lut = lanes * lane.lut;
  r.ff = lanes * lane.ff;
  r.dsp = lanes * lane.dsp;
  // Lane max tree and running max (pass 1), lane sum and S accumulator (pass 2).
  r.lut += (leaves - 1) * (3 * in / 2) + in + (lanes - 1) * (33 + ceilLog2(lanes)) + sumBits;
  r.ff += 2 * in + (33 + ceilLog2(lanes)) + sumBits;
  // Without normalization: the weight registers (stage H) and their sum.
  if (!p.normalized) {
    r.lut += (lanes - 1) * (16 + ceilLog2(lanes)) + sumBits - 17;
    r.ff += lanes * 16 + sumBits - 17 + 1;
  }
  r += softmaxReciprocalResources(sumBits);
  // Buffer of the logits.
  r.bram36 = bramFor(lanes * in, depth);
  // Control: config register, counters, pipeline control (9 stages x (Lanes + 4) bits, the
  // per-vector operands A..C), output slice (two Lanes*16 registers). The buffer's read
  // register is inside the block RAM.
  r.lut += 4 * lenBits + 3 * addrBits + 20 + lanes * 16;
  r.ff += (lenBits + 30) + 2 * lenBits + 2 * addrBits + lenBits + 30 + 9 * (lanes + 4) +
          (in + 2 * 24 + 3 * 6) + 2 * lanes * 16 + 8;
  return r;
}

} // namespace st::model
