// Unit tests of gen::emitElementwiseModule and ir::analyzeElementwise: the interval analysis
// (node ranges and widths), the text of a generated module (ports and their widths, the
// broadcast index of every input element, the saturation bounds, unread inputs) and one clear
// st::Error per kind of bad input. The modules' behaviour is simulated in
// tests/rtl/generated_elementwise.
#include <functional>

#include <gtest/gtest.h>

#include "gen/elementwise_module.h"
#include "support/error.h"

using namespace st;
using E = ir::ScalarExpr;
using K = ir::ScalarExpr::Kind;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(ElementwiseAnalysis, RangesAndWidths) {
  // shr_round((in0 + in1) * -3, 2) with in0: i8, in1: ui8
  const E body =
      E::unary(K::ShiftRightRound,
               E::binary(K::Mul, E::binary(K::Add, E::input(0), E::input(1)), E::constant(-3)), 2);
  const ir::ElementwiseDatapath d =
      ir::analyzeElementwise("m", body, {ir::DType::I8, ir::DType::U8}, ir::DType::I8);
  ASSERT_EQ(d.nodes.size(), 6u);
  auto range = [&](size_t i) {
    return std::make_pair(static_cast<long long>(d.nodes[i].lo),
                          static_cast<long long>(d.nodes[i].hi));
  };
  EXPECT_EQ(range(0), std::make_pair(-128LL, 127LL));
  EXPECT_EQ(d.nodes[0].width, 8u);
  EXPECT_EQ(range(1), std::make_pair(0LL, 255LL));
  EXPECT_EQ(d.nodes[1].width, 9u); // unsigned input: one sign bit more
  EXPECT_EQ(range(2), std::make_pair(-128LL, 382LL));
  EXPECT_EQ(d.nodes[2].width, 10u);
  EXPECT_EQ(d.nodes[3].width, 3u); // -3
  EXPECT_EQ(range(4), std::make_pair(-1146LL, 384LL));
  EXPECT_EQ(d.nodes[4].width, 12u);
  EXPECT_EQ(range(5), std::make_pair(-287LL, 96LL)); // -1146/4 rounds away from zero to -287
  EXPECT_EQ(d.nodes[5].width, 10u);
  EXPECT_FALSE(d.clampHigh); // 96 <= 127
  EXPECT_TRUE(d.clampLow);   // -287 < -128
  // The rounding shift adds 2^(2-1) to |x| in max(12, 2) + 2 = 14 bits.
  const std::string sv = gen::emitElementwiseModule("m", body, {1}, {{1}, {1}},
                                                    {ir::DType::I8, ir::DType::U8}, ir::DType::I8);
  EXPECT_TRUE(contains(sv, "(n4[11] ? -(14'(n4)) : 14'(n4)) + 14'sh2) >>> 2)"));
}

TEST(ElementwiseAnalysis, RangesBeyond64BitsWrapAt64) {
  const E body = E::binary(K::Mul, E::input(0), E::input(0));
  const ir::ElementwiseDatapath d =
      ir::analyzeElementwise("m", body, {ir::DType::I64}, ir::DType::I64);
  EXPECT_EQ(d.nodes.back().width, 64u);
  EXPECT_FALSE(d.clampHigh);
  EXPECT_FALSE(d.clampLow);
}

TEST(ElementwiseAnalysis, AbsReluMaxMin) {
  const E body = E::binary(K::Min, E::unary(K::Abs, E::input(0)),
                           E::binary(K::Max, E::unary(K::Relu, E::input(1)), E::constant(5)));
  const ir::ElementwiseDatapath d =
      ir::analyzeElementwise("m", body, {ir::DType::I4, ir::DType::I16}, ir::DType::U4);
  // abs(i4) in [0, 8]; relu(i16) in [0, 32767]; max(., 5) in [5, 32767]; min in [0, 8]
  EXPECT_EQ(static_cast<long long>(d.nodes[1].hi), 8);
  EXPECT_EQ(d.nodes[1].width, 5u);
  EXPECT_EQ(static_cast<long long>(d.nodes[5].lo), 5);
  EXPECT_EQ(static_cast<long long>(d.nodes.back().lo), 0);
  EXPECT_EQ(static_cast<long long>(d.nodes.back().hi), 8);
  EXPECT_FALSE(d.clampHigh); // 8 <= 15
  EXPECT_FALSE(d.clampLow);
}

