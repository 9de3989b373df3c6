// HbmModel: the simulated HBM behind a generated top's AXI masters, set up one way for both
// generated testbench runners (tb/design_run.h for graph designs, tb/llm_run.h for LLM
// accelerators). HbmTiming holds the run's HBM timing options (--latency, --jitter,
// --ready-probability) and hbmMemoryConfig turns them into the AxiMemoryConfig of every port:
// reads take latency + 0..jitter cycles, writes latency / 2 + 0..jitter, and every ready / valid
// the memory drives is offered with the ready probability, under the kernel clock's bandwidth
// cap. HbmModel then creates, per AXI master port, one AxiMemory seeded seed * 1000 + port (all
// sharing port 0's storage, so the ports see one address space, and port 0's per-pseudo-channel
// bandwidth buckets, so ports on one pseudo-channel share its 14.375 GB/s as on the U55C) and
// one AxiProtocolChecker, and
// adds them to the harness port by port (memory, then checker): the random timing and the
// clocking order, and with them every cycle count, depend only on the seed and the port order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "axi_checker.h"
#include "axi_memory.h"
#include "axi_pins.h"
#include "harness.h"

namespace st::tb {

/// HBM timing of a testbench run (the runners' --latency, --jitter, --ready-probability).
struct HbmTiming {
  unsigned readLatency = 24;     ///< fixed cycles before a read burst's data; writes get half
  unsigned latencyJitter = 40;   ///< plus uniform 0..jitter cycles per burst, reads and writes
  double readyProbability = 0.8; ///< chance per cycle of each ready / valid the memory drives
};

/// The AxiMemoryConfig of every HBM port under `timing` at the kernel clock (bandwidth cap).
inline AxiMemoryConfig hbmMemoryConfig(const HbmTiming &timing, double kernelClockMhz) {
  AxiMemoryConfig cfg;
  cfg.kernelClockMhz = kernelClockMhz;
  cfg.readLatency = timing.readLatency;
  cfg.readLatencyJitter = timing.latencyJitter;
  cfg.writeLatency = timing.readLatency / 2;
  cfg.writeLatencyJitter = timing.latencyJitter;
  cfg.arreadyProbability = cfg.awreadyProbability = cfg.wreadyProbability = cfg.rvalidProbability =
      cfg.bvalidProbability = timing.readyProbability;
  return cfg;
}

class HbmModel {
public:
  /// One memory and one protocol checker per port; `names[i]` names port `i` in messages.
  /// Throws TestFailure when there is no port or the names and pins differ in number.
  template <class Model>
  HbmModel(Harness<Model> &h, const std::vector<std::string> &names,
           const std::vector<AxiPins> &pins, uint64_t seed, const AxiMemoryConfig &config) {
    if (pins.empty() || names.size() != pins.size())
      throw TestFailure("HBM model: " + std::to_string(names.size()) + " port names for " +
                        std::to_string(pins.size()) + " AXI masters (expected as many, >= 1)");
    for (size_t i = 0; i < pins.size(); ++i) {
      memories_.push_back(std::make_unique<AxiMemory>(names[i], pins[i], seed * 1000 + i, config));
      if (i) {
        memories_[i]->shareStorageWith(*memories_[0]);
        memories_[i]->shareBandwidthWith(*memories_[0]);
      }
      checkers_.push_back(std::make_unique<AxiProtocolChecker>(names[i], pins[i]));
      h.add(*memories_[i]);
      h.add(*checkers_[i]);
    }
  }

  /// The storage every port shares (port 0's memory): load inputs and read results through it.
  AxiMemory &storage() { return *memories_[0]; }

  /// Bytes every port read / wrote since the model was made.
  uint64_t bytesRead() const {
    uint64_t bytes = 0;
    for (const auto &m : memories_)
      bytes += m->stats().bytesRead;
    return bytes;
  }
  uint64_t bytesWritten() const {
    uint64_t bytes = 0;
    for (const auto &m : memories_)
      bytes += m->stats().bytesWritten;
    return bytes;
  }

private:
  std::vector<std::unique_ptr<AxiMemory>> memories_;
  std::vector<std::unique_ptr<AxiProtocolChecker>> checkers_;
};

} // namespace st::tb
