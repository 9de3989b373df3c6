// parallelFor (support/parallel.h): every item exactly once whatever the thread count, the
// chunks of parallelForChunks independent of it, errors of the lowest item, no more threads at
// once than the budget, nested calls included, and a thread blocked under a BudgetYield lending
// its place.
#include "support/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace st {
namespace {

/// Sets the thread budget for one test and restores the default after it.
struct Budget {
  explicit Budget(unsigned threads) { setParallelThreads(threads); }
  ~Budget() { setParallelThreads(0); }
};

TEST(ParallelFor, RunsEveryItemOnceWithAnyThreadCount) {
  Budget budget(8);
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u})
    for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(1000)}) {
      std::vector<std::atomic<int>> runs(n);
      parallelFor(
          n, [&](size_t i) { ++runs[i]; }, threads);
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(runs[i].load(), 1)
            << "item " << i << " of " << n << ", " << threads << " threads";
    }
}

TEST(ParallelFor, ChunksDependOnTheGrainOnly) {
  Budget budget(8);
  for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(64), size_t(1001)})
    for (size_t grain : {size_t(0), size_t(1), size_t(3), size_t(64), size_t(5000)}) {
      std::set<std::pair<size_t, size_t>> reference;
      for (unsigned threads : {1u, 2u, 8u}) {
        std::mutex m;
        std::set<std::pair<size_t, size_t>> chunks;
        parallelForChunks(
            n, grain,
            [&](size_t b, size_t e) {
              std::lock_guard<std::mutex> lock(m);
              chunks.insert({b, e});
            },
            threads);
        // Consecutive, non-empty, covering [0, n), `grain` long but the last.
        size_t at = 0;
        for (const auto &[b, e] : chunks) {
          ASSERT_EQ(b, at);
          ASSERT_LT(b, e);
          ASSERT_TRUE(e - b == std::max<size_t>(grain, 1) || e == n);
          at = e;
        }
        ASSERT_EQ(at, n);
        if (threads == 1)
          reference = chunks;
        ASSERT_EQ(chunks, reference) << n << " / " << grain << ", " << threads << " threads";
      }
    }
}

TEST(ParallelFor, RethrowsTheLowestFailingItemAfterAllRan) {
  Budget budget(4);
  std::atomic<int> ran{0};
  try {
    parallelFor(100, [&](size_t i) {
      ++ran;
      if (i == 17 || i == 60)
        throw std::runtime_error("item " + std::to_string(i));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "item 17");
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(ParallelFor, NestedCallsStayWithinTheBudget) {
  for (unsigned budgetThreads : {1u, 2u, 3u}) {
    Budget budget(budgetThreads);
    std::atomic<int> running{0}, most{0};
    std::mutex m;
    std::set<std::thread::id> ids;
    auto work = [&] {
      const int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      {
        std::lock_guard<std::mutex> lock(m);
        ids.insert(std::this_thread::get_id());
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      --running;
    };
    std::atomic<int> inner{0};
    parallelFor(6, [&](size_t) {
      parallelFor(5, [&](size_t) {
        ++inner;
        work();
      });
    });
    EXPECT_EQ(inner.load(), 30);
    EXPECT_LE(most.load(), static_cast<int>(budgetThreads)) << "budget " << budgetThreads;
    if (budgetThreads == 1)
      EXPECT_EQ(ids.size(), 1u); // all in the calling thread
  }
}

TEST(ParallelFor, ACallerWaitingForItsHelpersGivesItsThreadBack) {
  // Budget 2: the caller runs item 0, a helper item 1. Once the caller only waits,
  // item 1's own calls may take a helper: the step prediction's rounds beside a calibration that
  // has finished. Rounds repeat until the caller is surely waiting.
  Budget budget(2);
  std::atomic<bool> secondStarted{false}, firstDone{false};
  std::set<std::thread::id> innerIds;
  std::mutex m;
  parallelFor(2, [&](size_t item) {
    if (item == 0) { // the caller's: it ends once a helper has item 1
      while (!secondStarted)
        std::this_thread::yield();
      firstDone = true;
      return;
    }
    secondStarted = true;
    while (!firstDone)
      std::this_thread::yield();
    for (int round = 0; round < 200 && innerIds.size() < 2; ++round) {
      std::set<std::thread::id> ids;
      parallelFor(4, [&](size_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::lock_guard<std::mutex> lock(m);
        ids.insert(std::this_thread::get_id());
      });
      innerIds = ids;
    }
  });
  EXPECT_EQ(innerIds.size(), 2u) << "the nested rounds never got the waiting caller's thread";
}

TEST(ParallelFor, AThreadThatYieldsItsBudgetLetsOtherCallsTakeAHelper) {
  // Budget 2: the caller runs item 0, a helper item 1, which then blocks on a future under a
  // BudgetYield (compile's emitting item waiting for the choices). Item 0's own calls may take
  // its place meanwhile; without the yield they run on one thread.
  for (const bool yield : {true, false}) {
    SCOPED_TRACE(yield ? "yielding" : "not yielding");
    Budget budget(2);
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<bool> waiting{false};
    std::set<std::thread::id> innerIds;
    std::mutex m;
    parallelFor(2, [&](size_t item) {
      if (item == 1) {
        if (yield) {
          const BudgetYield idle;
          waiting = true;
          released.wait();
        } else {
          waiting = true;
          released.wait();
        }
        return;
      }
      while (!waiting)
        std::this_thread::yield();
      parallelFor(4, [&](size_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::lock_guard<std::mutex> lock(m);
        innerIds.insert(std::this_thread::get_id());
      });
      release.set_value();
    });
    EXPECT_EQ(innerIds.size(), yield ? 2u : 1u);
  }
}

TEST(ParallelFor, ABudgetOfOneRunsInTheCallingThread) {
  Budget budget(1);
  const std::thread::id caller = std::this_thread::get_id();
  parallelFor(50, [&](size_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
}

} // namespace
} // namespace st
