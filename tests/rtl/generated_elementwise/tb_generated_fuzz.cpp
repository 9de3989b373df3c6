// Differential test of the element-wise emitter: st_gen_fuzz_top holds the SystemVerilog
// function gen::emitElementwiseFunction emits for each of kFuzzBodies random bodies
// (random_bodies.h: every node kind, input types i1 .. i32 and ui4 .. ui32, output types i1 ..
// i64). For --tokens random input triples (uniform, 0, all ones, single bits, masks: the extremes
// of every type) every body's output bits must equal sat(ScalarExpr::evaluate) exactly.
// Reports the mismatches of the first few bodies that differ, and how many outputs were
// saturated (so the saturation is exercised).
#include <cstdio>
#include <random>

#include "Vst_gen_fuzz_top.h"
#include "harness.h"
#include "random_bodies.h"
#include "verilated.h"

using namespace st::tb;
namespace ir = st::ir;

namespace {

/// The value of a raw input read as `type` (its low bits, sign- or zero-extended).
int64_t asType(uint64_t raw, ir::DType type) {
  const unsigned bits = ir::bitWidth(type);
  if (bits >= 64)
    return int64_t(raw);
  uint64_t v = raw & ((uint64_t(1) << bits) - 1);
  if (ir::isSigned(type) && ((v >> (bits - 1)) & 1))
    v |= ~((uint64_t(1) << bits) - 1);
  return int64_t(v);
}

uint64_t randomRaw(std::mt19937_64 &rng) {
  switch (rng() % 4) {
  case 0:
    return rng();
  case 1:
    return 0;
  case 2:
    return ~uint64_t(0);
  default: {
    const uint64_t bit = uint64_t(1) << (rng() % 64);
    return rng() % 2 ? bit : bit | (bit - 1);
  }
  }
}

void run(const TestOptions &options) {
  const std::vector<RandomBody> bodies = randomBodies(kFuzzBodies, kFuzzSeed);
  VerilatedContext context;
  Vst_gen_fuzz_top top(&context, "fuzz");
  std::mt19937_64 rng(options.seed);
  uint64_t checks = 0, mismatches = 0, saturated = 0;
  std::vector<uint64_t> perBody(bodies.size(), 0);
  for (uint64_t t = 0; t < options.tokens; ++t) {
    const uint64_t raw[3] = {randomRaw(rng), randomRaw(rng), randomRaw(rng)};
    top.a0 = raw[0];
    top.a1 = raw[1];
    top.a2 = raw[2];
    top.eval();
    for (size_t k = 0; k < bodies.size(); ++k) {
      const RandomBody &b = bodies[k];
      std::vector<int64_t> in(3);
      for (size_t i = 0; i < 3; ++i)
        in[i] = asType(raw[i], b.inputTypes[i]);
      const int64_t exact = b.body.evaluate(in);
      const int64_t want = ir::saturate(exact, b.outputType);
      saturated += want != exact;
      const unsigned bits = ir::bitWidth(b.outputType);
      const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
      const uint64_t got = uint64_t(top.y[2 * k]) | (uint64_t(top.y[2 * k + 1]) << 32);
      ++checks;
      if (got != (uint64_t(want) & mask)) {
        if (++perBody[k] == 1 && ++mismatches <= 5)
          std::printf("body %zu %s (in %s %s %s, out %s) at (%lld, %lld, %lld): expected %llx, "
                      "got %llx\n",
                      k, b.body.toString().c_str(), ir::toString(b.inputTypes[0]).c_str(),
                      ir::toString(b.inputTypes[1]).c_str(), ir::toString(b.inputTypes[2]).c_str(),
                      ir::toString(b.outputType).c_str(), (long long)in[0], (long long)in[1],
                      (long long)in[2], (unsigned long long)(uint64_t(want) & mask),
                      (unsigned long long)got);
      }
    }
  }
  size_t failing = 0;
  for (auto n : perBody)
    failing += n != 0;
  std::printf("%zu random bodies x %llu input triples: %llu outputs compared, %llu saturated, %zu "
              "bodies with mismatches\n",
              bodies.size(), (unsigned long long)options.tokens, (unsigned long long)checks,
              (unsigned long long)saturated, failing);
  if (failing)
    throw TestFailure(std::to_string(failing) + " generated functions differ from the reference");
  if (saturated == 0)
    throw TestFailure("no output saturated: the saturation was not exercised");
  top.final();
}

} // namespace

int main(int argc, char **argv) {
  return runTest(argc, argv, run);
}
