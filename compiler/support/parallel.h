// parallelFor: independent pieces of work on the machine's cores (std::thread, no pool). The
// work items must not depend on each other's order; results go where each item writes them, so
// a parallel run computes exactly what a serial one does.
#pragma once

#include <cstddef>
#include <functional>

namespace st {

/// Runs f(i) for every i in [0, n) on up to `threads` threads (0: the hardware's concurrency;
/// 1 or n <= 1: in the calling thread). Items are handed out one at a time. If items throw, the
/// exception of the lowest such i is rethrown once all have finished.
void parallelFor(size_t n, const std::function<void(size_t)> &f, unsigned threads = 0);

} // namespace st
