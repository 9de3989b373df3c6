// Drives a kernel's sideband inputs from the bindings of plan/llm_kernel_bindings.h (the port
// values the LLM top drives), so a kernel's Verilator testbench exercises the same descriptor ->
// port mapping as the emitter instead of a copy of it. Header-only; the testbench links
// st_compiler.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "plan/llm_kernel_bindings.h"
#include "signal_ref.h"

namespace st::tb {

class SidebandPorts {
public:
  /// The module's sideband ports by RTL name (e.g. {"mult_mantissa_i", SignalRef(m.mult_mantissa_i,
  /// 24)}).
  explicit SidebandPorts(std::map<std::string, SignalRef> ports) : ports_(std::move(ports)) {}

  /// Writes every value (Position / CacheLength / TableBase from `runtime`). Throws
  /// std::runtime_error for a port the map lacks or a width other than the binding's, so a
  /// binding that names no real port or the wrong width fails the testbench.
  void write(const std::vector<plan::SidebandValue> &values,
             const plan::SidebandRuntime &runtime = {}) const {
    for (const plan::SidebandValue &v : values) {
      auto it = ports_.find(v.port);
      if (it == ports_.end())
        throw std::runtime_error("sideband binding names port " + v.port +
                                 ", which the testbench does not know");
      if (it->second.width() != v.bits)
        throw std::runtime_error("sideband " + v.port + ": binding of " + std::to_string(v.bits) +
                                 " bits, port of " + std::to_string(it->second.width()));
      it->second.write(plan::sidebandValueAt(v, runtime));
    }
  }

  /// Writes `value` to every port (garbage between vectors, which the kernel must not sample).
  void fill(uint64_t value) const {
    for (const auto &[name, ref] : ports_)
      ref.write(value);
  }

private:
  std::map<std::string, SignalRef> ports_;
};

} // namespace st::tb
