// Timing and resource model of st_rope (see rope_model.h).
#include "model/rope_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "support/int_math.h"

namespace st::model {

namespace {

void require(bool ok, const std::string &what) {
  if (!ok)
    throw std::invalid_argument("st_rope parameters: " + what);
}

/// DSP48E2 count of an a x b bit multiplier as Yosys synth_xilinx tiles it: the wider operand in
/// 17-bit chunks (the B port), the narrower in 26-bit chunks (the A port). Measured: 48 x 16
/// unsigned -> 3, 26 x 25 signed -> 2, 19 x 23 -> 2, 8 x 17 -> 1.
int64_t multiplierDsps(int64_t aBits, int64_t bBits) {
  if (aBits < bBits)
    std::swap(aBits, bBits);
  return ceilDiv(aBits, 17) * ceilDiv(bBits, 26);
}

} // namespace

int64_t ropeHeadTokens(const RopeParams &p) {
  return p.headDim / p.lanes;
}

void checkRopeParams(const RopeParams &p) {
  require(p.numHeads >= 1, "NumHeads must be >= 1");
  require(p.headDim >= 2 && p.headDim % 2 == 0 && p.lanes >= 1 && (p.headDim / 2) % p.lanes == 0,
          "HeadDim must be even and HeadDim/2 a multiple of Lanes >= 1");
  require(p.inBits >= 2 && p.inBits <= 16 && p.outBits >= 2 && p.outBits <= 16,
          "InBits and OutBits must be 2 .. 16");
  require(p.posBits >= 1 && p.posBits <= 32, "PosBits must be 1 .. 32");
  require(p.numTables >= 1, "NumTables must be >= 1");
}

KernelTiming ropeTiming(const RopeParams &p) {
  checkRopeParams(p);
  const int64_t t = ropeHeadTokens(p);
  const int64_t tokens = p.numHeads * t;
  KernelTiming timing;
  timing.firstOutputDelay = t + kRopePipelineDepth;
  timing.ii = 1;
  timing.totalLatency = timing.firstOutputDelay + tokens - 1;
  timing.outputTokens = tokens;
  timing.inputTokens = {tokens};
  timing.inputTokensNeeded = {[t, tokens](int64_t k) { return std::min((k / t + 1) * t, tokens); }};
  return timing;
}

ResourceEstimate ropeResources(const RopeParams &p) {
  checkRopeParams(p);
  const int64_t t = ropeHeadTokens(p);
  const int64_t half = p.headDim / 2;
  const int64_t sumBits = p.inBits + 17 + 1, scaledBits = sumBits + 25;
  ResourceEstimate r;

  // Head buffer: 2 banks of T tokens, one write and two read ports. Distributed RAM: per
  // 64-deep slice one LUT per bit and read port (+ the write port's copy).
  const int64_t tokenBits = p.lanes * p.inBits;
  const int64_t slices = ceilDiv(2 * t, 64);
  r.lut += slices * tokenBits * 3 + tokenBits * 2 * (slices > 1 ? 2 : 0);
  // Phase-increment ROM: numTables * headDim/2 entries of 48 bits, Lanes read ports, in LUTs
  // (one LUT6 covers 64 entries of one bit per port).
  r.lut += p.lanes * 48 * ceilDiv(p.numTables * half, 64);

  // Control: counters, bank flags, per-bank sideband (position, select, multiplier).
  const int64_t sideBits = p.posBits + std::max<int64_t>(1, ceilLog2(p.numTables)) + 30;
  r.ff += 3 * sideBits + 2 * ceilLog2(2 * t) + ceilLog2(p.numHeads + 1) + 16;
  r.lut += 3 * sideBits + 40;

  // Per lane.
  ResourceEstimate lane;
  // s1 registers: own and partner codes, phase increment; s2 phase (p * inc mod 2^48).
  lane.ff += 2 * p.inBits + 48 + 48;
  lane.dsp += multiplierDsps(48, p.posBits);
  lane.lut += 48; // partial-product additions of the tiled multiplier
  // Phase rounding to Q0.32 and 1 - w: two 31-bit adders.
  lane.lut += 32 + 31;
  // Two quarter-sine st_pwl_table: a 257 x 18 ROM in one RAMB18 each, the 19 x 22 slope
  // product (19 x 23 bits) in DSPs, rounding and sum in fabric; registers of both stages.
  lane.bram36 += 2 * 0.5;
  lane.dsp += 2 * multiplierDsps(19, 23);
  lane.lut += 2 * (19 + 22 + 19);
  lane.ff += 2 * (18 + 18 + 22 + 18);
  // s5 quadrant map: two 17-bit negations and muxes; sin, cos registers.
  lane.lut += 2 * 17 * 2;
  lane.ff += 2 * 17 + 4;
  // Codes delayed s2..s5.
  lane.ff += 4 * 2 * p.inBits;
  // s6 products (InBits x 17 each: one DSP, the product register is the DSP's), s7
  // add/subtract.
  lane.dsp += 2 * multiplierDsps(p.inBits, 17);
  lane.ff += sumBits;
  lane.lut += sumBits;
  // s8 * mantissa (SumBits x 25) and s9 rounding shift (6-level barrel shifter) + saturation.
  // (the s8 register is the DSPs' output register).
  lane.dsp += multiplierDsps(sumBits, 25);
  lane.ff += p.outBits;
  lane.lut += scaledBits * 6 + scaledBits + p.outBits * 2;
  for (int64_t i = 0; i < p.lanes; ++i)
    r += lane;

  // Sideband delay lines (multiplier 24 + shift 6 bits over 6-7 stages) and valid bits.
  r.ff += 24 * 6 + 6 * 7 + 16;
  // Output register slice: two token registers and a mux.
  r.ff += 2 * p.lanes * p.outBits + 2;
  r.lut += p.lanes * p.outBits + 4;
  return r;
}

} // namespace st::model
