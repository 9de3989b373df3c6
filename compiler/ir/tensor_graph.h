// TensorGraph: the tensor-level IR. Every op is a loop nest (Linalg style): an iteration domain
// of parallel and reduction loops, one affine indexing map per operand, a scalar body computed at
// every point of the domain, and for reductions a combiner (sum, max) over the reduction loops.
// Tiling, itensor inference and stream scheduling are generic transforms over this form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/affine_map.h"
#include "ir/dtype.h"
#include "ir/llm_ops.h"

namespace st::ir {

using TensorId = unsigned;
using OpId = unsigned;

enum class IteratorKind { Parallel, Reduction };
/// State: model state kept across decode steps (the KV cache), read and appended by ops.
enum class TensorRole { Input, Constant, Intermediate, Output, State };
/// Llm: a named LLM op (ir/llm_ops.h); its loop nest is empty where no affine nest describes it
/// (norm, embedding, rope, attention: "opaque"), else the nest of its data access.
enum class OpKind { Matmul, Elementwise, Reduce, Transpose, Reshape, Generic, Llm };
enum class Combiner { None, Sum, Max };

std::string toString(IteratorKind k);
std::string toString(TensorRole r);
std::string toString(OpKind k);
std::string toString(Combiner c);

struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::I32;
  TensorRole role = TensorRole::Intermediate;
  int64_t numElements() const;
};

/// The scalar computation of an op at one point of its domain, over the operands' elements.
struct ScalarExpr {
  enum class Kind { Input, Constant, Add, Sub, Mul, Max, Min, Neg, Abs, Relu, ShiftRightRound };
  Kind kind = Kind::Input;
  int64_t value = 0; ///< input index for Input, the value for Constant, the shift amount
  std::vector<ScalarExpr> operands;

  static ScalarExpr input(unsigned index) { return {Kind::Input, index, {}}; }
  static ScalarExpr constant(int64_t v) { return {Kind::Constant, v, {}}; }
  static ScalarExpr unary(Kind k, ScalarExpr a, int64_t value = 0) { return {k, value, {a}}; }
  static ScalarExpr binary(Kind k, ScalarExpr a, ScalarExpr b) { return {k, 0, {a, b}}; }

  /// Evaluates with 64-bit integer arithmetic (the interpreter saturates results to the output
  /// type). ShiftRightRound(a, s) is an arithmetic right shift rounding half away from zero.
  int64_t evaluate(const std::vector<int64_t> &inputs) const;
  /// Largest input index used plus one.
  unsigned numInputsUsed() const;
  std::string toString() const;
};

bool parseScalarOpKind(const std::string &name, ScalarExpr::Kind &out);

struct Operand {
  TensorId tensor = 0;
  AffineMap map; ///< loop indices -> tensor indices (empty results for a Reshape input)
};

struct Op {
  std::string name;
  OpKind kind = OpKind::Generic;
  std::vector<int64_t> loopExtents;
  std::vector<IteratorKind> iterators;
  std::vector<Operand> inputs;
  Operand output;
  ScalarExpr body;
  Combiner combiner = Combiner::None;
  LlmAttributes llm; ///< set for OpKind::Llm ops (ir/llm_ops.h)

  unsigned numLoops() const { return static_cast<unsigned>(loopExtents.size()); }
  bool hasReduction() const;
  /// An LLM op without a loop nest: only its operands and attributes describe it.
  bool isOpaque() const { return kind == OpKind::Llm && loopExtents.empty(); }
};

class TensorGraph {
public:
  TensorId addTensor(TensorInfo info);
  OpId addOp(Op op);

  const TensorInfo &tensor(TensorId id) const { return tensors_.at(id); }
  const Op &op(OpId id) const { return ops_.at(id); }
  Op &op(OpId id) { return ops_.at(id); }
  unsigned numTensors() const { return static_cast<unsigned>(tensors_.size()); }
  unsigned numOps() const { return static_cast<unsigned>(ops_.size()); }
  std::optional<TensorId> findTensor(const std::string &name) const;

  /// The op writing `t`, if any (inputs and constants have none).
  std::optional<OpId> producer(TensorId t) const;
  std::vector<OpId> consumers(TensorId t) const;
  /// Ops in an order where every producer comes before its consumers; throws on a cycle.
  std::vector<OpId> topologicalOrder() const;

  /// Checks every op against its tensors: map arities, shapes covered by the loop extents,
  /// reduction loops only with a combiner, single producer per tensor, no cycles. Throws
  /// st::Error naming the op and the field.
  void verify() const;
  /// A readable dump of tensors and ops (used by --dump-after).
  std::string toString() const;

private:
  std::vector<TensorInfo> tensors_;
  std::vector<Op> ops_;
};

// Builders for the common ops. Each creates the op's loop nest and maps and returns its id.

/// out[m,n] = sum_k a[m,k]*b[k,n]; with rank-3 operands a batched matmul over dim 0.
OpId addMatmul(TensorGraph &g, const std::string &name, TensorId a, TensorId b, TensorId out);
/// out = body(inputs...) elementwise; inputs broadcast numpy-style (aligned to the right; a
/// dimension of extent 1 or a missing dimension is broadcast).
OpId addElementwise(TensorGraph &g, const std::string &name, const std::vector<TensorId> &inputs,
                    TensorId out, ScalarExpr body);
/// out = reduce(in) over dimension `dim` (removed from the shape) with Sum or Max.
OpId addReduce(TensorGraph &g, const std::string &name, TensorId in, TensorId out, unsigned dim,
               Combiner combiner);
/// out[i_perm[0], ...] = in[...]: out dimension j is input dimension perm[j].
OpId addTranspose(TensorGraph &g, const std::string &name, TensorId in, TensorId out,
                  const std::vector<unsigned> &perm);
/// Same elements in row-major order, new shape.
OpId addReshape(TensorGraph &g, const std::string &name, TensorId in, TensorId out);
/// A named LLM op (operand order in ir/llm_ops.h). linear gets the nest [N parallel, K
/// reduction] with a sum; add, activation and gated an elementwise nest; argmax a max reduction;
/// embedding, norm, rope and attention are opaque (no loop nest).
OpId addLlmOp(TensorGraph &g, const std::string &name, LlmAttributes attributes,
              const std::vector<TensorId> &inputs, TensorId out);

} // namespace st::ir
