// Interval analysis of an element-wise body (see elementwise_datapath.h).
#include "ir/elementwise_datapath.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <set>

#include "support/error.h"

namespace st::ir {

namespace {

using Kind = ScalarExpr::Kind;
using i128 = __int128;

constexpr i128 kMin64 = std::numeric_limits<int64_t>::min();
constexpr i128 kMax64 = std::numeric_limits<int64_t>::max();

i128 clamp64(i128 v) {
  return std::clamp(v, kMin64, kMax64);
}

/// Smallest signed width holding [lo, hi] (at least 1).
unsigned signedWidth(i128 lo, i128 hi) {
  unsigned w = 1;
  while (w < 127 && (lo < -(i128(1) << (w - 1)) || hi > (i128(1) << (w - 1)) - 1))
    ++w;
  return w;
}

/// The C++ reference's rounding shift (ScalarExpr::evaluate), on 128-bit values.
i128 shiftRound(i128 x, int64_t s) {
  if (s <= 0)
    return x;
  const i128 half = i128(1) << (s - 1);
  return x >= 0 ? (x + half) >> s : -((-x + half) >> s);
}

class Analyzer {
public:
  Analyzer(const std::string &name, const std::vector<DType> &types)
      : module_(name), types_(types) {}

  unsigned add(const ScalarExpr &e) {
    ElementwiseNode n;
    n.kind = e.kind;
    n.value = e.value;
    for (const auto &o : e.operands)
      n.operands.push_back(add(o));
    const size_t expected = arity(e.kind);
    if (n.operands.size() != expected)
      throw Error(where(), "body node " + e.toString(),
                  std::to_string(expected) + " operands, got " + std::to_string(n.operands.size()));
    auto lo = [&](size_t k) { return nodes_[n.operands[k]].lo; };
    auto hi = [&](size_t k) { return nodes_[n.operands[k]].hi; };
    switch (e.kind) {
    case Kind::Input: {
      if (e.value < 0 || static_cast<size_t>(e.value) >= types_.size())
        throw Error(where(), "body input in" + std::to_string(e.value),
                    "an input index below " + std::to_string(types_.size()));
      const DType t = types_[static_cast<size_t>(e.value)];
      n.lo = minValue(t);
      n.hi = maxValue(t);
      break;
    }
    case Kind::Constant:
      n.lo = n.hi = e.value;
      break;
    case Kind::Add:
      n.lo = lo(0) + lo(1);
      n.hi = hi(0) + hi(1);
      break;
    case Kind::Sub:
      n.lo = lo(0) - hi(1);
      n.hi = hi(0) - lo(1);
      break;
    case Kind::Mul: {
      const i128 p[] = {lo(0) * lo(1), lo(0) * hi(1), hi(0) * lo(1), hi(0) * hi(1)};
      n.lo = *std::min_element(std::begin(p), std::end(p));
      n.hi = *std::max_element(std::begin(p), std::end(p));
      break;
    }
    case Kind::Max:
      n.lo = std::max(lo(0), lo(1));
      n.hi = std::max(hi(0), hi(1));
      break;
    case Kind::Min:
      n.lo = std::min(lo(0), lo(1));
      n.hi = std::min(hi(0), hi(1));
      break;
    case Kind::Neg:
      n.lo = -hi(0);
      n.hi = -lo(0);
      break;
    case Kind::Abs:
      if (lo(0) >= 0) {
        n.lo = lo(0);
        n.hi = hi(0);
      } else if (hi(0) <= 0) {
        n.lo = -hi(0);
        n.hi = -lo(0);
      } else {
        n.lo = 0;
        n.hi = std::max(-lo(0), hi(0));
      }
      break;
    case Kind::Relu:
      n.lo = std::max<i128>(lo(0), 0);
      n.hi = std::max<i128>(hi(0), 0);
      break;
    case Kind::ShiftRightRound:
      if (e.value < 0 || e.value > 62)
        throw Error(where(), "body node " + e.toString(), "a shift amount within 0 .. 62");
      n.lo = shiftRound(lo(0), e.value);
      n.hi = shiftRound(hi(0), e.value);
      break;
    }
    n.lo = clamp64(n.lo);
    n.hi = clamp64(n.hi);
    n.width = signedWidth(n.lo, n.hi);
    nodes_.push_back(n);
    return static_cast<unsigned>(nodes_.size() - 1);
  }

  std::vector<ElementwiseNode> take() { return std::move(nodes_); }

private:
  static size_t arity(Kind k) {
    switch (k) {
    case Kind::Input:
    case Kind::Constant:
      return 0;
    case Kind::Neg:
    case Kind::Abs:
    case Kind::Relu:
    case Kind::ShiftRightRound:
      return 1;
    default:
      return 2;
    }
  }
  std::string where() const { return "elementwise module '" + module_ + "'"; }

  std::string module_;
  const std::vector<DType> &types_;
  std::vector<ElementwiseNode> nodes_;
};

} // namespace

ElementwiseDatapath analyzeElementwise(const std::string &name, const ScalarExpr &body,
                                       const std::vector<DType> &inputTypes, DType outputType) {
  const std::string where = "elementwise module '" + name + "'";
  for (size_t i = 0; i < inputTypes.size(); ++i)
    if (!isInteger(inputTypes[i]))
      throw Error(where, "input " + std::to_string(i) + " type",
                  "an integer type, got " + toString(inputTypes[i]));
  if (!isInteger(outputType))
    throw Error(where, "output type", "an integer type, got " + toString(outputType));
  Analyzer analyzer(name, inputTypes);
  analyzer.add(body);
  ElementwiseDatapath d;
  d.nodes = analyzer.take();
  const ElementwiseNode &root = d.nodes.back();
  d.clampHigh = root.hi > maxValue(outputType);
  d.clampLow = root.lo < minValue(outputType);
  return d;
}

std::vector<unsigned> elementwiseInputsRead(const ScalarExpr &body) {
  std::set<unsigned> used;
  std::vector<const ScalarExpr *> stack{&body};
  while (!stack.empty()) {
    const ScalarExpr *e = stack.back();
    stack.pop_back();
    if (e->kind == Kind::Input)
      used.insert(static_cast<unsigned>(e->value));
    for (const auto &o : e->operands)
      stack.push_back(&o);
  }
  return {used.begin(), used.end()};
}

} // namespace st::ir
