// CountingRowReader: a numerics::WeightRowReader over an in-memory matrix for the tests of the
// loops that read a weight matrix once (quantizeLinear, floatLinearColumns). It copies the rows
// asked for into the caller's scratch buffer, as a streamed weight's reader does, and counts how
// often each row was asked for, so that a test can check that a parallel split reads every row
// exactly once.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "numerics/weight_rows.h"

namespace st::testutil {

class CountingRowReader {
public:
  CountingRowReader(const std::vector<float> &matrix, size_t rows, size_t cols)
      : matrix_(matrix), cols_(cols), asked_(rows) {}

  /// The reader; valid while this object lives.
  numerics::WeightRowReader reader() {
    return [this](size_t r0, size_t r1, std::vector<float> &scratch) -> const float * {
      for (size_t r = r0; r < r1; ++r)
        ++asked_[r];
      scratch.assign(matrix_.begin() + static_cast<int64_t>(r0 * cols_),
                     matrix_.begin() + static_cast<int64_t>(r1 * cols_));
      return scratch.data();
    };
  }
  /// How often row r was asked for.
  int timesAsked(size_t r) const { return asked_[r].load(); }

private:
  const std::vector<float> &matrix_;
  size_t cols_;
  std::vector<std::atomic<int>> asked_;
};

} // namespace st::testutil
