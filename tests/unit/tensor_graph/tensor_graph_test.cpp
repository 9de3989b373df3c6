// Unit tests of TensorGraph: builders produce verified loop nests; the verifier names the op and
// field of each malformed graph.
#include <gtest/gtest.h>

#include "ir/tensor_graph.h"
#include "support/error.h"

using namespace st::ir;

namespace {
TensorId tensor(TensorGraph &g, const std::string &name, std::vector<int64_t> shape,
                TensorRole role = TensorRole::Intermediate, DType t = DType::I32) {
  return g.addTensor({name, std::move(shape), t, role});
}

std::string verifyError(const TensorGraph &g) {
  try {
    g.verify();
  } catch (const st::Error &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(TensorGraph, MatmulLoopNest) {
  TensorGraph g;
  auto a = tensor(g, "a", {4, 8}, TensorRole::Input, DType::I8);
  auto b = tensor(g, "b", {8, 3}, TensorRole::Constant, DType::I8);
  auto c = tensor(g, "c", {4, 3}, TensorRole::Output);
  OpId mm = addMatmul(g, "mm", a, b, c);
  EXPECT_NO_THROW(g.verify());
  const Op &op = g.op(mm);
  EXPECT_EQ(op.loopExtents, (std::vector<int64_t>{4, 3, 8}));
  EXPECT_EQ(op.iterators[2], IteratorKind::Reduction);
  EXPECT_EQ(op.inputs[0].map.toString(), "(d0,d1,d2)->(d0,d2)");
  EXPECT_EQ(op.inputs[1].map.toString(), "(d0,d1,d2)->(d2,d1)");
  EXPECT_EQ(op.output.map.toString(), "(d0,d1,d2)->(d0,d1)");
}

TEST(TensorGraph, BroadcastMapsUseConstants) {
  TensorGraph g;
  auto x = tensor(g, "x", {4, 6}, TensorRole::Input);
  auto bias = tensor(g, "bias", {6}, TensorRole::Constant);
  auto col = tensor(g, "col", {4, 1}, TensorRole::Input);
  auto y = tensor(g, "y", {4, 6}, TensorRole::Output);
  auto body = ScalarExpr::binary(
      ScalarExpr::Kind::Add,
      ScalarExpr::binary(ScalarExpr::Kind::Add, ScalarExpr::input(0), ScalarExpr::input(1)),
      ScalarExpr::input(2));
  OpId o = addElementwise(g, "add3", {x, bias, col}, y, body);
  g.verify();
  EXPECT_EQ(g.op(o).inputs[1].map.toString(), "(d0,d1)->(d1)");
  EXPECT_EQ(g.op(o).inputs[2].map.toString(), "(d0,d1)->(d0,0)");
  auto bad = tensor(g, "bad", {5}, TensorRole::Input);
  auto z = tensor(g, "z", {4, 6}, TensorRole::Output);
  EXPECT_THROW(addElementwise(g, "bad_add", {x, bad}, z, body), st::Error);
}

TEST(TensorGraph, VerifierNamesOpAndField) {
  TensorGraph g;
  auto a = tensor(g, "a", {4, 8}, TensorRole::Input);
  auto s = tensor(g, "s", {4}, TensorRole::Output);
  OpId r = addReduce(g, "rowsum", a, s, 1, Combiner::Sum);
  g.verify();
  g.op(r).combiner = Combiner::None;
  EXPECT_NE(verifyError(g).find("op 'rowsum' combiner"), std::string::npos) << verifyError(g);
  g.op(r).combiner = Combiner::Sum;
  g.op(r).inputs[0].map = parseAffineMap("(d0,d1)->(d0,d1+1)");
  EXPECT_NE(verifyError(g).find("op 'rowsum' input 0 map"), std::string::npos) << verifyError(g);
  g.op(r).inputs[0].map = AffineMap::identity(2);
  g.op(r).loopExtents[0] = 5;
  EXPECT_NE(verifyError(g).find("indices of 'a' dimension 0 within [0,4), got [0,4]"),
            std::string::npos)
      << verifyError(g);
}

TEST(TensorGraph, VerifierRejectsDoubleWritersAndMissingProducers) {
  TensorGraph g;
  auto a = tensor(g, "a", {4}, TensorRole::Input);
  auto b = tensor(g, "b", {4}, TensorRole::Output);
  auto orphan = tensor(g, "orphan", {4}, TensorRole::Intermediate);
  addElementwise(g, "copy1", {a}, b, ScalarExpr::input(0));
  EXPECT_NE(verifyError(g).find("tensor 'orphan'"), std::string::npos) << verifyError(g);
  addElementwise(g, "fill", {a}, orphan, ScalarExpr::input(0));
  g.verify();
  addElementwise(g, "copy2", {a}, b, ScalarExpr::input(0));
  EXPECT_NE(verifyError(g).find("written by op 'copy1'"), std::string::npos) << verifyError(g);
}

TEST(TensorGraph, VerifierRejectsCycles) {
  TensorGraph g;
  auto a = tensor(g, "a", {4});
  auto b = tensor(g, "b", {4});
  addElementwise(g, "f", {a}, b, ScalarExpr::input(0));
  addElementwise(g, "g", {b}, a, ScalarExpr::input(0));
  EXPECT_NE(verifyError(g).find("cycle"), std::string::npos) << verifyError(g);
}

TEST(TensorGraph, DumpListsOpsInTopologicalOrder) {
  TensorGraph g;
  auto a = tensor(g, "a", {2, 3}, TensorRole::Input, DType::I8);
  auto t = tensor(g, "t", {3, 2});
  auto r = tensor(g, "r", {6}, TensorRole::Output);
  addReshape(g, "flat", t, r);
  addTranspose(g, "tr", a, t, {1, 0});
  g.verify();
  std::string dump = g.toString();
  EXPECT_LT(dump.find("\"tr\""), dump.find("\"flat\"")) << dump;
  EXPECT_NE(dump.find("input %a : tensor<2x3xi8>"), std::string::npos) << dump;
}
