// AffineMap: the indexing maps of loop-nest ops, as in MLIR Linalg: each result is an affine
// expression (a linear combination of loop indices plus a constant) of the op's loops. Text form
// `(d0,d1,d2)->(d0,d2+1,2*d1)`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace st::ir {

struct AffineExpr {
  std::vector<int64_t> coeffs; ///< one per loop dim
  int64_t constant = 0;

  static AffineExpr dim(unsigned numDims, unsigned d);
  static AffineExpr constantExpr(unsigned numDims, int64_t c);
  /// The loop dim if this expression is exactly one dim with coefficient 1 and no constant.
  std::optional<unsigned> singleDim() const;
  bool isConstant() const;
  int64_t evaluate(const std::vector<int64_t> &point) const;
  bool operator==(const AffineExpr &o) const {
    return coeffs == o.coeffs && constant == o.constant;
  }
};

struct AffineMap {
  unsigned numDims = 0;
  std::vector<AffineExpr> results;

  static AffineMap identity(unsigned numDims);
  /// Results are the given loop dims, e.g. {0, 2} over 3 dims: (d0,d1,d2)->(d0,d2).
  static AffineMap projection(unsigned numDims, const std::vector<unsigned> &dims);

  unsigned numResults() const { return static_cast<unsigned>(results.size()); }
  std::vector<int64_t> evaluate(const std::vector<int64_t> &point) const;
  /// True if every result is a single distinct loop dim (a projected permutation).
  bool isProjectedPermutation() const;
  std::string toString() const;
  bool operator==(const AffineMap &o) const {
    return numDims == o.numDims && results == o.results;
  }
};

/// Parses `(d0,d1)->(d1,d0+2)`; throws st::Error naming the position on malformed text.
AffineMap parseAffineMap(std::string_view text);

} // namespace st::ir
