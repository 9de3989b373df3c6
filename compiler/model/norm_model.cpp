// Timing and resource model of st_norm (see norm_model.h). The timing follows the template's
// pipeline exactly; the resources count its registers and arithmetic part by part.
#include "model/norm_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/int_math.h"

namespace st::model {

namespace {

/// DSP48E2 slices for a signed a x b multiply (27 x 18 signed primitive, as synth_xilinx
/// splits wider operands into 26- and 17-bit unsigned chunks). Small products go to LUTs.
int64_t dspForMultiply(int64_t aBits, int64_t bBits) {
  if (aBits < bBits)
    std::swap(aBits, bBits);
  if (bBits <= 9 && aBits <= 18)
    return 0; // Yosys maps products this small to LUTs
  if (aBits <= 27 && bBits <= 18)
    return 1;
  return ceilDiv(aBits - 1, 26) * ceilDiv(bBits - 1, 17);
}

/// The template's localparams.
struct NormWidths {
  int64_t tokens, ptr, addr, nBits, paramBits, betaBits, sum1, square, sum2, spread, d, u, ur, z,
      zg, p, clamp;
};

NormWidths widthsOf(const NormParams &p) {
  NormWidths w{};
  w.tokens = p.n / p.lanes;
  w.ptr = w.tokens > 1 ? ceilLog2(w.tokens) : 1;
  w.addr = ceilLog2(2 * w.tokens);
  w.nBits = ceilLog2(p.n + 1);
  w.betaBits = p.layerNorm ? p.outBits + 8 : 0;
  w.paramBits = 16 + w.betaBits;
  w.sum1 = p.inBits + w.nBits;
  w.square = 2 * p.inBits - 1;
  w.sum2 = w.square + w.nBits;
  w.spread = w.sum2 + w.nBits;
  w.d = std::max<int64_t>(w.spread, 48) + 1;
  w.u = p.layerNorm ? p.inBits + w.nBits + 1 : p.inBits;
  w.ur = w.u + 19;
  w.z = p.layerNorm ? (w.nBits + 1) / 2 + 19 : 19;
  w.zg = w.z + 16;
  w.p = w.zg + 25;
  w.clamp = p.outBits + 10;
  return w;
}

} // namespace

void checkNormParams(const NormParams &p) {
  if (p.lanes < 1 || p.n < 1 || p.n > 16384 || p.n % p.lanes != 0)
    throw std::invalid_argument("st_norm: N must be 1 .. 16384 and a multiple of Lanes >= 1");
  if (p.inBits < 2 || p.inBits > 16 || p.outBits < 2 || p.outBits > 16)
    throw std::invalid_argument("st_norm: InBits and OutBits must be 2 .. 16");
}

int64_t normTokens(const NormParams &params) {
  checkNormParams(params);
  return params.n / params.lanes;
}

KernelTiming normTiming(const NormParams &params) {
  const int64_t tokens = normTokens(params);
  KernelTiming t;
  // Last input at T - 1; first read kNormFinalizeCycles later; output kNormPass2Cycles after.
  t.firstOutputDelay = tokens - 1 + kNormFinalizeCycles + kNormPass2Cycles;
  t.ii = 1;
  t.totalLatency = t.firstOutputDelay + tokens - 1;
  t.outputTokens = tokens;
  t.inputTokens = {tokens, tokens};
  t.inputTokensNeeded = {[tokens](int64_t) { return tokens; }, [](int64_t k) { return k + 1; }};
  return t;
}

int64_t normVectorStartCycle(const NormParams &params, int64_t index) {
  const int64_t tokens = normTokens(params);
  // start[j]: first input handshake; read[j]: first pass-2 read. A bank is writable again the
  // cycle after the last read of the vector it held.
  std::vector<int64_t> start, read;
  for (int64_t j = 0; j <= index; ++j) {
    int64_t s = 0;
    if (j > 0)
      s = start[j - 1] + tokens; // the input is busy until the previous vector is in
    if (j > 1)
      s = std::max(s, read[j - 2] + tokens); // the bank of vector j - 2 is free
    start.push_back(s);
    int64_t r = s + tokens - 1 + kNormFinalizeCycles;
    if (j > 0)
      r = std::max(r, read[j - 1] + tokens); // pass 2 reads one vector at a time
    read.push_back(r);
  }
  return start[index];
}

ResourceEstimate normResources(const NormParams &params) {
  checkNormParams(params);
  const NormWidths w = widthsOf(params);
  const int64_t lanes = params.lanes;
  const int64_t in = params.inBits, out = params.outBits;
  ResourceEstimate r;

  // ---- DSPs: per lane square, u*R, z*gamma, z*gamma*M; finalize N*S2, S1^2; rsqrt slope*r.
  // N*x and N*S2 are constant multiplies: shifts and adds when N has at most two set bits.
  int64_t nSetBits = 0;
  for (int64_t v = params.n; v; v >>= 1)
    nSetBits += v & 1;
  const bool constantInLuts = nSetBits <= 2;
  int64_t laneDsp = dspForMultiply(in, in) + dspForMultiply(w.u, 19) + dspForMultiply(w.z, 16) +
                    dspForMultiply(w.zg, 25);
  if (params.layerNorm && !constantInLuts)
    laneDsp += dspForMultiply(in, w.nBits + 1);
  int64_t sharedDsp = dspForMultiply(19, 10);
  if (params.layerNorm) {
    sharedDsp += dspForMultiply(w.sum1, w.sum1);
    if (!constantInLuts)
      sharedDsp += dspForMultiply(w.sum2, w.nBits + 1);
  }
  r.dsp = lanes * laneDsp + sharedDsp;

  // ---- FFs: the template's registers, less those the synthesizer absorbs: single-DSP product
  // registers (squares, z*gamma) and the multi-stage chains of carried per-vector values, which
  // become SRL16 shift registers (counted as LUTs below).
  const int64_t tokenBits = lanes * in;
  const int64_t carriedChains = lanes * w.paramBits + 24 + 6 + 6; // params/beta, M, shift, k+1
  int64_t ff = 0;
  ff += 2 * (1 + w.ptr) + 4;                                              // bank pointers and flags
  ff += 2 * (48 + 24 + 6 + 18 + 6) + (params.layerNorm ? 2 * w.sum1 : 0); // per-bank scalars
  ff += 3 * 4 + 2 * tokenBits;                                            // p1, p2
  ff += 2 * (w.sum1 + w.sum2);                                            // p3 sums, accumulators
  ff += 2 + w.sum1 + w.sum2 + 2 + 2 * w.spread + 48 + 2 + w.d;            // f0, f1, f2
  ff += (w.d + 8) + (20 + 8) + (18 + 8) + (2 * 18 + 9 + 8) + (18 + 8);    // rsqrt unit stages
  ff += 8 + tokenBits + (params.layerNorm ? w.sum1 : 0) + 2 * 18;         // s1 (+ root in s2)
  ff += lanes * (w.u + w.ur / 2 + w.z + w.p + w.clamp + 1 + out);         // lane stages
  ff += 2 + 2 * lanes * out;                                              // output slice
  r.ff = ff;

  // ---- LUTs: one LUT per adder/comparator bit (CARRY8 chains), about two mux bits per LUT in
  // the variable shifters, the rsqrt ROM in LUTs (two read ports, 385 x 18; Yosys keeps a ROM
  // this small out of BRAM), the SRL chains, the buffer (LUTRAM: RAM32M16 columns of 14 bits;
  // registers when it has at most 8 words), and control.
  int64_t lane = 0;
  lane += params.layerNorm ? w.u * (nSetBits + 1) : 0; // u = N*x - S1 (shift-adds)
  lane += 2 * (w.ur + 1) + (w.ur + 1) * 6 / 2;         // z: bias add, 6-level shifter
  lane += w.p * 7 / 2 + w.p + 2 * w.p + w.clamp;       // Ph shifter, sticky, clamp
  lane += (w.clamp + 1) * 5 + out;                     // A, rounding, saturation
  lane += w.sum1 + w.sum2;                             // this lane's share of the sums
  int64_t lut = lanes * lane;
  lut += 2 * (w.sum1 + w.sum2) + w.sum1;                // accumulators, |S1|
  lut += w.spread + 2 * w.d;                            // N*S2 - S1^2 + eps, max(D, 1)
  lut += w.d + (w.d + 18) * 6 / 2 + 18;                 // leading one, normalizer, offset
  lut += 2 * 18 * ceilDiv(385, 64) + 19 + 29 + 29 + 18; // ROM, interpolation
  lut += carriedChains + 80;                            // SRLs, control
  const int64_t depth = 2 * w.tokens;
  const int64_t bufferBits = depth * tokenBits;
  if (depth > 8 && !(depth <= 256 && bufferBits <= 8192)) {
    r.bram36 = std::max<double>(0.5, ceilDiv(bufferBits, 36 * 1024));
  } else if (depth > 8) {
    lut += 8 * ceilDiv(depth, 32) * ceilDiv(tokenBits, 14) + tokenBits; // RAM32M16 + read mux
  } else {
    lut += tokenBits; // write-enable / read mux per bit
  }
  r.lut = lut;
  return r;
}

} // namespace st::model
