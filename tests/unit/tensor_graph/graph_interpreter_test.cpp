// Unit tests of the reference executor against hand-computed results.
#include <gtest/gtest.h>

#include "ir/graph_interpreter.h"
#include "support/error.h"

using namespace st::ir;

TEST(GraphInterpreter, MatmulThenReluWithSaturation) {
  TensorGraph g;
  auto a = g.addTensor({"a", {2, 3}, DType::I8, TensorRole::Input});
  auto b = g.addTensor({"b", {3, 2}, DType::I8, TensorRole::Constant});
  auto c = g.addTensor({"c", {2, 2}, DType::I32, TensorRole::Intermediate});
  auto d = g.addTensor({"d", {2, 2}, DType::I8, TensorRole::Output});
  addMatmul(g, "mm", a, b, c);
  addElementwise(g, "relu", {c}, d, ScalarExpr::unary(ScalarExpr::Kind::Relu, ScalarExpr::input(0)));
  g.verify();
  TensorValues in{{a, {1, 2, 3, -4, 5, -6}}, {b, {7, 8, 9, 10, 11, 12}}};
  auto out = interpretGraph(g, in);
  // c = [[1*7+2*9+3*11, 1*8+2*10+3*12], [-4*7+5*9-6*11, -4*8+5*10-6*12]] = [[58,64],[-49,-54]]
  EXPECT_EQ(out.at(c), (std::vector<int64_t>{58, 64, -49, -54}));
  EXPECT_EQ(out.at(d), (std::vector<int64_t>{58, 64, 0, 0}));
  TensorValues big{{a, {127, 127, 127, 0, 0, 0}}, {b, {127, 0, 127, 0, 127, 0}}};
  EXPECT_EQ(interpretGraph(g, big).at(d)[0], 127); // saturated to i8
}

TEST(GraphInterpreter, BatchedMatmulReduceMaxTransposeReshape) {
  TensorGraph g;
  auto a = g.addTensor({"a", {2, 1, 2}, DType::I16, TensorRole::Input});
  auto b = g.addTensor({"b", {2, 2, 2}, DType::I16, TensorRole::Input});
  auto c = g.addTensor({"c", {2, 1, 2}, DType::I32, TensorRole::Intermediate});
  auto m = g.addTensor({"m", {2, 1}, DType::I32, TensorRole::Intermediate});
  auto t = g.addTensor({"t", {1, 2}, DType::I32, TensorRole::Intermediate});
  auto r = g.addTensor({"r", {2}, DType::I32, TensorRole::Output});
  addMatmul(g, "bmm", a, b, c);
  addReduce(g, "max", c, m, 2, Combiner::Max);
  addTranspose(g, "tr", m, t, {1, 0});
  addReshape(g, "flat", t, r);
  g.verify();
  TensorValues in{{a, {1, 2, 3, 4}}, {b, {1, 0, 0, 1, 2, -1, 1, 5}}};
  auto out = interpretGraph(g, in);
  // batch 0: [1,2] x I = [1,2]; batch 1: [3,4] x [[2,-1],[1,5]] = [10, 17]
  EXPECT_EQ(out.at(c), (std::vector<int64_t>{1, 2, 10, 17}));
  EXPECT_EQ(out.at(r), (std::vector<int64_t>{2, 17}));
}

TEST(GraphInterpreter, ChecksInputs) {
  TensorGraph g;
  auto a = g.addTensor({"a", {2}, DType::I4, TensorRole::Input});
  auto b = g.addTensor({"b", {2}, DType::I4, TensorRole::Output});
  addElementwise(g, "neg", {a}, b, ScalarExpr::unary(ScalarExpr::Kind::Neg, ScalarExpr::input(0)));
  EXPECT_THROW(interpretGraph(g, {}), st::Error);
  EXPECT_THROW(interpretGraph(g, {{a, {1}}}), st::Error);
  EXPECT_THROW(interpretGraph(g, {{a, {1, 8}}}), st::Error); // 8 is outside i4
  EXPECT_EQ(interpretGraph(g, {{a, {-8, 7}}}).at(b), (std::vector<int64_t>{7, -7})); // -(-8) saturates
}

TEST(ScalarExpr, ShiftRightRoundsHalfAwayFromZero) {
  auto e = ScalarExpr::unary(ScalarExpr::Kind::ShiftRightRound, ScalarExpr::input(0), 2);
  EXPECT_EQ(e.evaluate({6}), 2);   // 1.5 -> 2
  EXPECT_EQ(e.evaluate({-6}), -2); // -1.5 -> -2
  EXPECT_EQ(e.evaluate({5}), 1);   // 1.25 -> 1
  EXPECT_EQ(e.evaluate({-5}), -1);
  EXPECT_EQ(e.toString(), "shr_round(in0, 2)");
}
