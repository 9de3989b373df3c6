// Random weights (--random-weights): seeded uniform values, made for any range of a tensor
// without running the stream up to it, so that a streamed weight (frontend/weight_store.h) is
// made a block at a time, in parallel, with the bits a sequential fill would give.
#pragma once

#include <cstdint>

namespace st::frontend {

/// Elements [begin, begin + count) of a random tensor into `out`: splitmix64 from `state` (the
/// store's seed ^ std::hash of the tensor's name), draw i (from the state after i + 1 steps)
/// giving elements 2i and 2i + 1 (its low and high 24-bit halves, scaled to [-scale, scale)),
/// plus one with `plusOne` (norm gammas).
void randomWeightValues(uint64_t state, float scale, bool plusOne, int64_t begin, int64_t count,
                        float *out);

} // namespace st::frontend
