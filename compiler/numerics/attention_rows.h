// Golden decode attention over KV caches in place, for the golden model's prefill (many rows,
// each attending to a long cache): the arithmetic of attention() and attentionTiled()
// (attention_golden.h), the same weights, sums, rescalings and output stage, with the cache
// read where it lies instead of copied into AttentionInputs, the s32 scores and the value sums
// in vectorizable loops, and a kv head's keys and values read once for all its query heads.
#pragma once

#include "attention_golden.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::numerics {

/// The operands of attention() as pointers: q (qSize codes), the cache rows (cacheLength *
/// kvSize codes each, position-major), kNew and vNew (kvSize codes).
struct AttentionView {
  const int32_t *q = nullptr;
  const int32_t *kCache = nullptr;
  const int32_t *vCache = nullptr;
  const int32_t *kNew = nullptr;
  const int32_t *vNew = nullptr;
  size_t cacheLength = 0;
};

/// attention(inputs, shape, scales) for tilePositions == 0, else attentionTiled(inputs, shape,
/// scales, tilePositions), bit for bit. Checks the shape and that q, kNew and vNew are s8 codes
/// (std::invalid_argument); the cache rows are not checked again: in a prefill they are the
/// earlier rows' kNew and vNew.
std::vector<int32_t> attentionInPlace(const AttentionView &in, const AttentionShape &shape,
                                      const AttentionScales &scales, size_t tilePositions);

} // namespace st::numerics
