// The graph YAML reader: a well-formed graph round-trips into the tensor graph; every malformed
// input ends in one error naming the file and the field.
#include <gtest/gtest.h>

#include "frontend/graph_yaml.h"
#include "support/error.h"

namespace {

using namespace st;

std::string errorOf(const std::string &text) {
  try {
    frontend::parseGraphYaml(text, "g.yaml");
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

const char *kTensors = R"(
tensors:
  a: {shape: [4, 4], dtype: i8, role: input}
  b: {shape: [4, 4], dtype: i8, role: input}
  o: {shape: [4, 4], dtype: i16, role: output}
)";

TEST(GraphYaml, ReadsOpsTilingsAndLayouts) {
  auto spec = frontend::parseGraphYaml(std::string(kTensors) + R"(
ops:
  - {name: mm, op: matmul, inputs: [a, b], output: o, tile: [2, 2, 4], order: [1, 0, 2]}
)",
                                       "g.yaml");
  EXPECT_EQ(spec.graph.numOps(), 1u);
  EXPECT_EQ(spec.tilings.at("mm").tileSizes, (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(spec.tilings.at("mm").loopOrder, (std::vector<unsigned>{1, 0, 2}));
}

TEST(GraphYaml, ParsesBodiesAndRejectsBadOnes) {
  ir::ScalarExpr e = frontend::parseScalarExpr("add(in0, shr_round(mul(in1, -3), 2))", "f", "body");
  EXPECT_EQ(e.toString(), "add(in0, shr_round(mul(in1, -3), 2))");
  EXPECT_EQ(e.evaluate({10, 5}), 10 + -4); // -15 / 4 = -3.75 rounds half away from zero to -4
  EXPECT_THROW(frontend::parseScalarExpr("add(in0)", "f", "body"), Error);
  EXPECT_THROW(frontend::parseScalarExpr("pow(in0, 2)", "f", "body"), Error);
}

TEST(GraphYaml, ErrorsNameTheFileAndField) {
  EXPECT_EQ(errorOf(std::string(kTensors) +
                    "ops:\n  - {name: x, op: matmul, inputs: [a, zz], output: o}\n"),
            "g.yaml: ops[0].inputs[1]: expected a tensor declared under 'tensors', got 'zz'");
  EXPECT_EQ(
      errorOf(std::string(kTensors) + "ops:\n  - {name: x, op: conv, inputs: [a], output: o}\n"),
      "g.yaml: ops[0].op: expected one of matmul, elementwise, reduce, transpose, reshape, "
      "got 'conv'");
  EXPECT_EQ(errorOf("tensors:\n  a: {shape: [4], dtype: f32}\nops: []\n"),
            "g.yaml: tensors.a.dtype: expected an integer type (i1, i4, i8, i16, i32, i64, ui4, "
            "ui8, ui16, ui32), got 'f32'");
  EXPECT_EQ(
      errorOf(std::string(kTensors) +
              "ops:\n  - {name: x, op: elementwise, inputs: [a], output: o, body: \"in3\"}\n"),
      "g.yaml: ops[0].body: expected inputs in0..in0 only");
  EXPECT_NE(errorOf("tensors: [\n").find("g.yaml: line"), std::string::npos);
  EXPECT_EQ(errorOf(std::string(kTensors) + "ops:\n  - {name: x, op: matmul, inputs: [a, b]}\n"),
            "g.yaml: ops[0].output: expected a key 'output'");
}

} // namespace
