// Timing and resource model of st_matmul (see matmul_model.h).
//
// Resources are counted per datapath part of the template, coefficients checked against Yosys
// synth_xilinx -family xcup by the synth.matmul.*.estimate test:
//   - TM*TN*TK signed ABits x BBits multiplies: ceil(max/26) * ceil(min/17) DSP48E2 each;
//   - per C element an adder tree of TK - 1 adders of DotBits (one LUT per bit), the
//     accumulator adder with its first-pair select (one LUT per bit) and, when AccBits > OutBits
//     or C is unsigned, the saturation (two comparisons and the select: about 3 LUTs per AccBits
//     bit);
//   - registers: dot products, accumulators, results, the pair counter and the output register
//     slice (two copies of the C tile, a select LUT per bit).
#include "model/matmul_model.h"

#include <algorithm>

#include "support/int_math.h"

namespace st::model {

int64_t matmulDotBits(const MatmulParams &p) {
  return p.aBits + p.bBits + ceilLog2(p.tk);
}
int64_t matmulAccBits(const MatmulParams &p) {
  return matmulDotBits(p) + ceilLog2(p.kTiles);
}

KernelTiming matmulTiming(const MatmulParams &p) {
  return accumulatingTiming(p.outputTiles, p.kTiles, 2); // KTiles A and B tiles per C tile
}

ResourceEstimate matmulResources(const MatmulParams &p) {
  const int64_t cells = p.tm * p.tn, dot = matmulDotBits(p), acc = matmulAccBits(p);
  const int64_t a = p.aBits + !p.aSigned, b = p.bBits + !p.bSigned;
  const int64_t wide = std::max(a, b), narrow = std::min(a, b);
  ResourceEstimate r;
  r.dsp = cells * p.tk * ceilDiv(wide, 26) * ceilDiv(narrow, 17);
  int64_t cellLuts = (p.tk - 1) * dot + acc;
  if (acc > p.outBits || !p.outSigned)
    cellLuts += 3 * acc;
  r.lut = cells * cellLuts + cells * p.outBits + 2 + ceilLog2(p.kTiles) + 4;
  const int64_t outWidth = cells * p.outBits;
  r.ff = cells * (dot + acc + p.outBits) + 2 * outWidth + 2 + 2 + ceilLog2(p.kTiles);
  return r;
}

} // namespace st::model
