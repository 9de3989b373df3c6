// Timing and resource models of the element-wise kernels (see elementwise_model.h).
//
// Resources are counted per datapath part of the templates, with per-bit coefficients fitted
// once to Yosys synth_xilinx -family xcup (tests/rtl/elementwise prints estimate, counts and
// their ratio at one parameter set per template):
//   - st_round_shift of a w-bit value by a runtime shift to k = min(w, out) bits, with
//     saturation: about 3 LUTs per input bit (the round and range tests against the shift) and 3
//     per kept bit (the 64-way barrel shifter's outputs, q + 1 and the selection); the scales
//     are runtime inputs, so nothing constant-folds;
//   - a signed a x b multiply: ceil(a/26) * ceil(b/17) DSP48E2 (27x18 signed slices), plus
//     about one LUT per product bit per extra slice for the partial-product adders; st_scale_output
//     splits its w-bit value into 17-bit chunks, one DSP48E2 each, and adds the partial products
//     in the next stage;
//   - pipeline registers: the bits of every stage register not absorbed into a DSP;
//   - one RAMB18 per lane for the residual table (two read ports: T[i] and T[i+1]).
#include "model/elementwise_model.h"

#include <algorithm>

#include "support/int_math.h"

namespace st::model {

namespace {

int64_t tokens(int64_t n, int64_t lanes) {
  return std::max<int64_t>(1, ceilDiv(n, lanes));
}

/// D = depth, II = 1, L = depth + T - 1 on `ports` joined inputs of T tokens each.
KernelTiming pipelineTiming(int64_t depth, int64_t n, int64_t lanes, int ports) {
  KernelTiming t;
  const int64_t count = tokens(n, lanes);
  t.firstOutputDelay = depth;
  t.ii = 1;
  t.totalLatency = depth + count - 1;
  t.outputTokens = count;
  for (int p = 0; p < ports; ++p) {
    t.inputTokens.push_back(count);
    t.inputTokensNeeded.push_back([count](int64_t k) { return std::min(k + 1, count); });
  }
  return t;
}

/// DSP48E2 slices of a signed a x b multiply.
int64_t multiplyDsps(int64_t a, int64_t b) {
  if (a < b)
    std::swap(a, b);
  return ceilDiv(a, 26) * ceilDiv(b, 17);
}

/// Fabric adders joining the partial products of a multiply split over several slices.
int64_t multiplyLuts(int64_t a, int64_t b) {
  return (multiplyDsps(a, b) - 1) * (a + b) / 2;
}

/// st_round_shift: round and range tests, barrel shifter, increment and saturation.
int64_t roundShiftLuts(int64_t inWidth, int64_t outWidth) {
  return 3 * (inWidth + std::min(inWidth, outWidth));
}

/// st_scale_output's multiply of a w-bit value by the 25-bit mantissa: one DSP48E2 per 17-bit
/// chunk, and the adders of the partial products.
int64_t scaleMultiplyDsps(int64_t width) {
  return ceilDiv(width, 17);
}
int64_t scaleMultiplyLuts(int64_t width) {
  return (scaleMultiplyDsps(width) - 1) * (width + 25 - 17);
}

/// The partial products of st_scale_output's multiply: the w-bit value in 17-bit chunks, each
/// times the 25-bit mantissa.
int64_t partialProductFfs(int64_t width) {
  const int64_t chunks = ceilDiv(width, 17);
  if (chunks <= 2)
    return chunks * (17 + 25);
  // pair sums, then the low half of their sum with its carry and the two high parts
  const int64_t product = width + 25, low = 34 + (product - 33) / 2;
  return chunks * (17 + 25) + ceilDiv(chunks, 2) * (17 + 17 + 25) + low + 1 + 2 * (product - low);
}

/// The output register slice (st_skid_buffer) of `width` bits.
ResourceEstimate outputSlice(int64_t width) {
  ResourceEstimate r;
  r.lut = width + 2;
  r.ff = 2 * width + 2;
  return r;
}

/// st_activation_unit: range detect and the offset, interpolation (one DSP), h rounding,
/// relu - h; the table in one RAMB18.
ResourceEstimate activationUnit() {
  ResourceEstimate r;
  r.lut = 32 + 8 + 40 + 17 + 64;
  // offset, x and range beside the offset and the table, T[i], T[i+1], r, value, y
  r.ff = 15 + 3 * 33 + 16 + 6 + 16 + 32;
  r.dsp = 1;
  r.bram36 = 0.5;
  return r;
}

} // namespace

int64_t roundShiftStageFfs(int64_t inWidth, int64_t outWidth) {
  const int64_t keep = std::min(inWidth, outWidth);
  const int64_t high = outWidth > inWidth ? 1 : inWidth - outWidth + 1;
  const int64_t stage1 = keep + 1 + ceilDiv(inWidth + 1, 3) + ceilDiv(high, 3) + 1;
  const int64_t stage2 = 2 * keep + 4;
  return stage1 + stage2;
}

ElementwiseFunction elementwiseFunctionOf(ir::ActivationKind kind) {
  switch (kind) {
  case ir::ActivationKind::GeluErf:
    return ElementwiseFunction::GeluErf;
  case ir::ActivationKind::GeluTanh:
    return ElementwiseFunction::GeluTanh;
  case ir::ActivationKind::Silu:
    return ElementwiseFunction::Silu;
  }
  return ElementwiseFunction::GeluErf;
}

ElementwiseFunction elementwiseFunctionOf(ir::GatedKind kind) {
  return kind == ir::GatedKind::SwiGLU ? ElementwiseFunction::Silu : ElementwiseFunction::GeluTanh;
}

KernelTiming activationTiming(const ActivationParams &p) {
  return pipelineTiming(kActivationDepth, p.n, p.lanes, 1);
}
KernelTiming gatedActivationTiming(const GatedActivationParams &p) {
  return pipelineTiming(kGatedActivationDepth, p.n, p.lanes, 2);
}
KernelTiming requantizeTiming(const RequantizeParams &p) {
  // more than two 17-bit chunks of the value: the pair sums and the low half are two stages
  return pipelineTiming(kRequantizeDepth + (p.inBits > 34 ? 2 : 0), p.n, p.lanes, 1);
}
KernelTiming residualAddTiming(const ResidualAddParams &p) {
  return pipelineTiming(kResidualAddDepth, p.n, p.lanes, 2);
}

ResourceEstimate activationResources(const ActivationParams &p) {
  const int64_t inProduct = p.inBits + 25, outProduct = 57;
  ResourceEstimate lane = activationUnit();
  lane.lut += roundShiftLuts(inProduct, 32) + roundShiftLuts(outProduct, p.outBits) +
              multiplyLuts(p.inBits, 25) + scaleMultiplyLuts(32);
  lane.dsp += multiplyDsps(p.inBits, 25) + scaleMultiplyDsps(32);
  // product, its rounding stages, Q.11, partial products, product, its rounding stages, code
  lane.ff += inProduct + roundShiftStageFfs(inProduct, 32) + 32 + partialProductFfs(32) +
             outProduct + roundShiftStageFfs(outProduct, p.outBits) + p.outBits;
  ResourceEstimate r;
  for (int64_t l = 0; l < p.lanes; ++l)
    r += lane;
  r += outputSlice(p.lanes * p.outBits);
  r.ff += 13 + 6 + 8 * 24 + 10 * 6; // valid bits, scales travelling with the tokens
  r.lut += 8;
  return r;
}

ResourceEstimate gatedActivationResources(const GatedActivationParams &p) {
  const int64_t inProduct = p.inBits + 25, gated = 64, outProduct = 89;
  ResourceEstimate lane = activationUnit();
  lane.lut += 2 * roundShiftLuts(inProduct, 32) + roundShiftLuts(outProduct, p.outBits) +
              2 * multiplyLuts(p.inBits, 25) + multiplyLuts(32, 32) + 47 + scaleMultiplyLuts(gated);
  lane.dsp += 2 * multiplyDsps(p.inBits, 25) + multiplyDsps(32, 32) + scaleMultiplyDsps(gated);
  // products, their rounding stages, both Q.11 values, up beside the function (4 stages), g*u
  // (its two partial products, 50 + 47 bits, and the sum), partial products, product, its
  // rounding stages, code
  lane.ff += 2 * inProduct + 2 * roundShiftStageFfs(inProduct, 32) + 2 * 32 + 4 * 32 + 50 + 47 +
             gated + partialProductFfs(gated) + outProduct +
             roundShiftStageFfs(outProduct, p.outBits) + p.outBits;
  ResourceEstimate r;
  for (int64_t l = 0; l < p.lanes; ++l)
    r += lane;
  r += outputSlice(p.lanes * p.outBits);
  r.ff += 17 + 2 * 6 + 10 * 24 + 14 * 6;
  r.lut += 10;
  return r;
}

ResourceEstimate requantizeResources(const RequantizeParams &p) {
  const int64_t product = p.inBits + 25;
  ResourceEstimate lane;
  lane.lut = roundShiftLuts(product, p.outBits) + scaleMultiplyLuts(p.inBits);
  lane.dsp = scaleMultiplyDsps(p.inBits);
  lane.ff =
      partialProductFfs(p.inBits) + product + roundShiftStageFfs(product, p.outBits) + p.outBits;
  ResourceEstimate r;
  for (int64_t l = 0; l < p.lanes; ++l)
    r += lane;
  r += outputSlice(p.lanes * p.outBits);
  const int64_t sumStages = p.inBits > 34 ? 3 : 1;
  r.ff += 4 + sumStages + (1 + sumStages) * 6; // valid bits, the shift travelling
  r.lut += 4;
  return r;
}

ResourceEstimate residualAddResources(const ResidualAddParams &p) {
  const int64_t code = std::max(p.aBits, p.bBits), product = code + 25;
  ResourceEstimate lane;
  // operand swap muxes, sign probe (shift + add), X = P - sign, alignment shift (two
  // variants), t + Q, final rounding shift with saturation
  lane.lut = 2 * code + 4 * product + product + 5 * product + product +
             roundShiftLuts(product + 3, p.outBits) + 2 * multiplyLuts(code, 25);
  lane.dsp = 2 * multiplyDsps(code, 25);
  // P (three stages) and P >>> d, Q (five stages), the sign, X, {X, 0} >>> d, t + Q, its
  // rounding stages, code
  lane.ff = product + 3 * (product + 1) + 5 * product + 1 + (product + 1) + (product + 2) +
            (product + 3) + roundShiftStageFfs(product + 3, p.outBits) + p.outBits;
  ResourceEstimate r;
  for (int64_t l = 0; l < p.lanes; ++l)
    r += lane;
  r += outputSlice(p.lanes * p.outBits);
  r.ff += 9 + 3 + 4 * 6 + 6 * 6; // valid bits, s > 0, d and sq travelling
  r.lut += 20;
  return r;
}

} // namespace st::model
