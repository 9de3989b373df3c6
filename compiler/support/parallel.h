// parallelFor: independent pieces of work on the machine's cores (std::thread, no pool). The
// work items must not depend on each other's order; results go where each item writes them, so
// a parallel run computes exactly what a serial one does. How the work is cut into items must
// not depend on the thread count either (parallelForChunks cuts by a fixed grain): then the
// results are the same bits with 1 thread or many.
//
// One budget of threads serves the whole process: parallelThreads() (ST_THREADS=N, else the
// hardware's concurrency). A call takes helper threads only while the budget has some free, so
// nested calls (a quantization job that splits its rows, a timing round inside the step
// prediction) and calls from threads started elsewhere never run more threads than the budget;
// a call that finds none free runs its items in the calling thread.
#pragma once

#include <cstddef>
#include <functional>

namespace st {

/// The process's thread budget: ST_THREADS when set to a positive integer, else the hardware's
/// concurrency (at least 1), unless setParallelThreads changed it.
unsigned parallelThreads();
/// Sets the thread budget (0: back to ST_THREADS or the hardware's concurrency). For tests that
/// compare a 1-thread run with an N-thread one; call it while no parallelFor is running.
void setParallelThreads(unsigned threads);

/// Runs f(i) for every i in [0, n) on up to `threads` threads (0: the budget; 1 or n <= 1: in
/// the calling thread), the calling thread being one of them; helper threads come out of the
/// budget and go back to it as they run out of items. Items are handed out one at a time in
/// increasing i. If items throw, the exception of the lowest such i is rethrown once all have
/// finished.
void parallelFor(size_t n, const std::function<void(size_t)> &f, unsigned threads = 0);

/// While it lives, the thread that made it (one the budget counts: a parallelFor item or helper)
/// blocks on something other than parallelFor (a future, a lock), so its thread is the
/// budget's: calls elsewhere may take a helper in its place. When it ends the thread runs again,
/// possibly one over the budget until some call gives a helper back.
class BudgetYield {
public:
  BudgetYield();
  ~BudgetYield();
  BudgetYield(const BudgetYield &) = delete;
  BudgetYield &operator=(const BudgetYield &) = delete;
};

/// Runs f(begin, end) over [0, n) cut into consecutive chunks of `grain` indices (the last one
/// shorter), as parallelFor runs its items. The chunks depend on n and grain only.
void parallelForChunks(size_t n, size_t grain, const std::function<void(size_t, size_t)> &f,
                       unsigned threads = 0);

} // namespace st
