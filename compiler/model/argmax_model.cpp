// Timing and resource model of st_argmax (see argmax_model.h).
#include "model/argmax_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "support/int_math.h"

namespace st::model {

namespace {

int64_t vectorLength(const ArgmaxParams &p) {
  return runtimeVectorLength(p.length, p.maxLen, "argmax");
}

} // namespace

int64_t argmaxIndexBits(const ArgmaxParams &p) {
  return p.maxLen > 1 ? ceilLog2(p.maxLen) : 1;
}
int64_t argmaxLengthBits(const ArgmaxParams &p) {
  return ceilLog2(p.maxLen + 1);
}

// Registered levels of the lane tree below its root (st_argmax's TreeStages).
int64_t argmaxTreeStages(const ArgmaxParams &p) {
  const int64_t levels = ceilLog2(p.lanes);
  return levels > 1 ? levels - 1 : 0;
}

KernelTiming argmaxTiming(const ArgmaxParams &p) {
  const int64_t tokens = (vectorLength(p) + p.lanes - 1) / p.lanes;
  // Stage 0 (the token registered), the tree's registered levels, stage 1 (the token's best
  // lane), then the running best into the output slice.
  const int64_t delay = tokens + 3 + argmaxTreeStages(p);
  KernelTiming t;
  t.firstOutputDelay = delay;
  t.totalLatency = delay;
  t.ii = std::max<int64_t>(tokens, 2);
  t.outputTokens = 1;
  t.inputTokens = {1, tokens};
  t.inputTokensNeeded = {[](int64_t) { return int64_t(1); }, [tokens](int64_t) { return tokens; }};
  return t;
}

ResourceEstimate argmaxResources(const ArgmaxParams &p) {
  const int64_t laneBits = p.lanes > 1 ? ceilLog2(p.lanes) : 1;
  const int64_t indexBits = argmaxIndexBits(p);
  const int64_t lenBits = argmaxLengthBits(p);
  const int64_t leaves = int64_t(1) << ceilLog2(p.lanes);
  // Per tree node: a signed comparator (about half a LUT per element bit, on the carry chain)
  // and a select of value and lane index (one LUT per bit).
  const int64_t treeLuts = (leaves - 1) * (3 * p.elemBits / 2 + laneBits);
  // Running best: comparator and value/index select; index adder; length/base counters and
  // the lane-valid compares; output slice mux.
  const int64_t bestLuts = 2 * p.elemBits + 2 * indexBits;
  const int64_t counterLuts = 2 * lenBits + indexBits + p.lanes * 2 + 2 * indexBits;
  ResourceEstimate r;
  r.lut = treeLuts + bestLuts + counterLuts;
  // Registers: config length, remaining, base, stage 0 (the token, its lane-valid bits, base,
  // flags), the tree's registered nodes (every internal node but the root) and the flags and base
  // beside them, stage 1 (value, lane, base, flags), best value and index, the output slice
  // (two copies of the index), control.
  const int64_t stage0 = p.lanes * p.elemBits + p.lanes + indexBits + 3;
  // A registered node at depth d (1 .. levels-1) covers 2^(levels-d) lanes: its lane index has
  // levels-d varying bits (the rest are constants synthesis drops).
  const int64_t levels = ceilLog2(leaves);
  int64_t treeRegs = 0;
  for (int64_t d = 1; d < levels; ++d)
    treeRegs += (int64_t(1) << d) * (p.elemBits + (levels - d) + 1);
  // The flags and base beside the tree: the valid bit resets (flip-flops); the others are a
  // plain delay line, which synthesis maps to one SRL16E a bit (a LUT) from three stages on.
  const int64_t stages = argmaxTreeStages(p);
  treeRegs += stages;
  if (stages >= 3)
    r.lut += indexBits + 2;
  else
    treeRegs += stages * (indexBits + 2);
  r.ff = 2 * lenBits + indexBits + stage0 + treeRegs + (p.elemBits + laneBits + indexBits + 3) +
         (p.elemBits + indexBits) + 2 * indexBits + 6;
  return r;
}

} // namespace st::model
