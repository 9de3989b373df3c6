// The kernel's own span of a run (see kernel_span.h).
#include "kernel_span.h"

namespace st::tb {

KernelSpan::KernelSpan(const VerilatedContext &context, const std::string &scope)
    : start_signal_(scopeSignal(context, scope, "ap_start")),
      done_signal_(scopeSignal(context, scope, "ap_done")) {}

void KernelSpan::sample(uint64_t cycle) {
  if (start_ < 0 && start_signal_.read() != 0)
    start_ = static_cast<int64_t>(cycle);
  if (start_ >= 0 && done_ < 0 && done_signal_.read() != 0)
    done_ = static_cast<int64_t>(cycle);
}

} // namespace st::tb
