// Named LLM ops on the tensor graph and DecodeProgram verification: loop nests where they are
// meaningful, opaque ops checked by operands only, errors for unbound constants, attributes of
// the wrong kind and State tensors written as outputs.
#include "ir/decode_program.h"

#include "support/error.h"
#include "test_files.h"

namespace st::ir {
namespace {

using st::frontend::testing::expectError;

TEST(LlmOps, LinearHasReductionNestAndRopeIsOpaque) {
  TensorGraph g;
  TensorId x = g.addTensor({"x", {8}, DType::F32, TensorRole::Input});
  TensorId w = g.addTensor({"w", {4, 8}, DType::F32, TensorRole::Constant});
  TensorId pos = g.addTensor({"pos", {1}, DType::I32, TensorRole::Input});
  TensorId y = g.addTensor({"y", {4}, DType::F32, TensorRole::Intermediate});
  TensorId r = g.addTensor({"r", {4}, DType::F32, TensorRole::Output});
  OpId lin = addLlmOp(g, "y", LinearAttrs{}, {x, w}, y);
  OpId rope = addLlmOp(g, "r", RopeAttrs{1, 4, 10000.0, {}}, {y, pos}, r);
  EXPECT_EQ(g.op(lin).loopExtents, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(g.op(lin).combiner, Combiner::Sum);
  EXPECT_TRUE(g.op(rope).isOpaque());
  EXPECT_NO_THROW(g.verify());
  EXPECT_NE(g.toString().find("rope {heads=1 head_dim=4"), std::string::npos);
}

TEST(LlmOps, OpaqueOpMayNotWriteState) {
  TensorGraph g;
  TensorId q = g.addTensor({"q", {4}, DType::F32, TensorRole::Input});
  TensorId cache = g.addTensor({"cache", {8, 4}, DType::F32, TensorRole::State});
  addLlmOp(g, "bad", NormAttrs{}, {q, q}, cache);
  expectError([&] { g.verify(); }, {"op 'bad' output", "'cache' is state"});
}

TEST(LlmOps, RopeFrequenciesFromBase) {
  std::vector<double> f = ropeInverseFrequencies(RopeAttrs{1, 4, 100.0, {}});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_NEAR(f[1], 0.1, 1e-7);
}

DecodeProgram smallProgram() {
  DecodeProgram p;
  p.vocabSize = 4;
  p.maxPositions = 8;
  DecodeStage s;
  s.name = "only";
  TensorId token = s.graph.addTensor({"token", {1}, DType::I32, TensorRole::Input});
  TensorId table = s.graph.addTensor({"table", {4, 4}, DType::F32, TensorRole::Constant});
  TensorId logits = s.graph.addTensor({"logits", {4}, DType::F32, TensorRole::Output});
  TensorId next = s.graph.addTensor({"next_token", {}, DType::I32, TensorRole::Output});
  addLlmOp(s.graph, "logits", EmbeddingAttrs{}, {table, token}, logits);
  addLlmOp(s.graph, "next_token", ArgmaxAttrs{}, {logits}, next);
  s.bindings.resize(1);
  s.bindings[0].weights["table"] = "stored.table";
  p.stages.push_back(std::move(s));
  return p;
}

TEST(DecodeProgramVerify, AcceptsBoundProgram) {
  EXPECT_NO_THROW(smallProgram().verify());
}

TEST(DecodeProgramVerify, UnboundConstantIsAnError) {
  DecodeProgram p = smallProgram();
  p.stages[0].bindings[0].weights.clear();
  expectError([&] { p.verify(); }, {"stage 'only'", "constant 'table'", "stored weight"});
}

TEST(DecodeProgramVerify, AttributesOfWrongKindAreAnError) {
  DecodeProgram p = smallProgram();
  p.stages[0].bindings[0].attributes["logits"] = NormAttrs{};
  expectError([&] { p.verify(); }, {"op 'logits'", "attributes of kind embedding"});
}

TEST(DecodeProgramVerify, UnfedInputIsAnError) {
  DecodeProgram p = smallProgram();
  p.stages[0].graph.addTensor({"h", {4}, DType::F32, TensorRole::Input});
  expectError([&] { p.verify(); }, {"input 'h'", "earlier stage"});
}

} // namespace
} // namespace st::ir
