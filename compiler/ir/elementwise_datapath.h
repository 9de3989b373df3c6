// The datapath of a generated element-wise kernel, decided before anything is printed: an
// interval analysis of the op's scalar body (ScalarExpr) over its input element types gives
// every node the width of its exact value range (at most 64 bits; a node whose range exceeds
// 64 bits wraps at 64 bits, as the C++ reference does), and says which saturation comparisons
// the output type needs. gen/elementwise_module prints the module from it; the resource model
// (model/elementwise_generated_model) sizes the kernel from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor_graph.h"

namespace st::ir {

/// One node of the analysed body, in evaluation order (operands before their users).
struct ElementwiseNode {
  ScalarExpr::Kind kind = ScalarExpr::Kind::Input;
  int64_t value = 0;              ///< input index, constant, or shift amount
  std::vector<unsigned> operands; ///< indices of earlier nodes
  __int128 lo = 0, hi = 0;        ///< exact value range (clamped to the int64 range)
  unsigned width = 1;             ///< signed width holding [lo, hi]
};

/// The body's datapath: its nodes (the last is the result before saturation) and whether the
/// saturation to the output type needs the upper and the lower comparison.
struct ElementwiseDatapath {
  std::vector<ElementwiseNode> nodes;
  bool clampHigh = false;
  bool clampLow = false;
};

/// Interval analysis of `body` over inputs of `inputTypes`. Throws st::Error (naming `name`) on
/// a float type, an input index without a type, or a shift outside 0 .. 62.
ElementwiseDatapath analyzeElementwise(const std::string &name, const ScalarExpr &body,
                                       const std::vector<DType> &inputTypes, DType outputType);

/// The inputs `body` reads, ascending: the arguments of the emitted function, in order.
std::vector<unsigned> elementwiseInputsRead(const ScalarExpr &body);

} // namespace st::ir
