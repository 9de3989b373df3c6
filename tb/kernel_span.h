// KernelSpan: the kernel's own cycles of one run, from the control slave's start pulse
// (ap_start) to the kernel's done (ap_done), read every cycle from the top's public control wires
// (tb/probes.vlt, gen/stream_probes.h kKernelStartSignal / kKernelDoneSignal). The host's
// AXI-Lite write of ap_start and its polling for ap_done are not in it: this is the span the
// compiler's predicted_kernel_cycles describes (report.json), its DMA and HBM latencies, bursts
// and write responses included.
#pragma once

#include <cstdint>
#include <string>

#include "component.h"
#include "stream_profile.h"

namespace st::tb {

class KernelSpan : public Component {
public:
  /// Binds ap_start and ap_done in `scope` (e.g. "dut.<top>"); throws TestFailure when the model
  /// does not expose them.
  KernelSpan(const VerilatedContext &context, const std::string &scope);

  void sample(uint64_t cycle) override;
  /// The first start seen (-1 before) and the first done at or after it (-1 before).
  int64_t startCycle() const { return start_; }
  int64_t doneCycle() const { return done_; }
  /// done - start: the kernel's cycles (-1 until both were seen).
  int64_t cycles() const { return done_ >= 0 ? done_ - start_ : -1; }

private:
  ScopeSignal start_signal_, done_signal_;
  int64_t start_ = -1, done_ = -1;
};

} // namespace st::tb
