// WeightRowReader: how the loops that pass over a weight matrix once (quantizeLinear, the float
// executor's linear layer) read its rows. A reader returns rows [r0, r1) of a row-major matrix,
// either where they already are in memory or made on demand into the caller's scratch buffer
// (weights streamed a block of rows at a time, never held whole: see frontend/weight_store.h).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace st::numerics {

/// Returns a pointer to rows [r0, r1) (row-major, the matrix's column count each), valid until
/// `scratch` changes; may fill `scratch` and point into it. Called from several threads at once
/// with different scratch buffers.
using WeightRowReader =
    std::function<const float *(size_t r0, size_t r1, std::vector<float> &scratch)>;

/// The reader of a matrix held in memory (`rows` x `cols` floats at `data`).
inline WeightRowReader inMemoryRows(const float *data, size_t cols) {
  return [data, cols](size_t r0, size_t, std::vector<float> &) { return data + r0 * cols; };
}

} // namespace st::numerics
