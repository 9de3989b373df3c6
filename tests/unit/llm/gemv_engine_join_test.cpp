// Unit tests of the engine's call sequence (llm/gemv_engine_join): the x each call announces to
// the engine (EngineUse::nextXOf) follows the step's order — the block's calls in every layer,
// then the epilogue's — and is never a reused x or past the step's last call.
#include "llm/gemv_engine_join.h"

#include <gtest/gtest.h>

namespace st::llm {
namespace {

EngineCall call(int stage, const char *op, unsigned xPort, int64_t k, bool reuseX) {
  EngineCall c;
  c.stage = stage;
  c.op = op;
  c.xPort = xPort;
  c.k = k;
  c.reuseX = reuseX;
  return c;
}

TEST(GemvEngineJoin, NextXFollowsTheStepOrder) {
  EngineUse use;
  use.layers = 2;
  use.calls = {call(1, "q", 0, 64, false),     call(1, "k", 0, 64, true),
               call(1, "v", 0, 64, true),      call(1, "o", 1, 64, false),
               call(1, "gate", 2, 64, false),  call(1, "up", 2, 64, true),
               call(1, "down", 3, 256, false), call(2, "lm_head", 4, 64, false)};
  using X = numerics::GemvNextX;
  EXPECT_FALSE(use.nextXOf(0, 0)); // k reuses q's x
  EXPECT_FALSE(use.nextXOf(1, 0));
  EXPECT_EQ(use.nextXOf(2, 0), (X{1, 64}));  // o
  EXPECT_EQ(use.nextXOf(3, 1), (X{2, 64}));  // gate
  EXPECT_EQ(use.nextXOf(5, 0), (X{3, 256})); // down, after up
  EXPECT_EQ(use.nextXOf(6, 0), (X{0, 64}));  // the next layer's q
  EXPECT_EQ(use.nextXOf(6, 1), (X{4, 64}));  // after the last layer: the LM head
  EXPECT_FALSE(use.nextXOf(7, 0));           // the step's last call
}

} // namespace
} // namespace st::llm