TEST(ElementwiseModule, PortsBroadcastAndSaturation) {
  const E body = E::binary(K::Sub, E::input(0), E::input(1));
  const std::string sv = gen::emitElementwiseModule("st_sub", body, {2, 3}, {{2, 3}, {2, 1}},
                                                    {ir::DType::I8, ir::DType::I16}, ir::DType::I8);
  EXPECT_TRUE(contains(sv, "module st_sub ("));
  EXPECT_TRUE(contains(sv, "input  wire [47:0] in0_data_i,")); // 6 x i8
  EXPECT_TRUE(contains(sv, "input  wire [31:0] in1_data_i,")); // 2 x i16
  EXPECT_TRUE(contains(sv, "output logic [47:0] data_o"));
  EXPECT_TRUE(contains(sv, "output logic in1_ready_o,"));
  EXPECT_TRUE(contains(sv, "assign in0_ready_o = advance && in1_valid_i;"));
  EXPECT_TRUE(contains(sv, "assign in1_ready_o = advance && in0_valid_i;"));
  // element (1, 2) = index 5 reads in0[5] and in1[1] (row 1 of the broadcast column)
  EXPECT_TRUE(contains(
      sv, "assign result_d[40 +: 8] = element(in0_data_i[40 +: 8], in1_data_i[16 +: 16]);"));
  // element (0, 2) reads in1[0]
  EXPECT_TRUE(contains(
      sv, "assign result_d[16 +: 8] = element(in0_data_i[16 +: 8], in1_data_i[0 +: 16]);"));
  // i8 - i16 lies in [-32895, 32895]: 17 bits, both bounds of i8 crossed
  EXPECT_TRUE(contains(sv, "logic signed [16:0] n2;"));
  EXPECT_TRUE(contains(sv, "    if (n2 > 17'sh7f) element = 8'h7f;\n"
                           "    else if (n2 < 17'sh1ff80) element = 8'h80;\n"
                           "    else element = 8'(n2);\n"));
  EXPECT_TRUE(contains(sv, "n2 = 17'(17'(n0) - 17'(n1));"));
  EXPECT_TRUE(contains(sv, "st_skid_buffer #("));
}

TEST(ElementwiseModule, UnsignedInputsAndUnreadPorts) {
  const E body = E::unary(K::Relu, E::input(0));
  const std::string sv = gen::emitElementwiseModule("st_relu", body, {4}, {{4}, {1}},
                                                    {ir::DType::U8, ir::DType::I4}, ir::DType::U16);
  EXPECT_TRUE(contains(sv, "n0 = $signed({1'b0, x0});"));
  EXPECT_TRUE(contains(sv, "function automatic logic [15:0] element(input logic [7:0] x0);"));
  EXPECT_TRUE(contains(sv, "wire unused_in1 = ^in1_data_i;"));
  // [0, 255] fits ui16: no saturation
  EXPECT_TRUE(contains(sv, "    element = 16'(n1);\n"));
  EXPECT_FALSE(contains(sv, "if (n1"));
}

TEST(ElementwiseModule, Errors) {
  const E add = E::binary(K::Add, E::input(0), E::input(1));
  const std::vector<ir::DType> two = {ir::DType::I8, ir::DType::I8};
  EXPECT_TRUE(
      contains(errorOf([&] {
                 gen::emitElementwiseModule("m", add, {2, 3}, {{2, 3}, {2}}, two, ir::DType::I8);
               }),
               "elementwise module 'm': input 1 tile shape [2]: expected extent 1 or 3"));
  EXPECT_TRUE(
      contains(errorOf([&] {
                 gen::emitElementwiseModule("m", add, {3}, {{3}, {1, 3}}, two, ir::DType::I8);
               }),
               "input 1 tile shape [1, 3]: expected rank <= 1"));
  EXPECT_TRUE(contains(errorOf([&] {
                         gen::emitElementwiseModule("m", add, {3}, {{3}}, {ir::DType::I8},
                                                    ir::DType::I8);
                       }),
                       "body input in1: expected an input index below 1"));
  EXPECT_TRUE(contains(
      errorOf([&] {
        gen::emitElementwiseModule("m", add, {3}, {{3}, {3}}, {ir::DType::I8}, ir::DType::I8);
      }),
      "input types: expected 2 types"));
  EXPECT_TRUE(contains(errorOf([&] {
                         gen::emitElementwiseModule("m", add, {3}, {{3}, {3}},
                                                    {ir::DType::F32, ir::DType::I8}, ir::DType::I8);
                       }),
                       "input 0 type: expected an integer type, got f32"));
  EXPECT_TRUE(contains(errorOf([&] {
                         gen::emitElementwiseModule("m", add, {3}, {{3}, {3}}, two, ir::DType::F32);
                       }),
                       "output type: expected an integer type"));
  EXPECT_TRUE(contains(errorOf([&] {
                         gen::emitElementwiseModule("2m", add, {3}, {{3}, {3}}, two, ir::DType::I8);
                       }),
                       "elementwise module '2m': name"));
  EXPECT_TRUE(contains(errorOf([&] {
                         gen::emitElementwiseModule("m",
                                                    E::unary(K::ShiftRightRound, E::input(0), 63),
                                                    {3}, {{3}}, {ir::DType::I8}, ir::DType::I8);
                       }),
                       "expected a shift amount within 0 .. 62"));
  EXPECT_TRUE(contains(errorOf([&] {
                         gen::emitElementwiseModule("m", add, {0}, {{1}, {1}}, two, ir::DType::I8);
                       }),
                       "output tile shape [0]: expected extents >= 1"));
}
