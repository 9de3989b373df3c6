// Batched golden linear: the golden linear layer (golden_ops.h, linear) applied to many input
// rows at once, as a prefill of the golden model runs it. Each weight row is unpacked once and
// applied to every input row; the per-row arithmetic (exact group sums, group-scale products,
// bias, requantization) is linear()'s, so every output code is the one linear() gives for that
// row. Weight rows are split over the cores (support/parallel.h) in chunks that do not depend on
// the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quantization.h"

namespace st::numerics {

/// x holds `numRows` input rows of layer.cols codes each (row-major); returns numRows rows of
/// layer.rows output codes (row-major): row b is linear(x row b, layer). Throws
/// std::invalid_argument as linear() does (sizes, a code that does not fit activationBits).
std::vector<int32_t> linearRows(const std::vector<int32_t> &x, size_t numRows,
                                const QuantizedLinear &layer);

} // namespace st::numerics
