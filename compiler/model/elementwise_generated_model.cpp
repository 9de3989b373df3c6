// Timing and resource model of generated element-wise kernels (see
// elementwise_generated_model.h).
//
// Resources come from the body's datapath as ir::analyzeElementwise sizes it (the emitter's
// own analysis, so model and RTL agree on every width), once per output element of the tile.
// Per-node costs were measured with Yosys synth_xilinx -family xcup on single-node modules of
// 16-bit inputs (LUTs beyond an identity module):
//   - add, sub, abs, relu: one LUT per result bit (the carry chain does the rest); neg: none
//     (it folds into the inverters and carry chain of what reads it);
//   - max, min: a comparison and a select in the wider operand width: two LUTs per bit;
//   - mul, also by a constant (Yosys maps both to DSP48E2): ceil(wa/26) * ceil(wb/17) slices
//     (27x18 signed), plus a LUT per result bit when it takes more than one slice;
//   - shr_round(x, s): conditional negate, add the half, negate back: 1.5 LUTs per bit of the
//     widened width;
//   - the saturation: half a LUT per result bit per bound the range crosses, plus the select;
// and registers: the result tile, the valid bit and the output register slice (two copies of
// the tile and a select LUT per bit).
#include "model/elementwise_generated_model.h"

#include <algorithm>

#include "ir/elementwise_datapath.h"
#include "support/int_math.h"

namespace st::model {

namespace {
int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}
} // namespace

KernelTiming elementwiseGeneratedTiming(const ElementwiseGeneratedParams &p) {
  KernelTiming t;
  const int64_t count = std::max<int64_t>(1, p.tokens);
  t.firstOutputDelay = kGeneratedElementwiseDepth;
  t.ii = 1;
  t.totalLatency = kGeneratedElementwiseDepth + count - 1;
  t.outputTokens = count;
  for (size_t i = 0; i < p.inputTileShapes.size(); ++i) {
    t.inputTokens.push_back(count);
    t.inputTokensNeeded.push_back([count](int64_t k) { return std::min(k + 1, count); });
  }
  return t;
}

ResourceEstimate elementwiseGeneratedResources(const ElementwiseGeneratedParams &p) {
  using Kind = ir::ScalarExpr::Kind;
  const ir::ElementwiseDatapath d =
      ir::analyzeElementwise("model", p.body, p.inputTypes, p.outputType);
  ResourceEstimate element;
  for (const auto &n : d.nodes) {
    const int64_t w = n.width;
    auto opWidth = [&](size_t k) { return int64_t(d.nodes[n.operands[k]].width); };
    switch (n.kind) {
    case Kind::Input:
    case Kind::Constant:
      break;
    case Kind::Add:
    case Kind::Sub:
    case Kind::Abs:
    case Kind::Relu:
      element.lut += w;
      break;
    case Kind::Neg:
      break;
    case Kind::Max:
    case Kind::Min:
      element.lut += 2 * std::max(opWidth(0), opWidth(1));
      break;
    case Kind::Mul: {
      const int64_t a = std::max(opWidth(0), opWidth(1)), b = std::min(opWidth(0), opWidth(1));
      const int64_t dsps = ceilDiv(a, 26) * ceilDiv(b, 17);
      element.dsp += dsps;
      if (dsps > 1)
        element.lut += w;
      break;
    }
    case Kind::ShiftRightRound:
      element.lut += n.value == 0 ? 0 : 3 * (std::max<int64_t>(opWidth(0), n.value) + 2) / 2;
      break;
    }
  }
  const int64_t outBits = ir::bitWidth(p.outputType);
  const int64_t rootWidth = d.nodes.back().width;
  if (d.clampHigh || d.clampLow)
    element.lut += (int64_t(d.clampHigh) + int64_t(d.clampLow)) * rootWidth / 2 + outBits;

  const int64_t elements = elementCount(p.outputTileShape), width = elements * outBits;
  ResourceEstimate r;
  for (int64_t e = 0; e < elements; ++e)
    r += element;
  r.ff += width + 1 + 2 * width + 2; // result, valid, register slice
  r.lut += width + 2 + int64_t(p.inputTileShapes.size());
  return r;
}

} // namespace st::model
