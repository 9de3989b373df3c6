// parallelFor and the process's thread budget (see parallel.h).
#include "support/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

namespace st {

namespace {

/// setParallelThreads' budget (0: the default).
std::atomic<unsigned> budgetOverride{0};
/// Threads running parallelFor items beside the one that made the outermost call, process-wide:
/// the helpers, less the callers that wait for theirs (signed: a caller that gave its thread
/// back may still be waiting when its last helper leaves).
std::atomic<int> helpersRunning{0};

unsigned defaultThreads() {
  static const unsigned threads = [] {
    if (const char *env = std::getenv("ST_THREADS")) {
      char *end = nullptr;
      const long n = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && n >= 1)
        return static_cast<unsigned>(std::min<long>(n, 1024));
    }
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return threads;
}

/// Takes one helper thread out of the budget if one is free.
bool takeHelper(unsigned budget) {
  int running = helpersRunning.load();
  while (running + 1 < static_cast<int>(budget))
    if (helpersRunning.compare_exchange_weak(running, running + 1))
      return true;
  return false;
}

} // namespace

unsigned parallelThreads() {
  const unsigned b = budgetOverride.load();
  return b ? b : defaultThreads();
}

void setParallelThreads(unsigned threads) {
  budgetOverride = threads;
}

void parallelFor(size_t n, const std::function<void(size_t)> &f, unsigned threads) {
  const unsigned budget = parallelThreads();
  if (threads == 0)
    threads = budget;
  threads = static_cast<unsigned>(std::min<size_t>(threads, n));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i)
      f(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  auto runItem = [&](size_t i) {
    try {
      f(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  auto helper = [&] {
    for (size_t i = next++; i < n; i = next++)
      runItem(i);
    --helpersRunning; // back to the budget as soon as the items run out
  };
  std::vector<std::thread> pool;
  for (size_t i = next++; i < n; i = next++) {
    // Before each of its items the calling thread recruits helpers while items are left to
    // hand out and the budget has room (a nested call finds it taken; a later one may not).
    while (pool.size() + 1 < threads && next.load() < n && takeHelper(budget)) {
      try {
        pool.emplace_back(helper);
      } catch (...) { // no thread to be had: carry on with those there are
        --helpersRunning;
        break;
      }
    }
    runItem(i);
  }
  // No item left to hand out: while the calling thread waits for its helpers, its thread is
  // the budget's again (a nested call in a helper, e.g. the step prediction's rounds beside a
  // calibration that has finished, may take it).
  if (!pool.empty())
    --helpersRunning;
  for (std::thread &t : pool)
    t.join();
  if (!pool.empty())
    ++helpersRunning;
  for (const std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
}

BudgetYield::BudgetYield() {
  --helpersRunning;
}

BudgetYield::~BudgetYield() {
  ++helpersRunning;
}

void parallelForChunks(size_t n, size_t grain, const std::function<void(size_t, size_t)> &f,
                       unsigned threads) {
  grain = std::max<size_t>(grain, 1);
  const size_t chunks = (n + grain - 1) / grain;
  parallelFor(
      chunks, [&](size_t c) { f(c * grain, std::min(n, (c + 1) * grain)); }, threads);
}

} // namespace st
