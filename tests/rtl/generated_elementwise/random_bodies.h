// Random element-wise bodies for the emitter's differential test (st_gen_fuzz_top): ScalarExpr
// trees of depth <= 4 over every node kind, three inputs of random integer types (i1 .. i32,
// ui4 .. ui32), a random output type (i1 .. i64), constants from 0 and +-1 to 2^20. A body is
// kept only if every node's analysed range fits 63 bits, so the C++ reference
// (ScalarExpr::evaluate) never overflows and the comparison is well defined. Deterministic for a
// seed, so gen_modules.cpp (at build time) and tb_generated_fuzz.cpp agree.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "gen/elementwise_module.h"

namespace st::tb {

struct RandomBody {
  ir::ScalarExpr body;
  std::vector<ir::DType> inputTypes; ///< three inputs
  ir::DType outputType = ir::DType::I32;
};

inline ir::ScalarExpr randomExpr(std::mt19937_64 &rng, int depth) {
  using E = ir::ScalarExpr;
  using K = ir::ScalarExpr::Kind;
  if (depth == 0 || rng() % 5 == 0) {
    if (rng() % 4 == 0) {
      static const int64_t constants[] = {0,   1,    -1,  2,     -3,     7,
                                          100, -128, 255, 32767, -40000, 1 << 20};
      return E::constant(constants[rng() % 12]);
    }
    return E::input(unsigned(rng() % 3));
  }
  static const K kinds[] = {
      K::Add, K::Sub, K::Mul, K::Max, K::Min, K::Neg, K::Abs, K::Relu, K::ShiftRightRound};
  const K k = kinds[rng() % 9];
  switch (k) {
  case K::Neg:
  case K::Abs:
  case K::Relu:
    return E::unary(k, randomExpr(rng, depth - 1));
  case K::ShiftRightRound:
    return E::unary(k, randomExpr(rng, depth - 1), int64_t(rng() % 12));
  default: {
    E a = randomExpr(rng, depth - 1);
    return E::binary(k, a, randomExpr(rng, depth - 1));
  }
  }
}

inline std::vector<RandomBody> randomBodies(unsigned count, uint64_t seed) {
  static const ir::DType types[] = {ir::DType::I1,  ir::DType::I4, ir::DType::I8, ir::DType::I16,
                                    ir::DType::I32, ir::DType::U4, ir::DType::U8, ir::DType::U16,
                                    ir::DType::U32, ir::DType::I64};
  std::mt19937_64 rng(seed);
  std::vector<RandomBody> out;
  while (out.size() < count) {
    RandomBody b;
    for (int i = 0; i < 3; ++i)
      b.inputTypes.push_back(types[rng() % 9]); // inputs up to 32 bits
    b.outputType = types[rng() % 10];
    b.body = randomExpr(rng, 4);
    const ir::ElementwiseDatapath d =
        ir::analyzeElementwise("fuzz", b.body, b.inputTypes, b.outputType);
    bool fits = true;
    for (const auto &n : d.nodes)
      fits = fits && n.width < 64;
    if (fits)
      out.push_back(b);
  }
  return out;
}

/// The bodies in st_gen_fuzz_top, and the seed they come from.
constexpr unsigned kFuzzBodies = 40;
constexpr uint64_t kFuzzSeed = 20261122;

} // namespace st::tb
