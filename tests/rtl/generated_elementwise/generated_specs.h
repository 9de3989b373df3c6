// The element-wise modules the generated_elementwise test emits at build time (gen_modules.cpp)
// and simulates (tb_generated_elementwise.cpp): one place for their bodies, tile shapes and
// types, so the generator and the testbench cannot drift apart.
//   st_gen_bcast_mix: three inputs broadcast against a 2x4 tile (a full tile, a row of ui8
//     broadcast over rows, a column of i16 broadcast over columns); sub, mul of two inputs,
//     rounding shift, abs, neg, min, max, saturated to i8 (both bounds cross).
//   st_gen_relu_scale: one i32 input, mul by a constant (a 34-bit range), add, relu, saturated
//     to ui8 (upper bound only); the unused second input checks that unread ports stay lint-clean.
#pragma once

#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor_graph.h"

namespace st::tb {

struct GeneratedSpec {
  std::string name;
  ir::ScalarExpr body;
  std::vector<int64_t> outputTileShape;
  std::vector<std::vector<int64_t>> inputTileShapes;
  std::vector<ir::DType> inputTypes;
  ir::DType outputType;
};

inline std::vector<GeneratedSpec> generatedSpecs() {
  using E = ir::ScalarExpr;
  using K = ir::ScalarExpr::Kind;
  const E in0 = E::input(0), in1 = E::input(1), in2 = E::input(2);
  // max(shr_round((in0 - in1) * in2, 5), min(neg(abs(in0)), -7))
  const E mix = E::binary(
      K::Max, E::unary(K::ShiftRightRound, E::binary(K::Mul, E::binary(K::Sub, in0, in1), in2), 5),
      E::binary(K::Min, E::unary(K::Neg, E::unary(K::Abs, in0)), E::constant(-7)));
  // relu(in0 * -3 + 100)
  const E relu = E::unary(
      K::Relu, E::binary(K::Add, E::binary(K::Mul, in0, E::constant(-3)), E::constant(100)));
  return {
      {"st_gen_bcast_mix",
       mix,
       {2, 4},
       {{2, 4}, {4}, {2, 1}},
       {ir::DType::I8, ir::DType::U8, ir::DType::I16},
       ir::DType::I8},
      {"st_gen_relu_scale", relu, {4}, {{4}, {1}}, {ir::DType::I32, ir::DType::I4}, ir::DType::U8},
  };
}

} // namespace st::tb
