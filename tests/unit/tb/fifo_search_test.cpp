// Unit tests of searchFifoDepths (tb/design_run.h), the per-FIFO bisection of the RTL FIFO-depth
// search, on a fake design whose cycles are a known function of the FIFO limits: the search must
// find each FIFO's exact threshold with the others at their sized depth, count a deadlock or a
// mismatch as a miss, stop trials at the budget, and report -1 when the sized depths miss.
#include <gtest/gtest.h>

#include "design_run.h"

namespace st::tb {
namespace {

/// A fake design: 1000 cycles when every FIFO e holds at least need[e] tokens, plus `penalty`
/// cycles per token missing; a limit below deadlockBelow[e] deadlocks.
struct FakeDesign {
  std::vector<uint64_t> need, deadlockBelow;
  uint64_t penalty = 15;
  std::vector<uint64_t> timeouts;
  nlohmann::json operator()(const std::vector<uint64_t> &limits, uint64_t timeout) {
    timeouts.push_back(timeout);
    uint64_t cycles = 1000;
    for (size_t e = 0; e < limits.size(); ++e) {
      if (limits[e] < deadlockBelow[e])
        return {{"bit_exact", false}, {"deadlock", true}, {"cycles", timeout}};
      if (limits[e] < need[e])
        cycles += penalty * (need[e] - limits[e]);
    }
    return {{"bit_exact", true}, {"deadlock", false}, {"cycles", cycles}};
  }
};

std::vector<SearchFifo> fifos(const std::vector<uint64_t> &sized) {
  std::vector<SearchFifo> out;
  for (size_t e = 0; e < sized.size(); ++e)
    out.push_back({"f" + std::to_string(e), sized[e], 8192, 8 * (e + 1)});
  return out;
}

TEST(FifoSearch, FindsEachThresholdWithTheOthersAtTheirSizedDepth) {
  // 2 % of 1000 is 20 cycles: one missing token (15 cycles) is tolerated, two are not.
  FakeDesign d{{2, 9, 31, 5}, {1, 1, 4, 1}};
  const nlohmann::json r = searchFifoDepths(fifos({2, 12, 40, 5}), 0.02, std::ref(d));
  EXPECT_EQ(r["cycles_deep"], 1000u);
  EXPECT_EQ(r["cycles_sized"], 1000u);
  EXPECT_EQ(r["budget_cycles"], 1020u);
  EXPECT_TRUE(r["sized_ok"]);
  const std::vector<int64_t> want = {2, 8, 30, 4};
  for (size_t e = 0; e < want.size(); ++e)
    EXPECT_EQ(r["fifos"][e]["searched_min_depth"], want[e]) << "FIFO " << e;
  EXPECT_EQ(r["sized_fifo_bits"], 2 * 8 + 12 * 16 + 40 * 24 + 5 * 32);
  EXPECT_EQ(r["searched_fifo_bits"], 2 * 8 + 8 * 16 + 30 * 24 + 4 * 32);
  // Trials after the two reference runs are stopped at the budget.
  for (size_t i = 2; i < d.timeouts.size(); ++i)
    EXPECT_EQ(d.timeouts[i], 1020u);
}

TEST(FifoSearch, ADeadlockIsAMiss) {
  // FIFO 0 would be fast enough at 2 but deadlocks below 6.
  FakeDesign d{{2, 2}, {6, 1}};
  const nlohmann::json r = searchFifoDepths(fifos({10, 2}), 0.02, std::ref(d));
  EXPECT_EQ(r["fifos"][0]["searched_min_depth"], 6);
  EXPECT_EQ(r["fifos"][1]["searched_min_depth"], 2);
}

TEST(FifoSearch, SizedDepthsThatMissTheBudgetGiveMinusOne) {
  FakeDesign d{{2, 20}, {1, 1}};
  const nlohmann::json r = searchFifoDepths(fifos({2, 10}), 0.02, std::ref(d));
  EXPECT_FALSE(r["sized_ok"]);
  EXPECT_EQ(r["cycles_sized"], 1000u + 15 * 10);
  EXPECT_EQ(r["fifos"][0]["searched_min_depth"], -1);
  EXPECT_EQ(r["fifos"][1]["searched_min_depth"], -1);
  EXPECT_EQ(r["trials"], 2u);
}

} // namespace
} // namespace st::tb
