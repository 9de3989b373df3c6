// Timing and resource model of st_reduce (see reduce_model.h).
//
// Resources are counted per datapath part of the template, coefficients checked against Yosys
// synth_xilinx -family xcup by the synth.reduce.*.estimate test:
//   - per output element the combination over the ReduceLanes elements of a token: ReduceLanes
//     - 1 adders (one LUT per bit) or compare-and-select steps (about two LUTs per bit);
//   - the running combination over tokens with its first-token select (sum: one LUT per bit,
//     max: two) and, when AccBits > OutBits or the output is unsigned, the saturation (about 3 LUTs
//     per AccBits bit);
//   - registers: partials, accumulators, results, the token counter and the output register
//     slice (two copies of the output token, a select LUT per bit).
#include "model/reduce_model.h"

#include <algorithm>

#include "support/int_math.h"

namespace st::model {

namespace {
bool isMax(const ReduceParams &p) {
  return p.combiner == ReduceCombiner::Max;
}
int64_t inExt(const ReduceParams &p) {
  return p.inBits + !p.inSigned;
}
int64_t partBits(const ReduceParams &p) {
  return isMax(p) ? inExt(p) : inExt(p) + ceilLog2(p.reduceLanes);
}
} // namespace

int64_t reduceAccBits(const ReduceParams &p) {
  return isMax(p) ? inExt(p) : partBits(p) + ceilLog2(p.tokens);
}

KernelTiming reduceTiming(const ReduceParams &p) {
  return accumulatingTiming(p.outputTokens, p.tokens, 1); // Tokens inputs per output
}

ResourceEstimate reduceResources(const ReduceParams &p) {
  const int64_t cells = p.outerLanes * p.innerLanes, part = partBits(p), acc = reduceAccBits(p);
  const int64_t perBit = isMax(p) ? 2 : 1;
  int64_t cellLuts = (p.reduceLanes - 1) * part * perBit + acc * perBit;
  if (acc > p.outBits || !p.outSigned)
    cellLuts += 3 * acc;
  ResourceEstimate r;
  r.lut = cells * cellLuts + cells * p.outBits + 2 + ceilLog2(p.tokens) + 4;
  const int64_t outWidth = cells * p.outBits;
  r.ff = cells * (part + acc + p.outBits) + 2 * outWidth + 2 + 2 + ceilLog2(p.tokens);
  return r;
}

} // namespace st::model
