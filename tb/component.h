// Component: anything the Harness calls once per clock cycle (drivers, sinks, checkers, memory
// models, the watchdog). Each cycle the Harness calls drive() on all components, settles the
// model, calls sample() on all, then applies the rising clock edge.
#pragma once

#include <cstdint>
#include <string>

namespace st::tb {

class Component {
public:
  virtual ~Component() = default;
  /// Set DUT inputs for this cycle. Must not depend on DUT outputs that depend on these inputs.
  virtual void drive(uint64_t cycle) { (void)cycle; }
  /// Observe settled DUT outputs just before the rising edge; a handshake seen here completes
  /// at that edge.
  virtual void sample(uint64_t cycle) { (void)cycle; }
  /// Called while reset is asserted: return to the initial state and drive idle values.
  virtual void reset() {}
  /// A failure message, or empty. The Harness stops at the first failing component.
  virtual std::string error() const { return {}; }
};

} // namespace st::tb
