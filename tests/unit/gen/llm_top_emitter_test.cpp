// The LLM top emitter's choice of which kernels get an st_vector_counter
// (plan::sidebandsFollowStepOrLayer): only a kernel whose sidebands follow the decode step or the
// layer needs one; a counter whose outputs nothing reads is dead RTL that the resource estimate
// would count and synthesis would remove.
#include "gen/llm_top_emitter.h"

#include <gtest/gtest.h>

namespace st::gen {
namespace {

plan::SidebandValue sideband(plan::SidebandSource source, uint64_t value = 0) {
  plan::SidebandValue s;
  s.port = "x_i";
  s.bits = 8;
  s.source = source;
  s.value = value;
  return s;
}

plan::LlmKernelConfig runsOf(std::vector<std::vector<plan::SidebandValue>> runs) {
  plan::LlmKernelConfig cfg;
  cfg.sidebandsByRun = std::move(runs);
  return cfg;
}

TEST(LlmTopEmitter, KernelsWithoutSidebandsGetNoCounter) {
  EXPECT_FALSE(plan::sidebandsFollowStepOrLayer(plan::LlmKernelConfig{}));
  EXPECT_FALSE(plan::sidebandsFollowStepOrLayer(runsOf({{}, {}})));
}

TEST(LlmTopEmitter, ConstantsEqualInEveryRunAndTableBasesGetNoCounter) {
  const plan::SidebandValue scale = sideband(plan::SidebandSource::Constant, 7);
  const plan::SidebandValue table = sideband(plan::SidebandSource::TableBase);
  EXPECT_FALSE(plan::sidebandsFollowStepOrLayer(runsOf({{scale, table}})));
  EXPECT_FALSE(plan::sidebandsFollowStepOrLayer(runsOf({{scale, table}, {scale, table}})));
}

TEST(LlmTopEmitter, PerLayerConstantsNeedTheLayer) {
  EXPECT_TRUE(
      plan::sidebandsFollowStepOrLayer(runsOf({{sideband(plan::SidebandSource::Constant, 7)},
                                               {sideband(plan::SidebandSource::Constant, 9)}})));
}

TEST(LlmTopEmitter, PositionAndCacheLengthNeedTheStep) {
  EXPECT_TRUE(
      plan::sidebandsFollowStepOrLayer(runsOf({{sideband(plan::SidebandSource::Position)}})));
  EXPECT_TRUE(
      plan::sidebandsFollowStepOrLayer(runsOf({{sideband(plan::SidebandSource::Constant, 1),
                                                sideband(plan::SidebandSource::CacheLength)}})));
}

} // namespace
} // namespace st::gen
