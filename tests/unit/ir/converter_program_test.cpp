// Unit tests of the layout-converter program (compiler/ir/converter_program.h): counts and
// tables of docs/itensor.md's b->c example, the $readmemh text, reuse loops on either side, the
// errors, and random producer/consumer pairs: running the program (simulateConverterProgram)
// on the producer's element stream reproduces the consumer's element order exactly.
#include <gtest/gtest.h>

#include <random>

#include "ir/converter_program.h"
#include "random_itensor.h"
#include "support/error.h"

using namespace st::ir;

namespace {

const char *kB = "itensor<4x2xf32, iter_space: [4,2]*[2,4], iter_map: (d0,d1)->(d1,d0)>";
const char *kC = "itensor<4x2xf32, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>";

ConverterProgram programOf(const ITensorType &p, const ITensorType &c) {
  return buildConverterProgram(p, c, inferConverterBuffer(p, c));
}

/// The producer's element stream with each element's value = its tensor index, through the
/// program, must be the consumer's element order; the tables stay inside the buffer.
void expectReproducesConsumer(const ITensorType &p, const ITensorType &c) {
  ConverterProgram prog = programOf(p, c);
  EXPECT_EQ(static_cast<int64_t>(prog.producerAddresses.size()), prog.producerTokensPerPhase);
  EXPECT_EQ(static_cast<int64_t>(prog.consumerAddresses.size()), prog.consumerTokensPerPhase);
  for (const auto *table : {&prog.producerAddresses, &prog.consumerAddresses})
    for (const auto &token : *table)
      for (int64_t a : token) {
        EXPECT_GE(a, 0);
        EXPECT_LT(a, prog.bufferElements);
      }
  EXPECT_EQ(simulateConverterProgram(prog, enumerateElementOrder(p)), enumerateElementOrder(c));
}

TEST(ConverterProgram, DesignBToC) {
  ITensorType b = parseITensorType(kB), c = parseITensorType(kC);
  ConverterProgram prog = programOf(b, c);
  EXPECT_EQ(prog.elementBits, 32);
  EXPECT_EQ(prog.producerTokenElements, 8);
  EXPECT_EQ(prog.consumerTokenElements, 8);
  EXPECT_EQ(prog.bufferElements, 16);
  EXPECT_EQ(prog.phases, 4);
  EXPECT_EQ(prog.producerTokensPerPhase, 2);
  EXPECT_EQ(prog.consumerTokensPerPhase, 4); // the reuse loop re-reads the 8x2 band
  // b's token (4x2 at rows 0..3 of the band): buffer 8x2, address = row*2 + col.
  EXPECT_EQ(prog.producerAddresses[0], (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(prog.producerAddresses[1], (std::vector<int64_t>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(prog.consumerAddresses[0], prog.consumerAddresses[2]);
  EXPECT_EQ(prog.consumerAddresses[1], prog.consumerAddresses[3]);
  expectReproducesConsumer(b, c);
}

TEST(ConverterProgram, MemFilesOfBToC) {
  ConverterProgram prog = programOf(parseITensorType(kB), parseITensorType(kC));
  ConverterLimits limits = converterLimitsOf(prog);
  EXPECT_EQ(converterAddressBits(limits), 4);
  EXPECT_EQ(converterCountsMem(prog, limits), "00000002\n00000004\n00000008\n00000008\n");
  // 8 lanes of 4 bits, lane 0 in the least significant digit.
  EXPECT_EQ(converterProducerTableMem(prog, limits), "76543210\nfedcba98\n");
  // Wider limits: 10 lanes of 5 bits, unused lanes 0.
  limits.maxProducerElements = 10;
  limits.maxBufferElements = 17;
  EXPECT_EQ(converterProducerTableMem(prog, limits).substr(0, 14), "000398a418820\n");
}

TEST(ConverterProgram, Transpose) {
  expectReproducesConsumer(
      parseITensorType("itensor<1x4xi8, iter_space: [4]*[1], iter_map: (d0)->(d0,0)>"),
      parseITensorType("itensor<4x1xi8, iter_space: [4]*[1], iter_map: (d0)->(0,d0)>"));
  expectReproducesConsumer(
      parseITensorType("itensor<2x2xi8, iter_space: [3,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>"),
      parseITensorType("itensor<2x2xi8, iter_space: [4,3]*[2,2], iter_map: (d0,d1)->(d1,d0)>"));
}

TEST(ConverterProgram, ProducerReuseRewritesIdenticalData) {
  // The producer streams each 2-row band twice; the consumer reads it once, column by column.
  ITensorType p = parseITensorType(
      "itensor<2x2xi8, iter_space: [2,2,2]*[2,1,2], iter_map: (d0,d1,d2)->(d0,d2)>");
  ITensorType c =
      parseITensorType("itensor<2x1xi8, iter_space: [2,4]*[2,1], iter_map: (d0,d1)->(d0,d1)>");
  ConverterProgram prog = programOf(p, c);
  EXPECT_EQ(prog.phases, 2);
  EXPECT_EQ(prog.producerTokensPerPhase, 4);
  EXPECT_EQ(prog.producerAddresses[0], prog.producerAddresses[2]);
  expectReproducesConsumer(p, c);
}

TEST(ConverterProgram, ErrorsNameTheProblem) {
  ITensorType b = parseITensorType(kB), c = parseITensorType(kC);
  EXPECT_THROW(buildConverterProgram(b, b, inferConverterBuffer(b, b)), st::Error);
  ConverterProgram prog = programOf(b, c);
  ConverterLimits limits = converterLimitsOf(prog);
  limits.maxConsumerTokens = 3;
  try {
    converterConsumerTableMem(prog, limits);
    FAIL() << "expected st::Error";
  } catch (const st::Error &e) {
    EXPECT_EQ(e.field(), "MaxConsTokens");
    EXPECT_EQ(e.expected(), "at most 3 (the instance's limit), got 4");
  }
}

TEST(ConverterProgram, RandomPairsReproduceTheConsumerOrder) {
  const unsigned seed = 5150;
  std::mt19937 rng(seed);
  int converters = 0, withShared = 0, withReuse = 0;
  for (int pair = 0; converters < 400; ++pair) {
    std::vector<int64_t> shape = random_types::randomTensorShape(rng);
    ITensorType p = random_types::randomTypeOver(rng, shape, "i8");
    unsigned prefix = random_types::chance(rng, 0.6)
                          ? static_cast<unsigned>(random_types::pick(rng, 0, p.numLoops()))
                          : 0;
    ITensorType c = random_types::randomTypeOver(rng, shape, "i8", &p, prefix);
    ConverterBufferShape b = inferConverterBuffer(p, c);
    if (!b.converterNeeded)
      continue;
    SCOPED_TRACE("seed " + std::to_string(seed) + " pair " + std::to_string(pair) +
                 "\n  producer " + p.toString() + "\n  consumer " + c.toString());
    ++converters;
    withShared += !b.sharedLoops.empty();
    withReuse += p.numTokens() * p.elementsPerToken() != c.numTokens() * c.elementsPerToken();
    expectReproducesConsumer(p, c);
    if (HasFailure())
      return;
  }
  std::printf("%d converters checked, %d with shared loops, %d with unequal reuse\n", converters,
              withShared, withReuse);
  EXPECT_GE(withShared, 50);
  EXPECT_GE(withReuse, 50);
}

} // namespace
