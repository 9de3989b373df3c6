// XRT emulation backend: runs the generated host program (host/host.cpp, XRT native API)
// against the Verilated kernel top instead of a card. The generated tb/host_emu_bind.cpp
// registers a factory of VerilatedBackend<Vtop> (the same port bindings as tb_main.cpp); the
// emulated xrt::device creates it, xrt::bo reads and writes its HBM model (one store behind all
// AXI masters, the address space of the 32 pseudo-channels), xrt::run programs the argument
// registers through its AXI4-Lite host model at the offsets of the emulated xclbin, sets
// ap_start, and its wait() simulates until a read of the control register shows ap_done. The HBM
// is the design testbench's (tb/hbm_model.h: default timing, seeded, bandwidth cap at the clock).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "axi_lite_master.h"
#include "harness.h"
#include "hbm_model.h"

namespace st::tb::xrtemu {

/// A simulated kernel with its HBM: what the emulated XRT calls need.
class EmuBackend {
public:
  virtual ~EmuBackend() = default;
  virtual void writeHbm(uint64_t address, const void *data, size_t bytes) = 0;
  virtual void readHbm(uint64_t address, void *data, size_t bytes) = 0;
  virtual void writeRegister(uint32_t offset, uint32_t value) = 0;
  /// Writes ap_start.
  virtual void start() = 0;
  /// Simulates, polling the control register, until ap_done; false after timeoutCycles.
  virtual bool waitDone(uint64_t timeoutCycles) = 0;
  virtual uint64_t cycles() const = 0;
};

using BackendFactory = std::function<std::unique_ptr<EmuBackend>()>;
/// Called once by the generated binding (a static initializer).
bool registerBackend(BackendFactory factory);

/// The emulated device: its backend, the loaded xclbin's kernel and arguments, HBM allocation.
struct DeviceState {
  std::unique_ptr<EmuBackend> backend;
  std::string kernelName;
  struct Arg {
    uint32_t offset = 0;
    bool pointer = true;
    int group = -1;     ///< the HBM bank of a pointer; -1 for a scalar
    unsigned bytes = 8; ///< a pointer: 8; a scalar: its size, a multiple of 4
  };
  double kernelClockMhz = 250; ///< converts run.wait()'s timeout to cycles
  std::vector<Arg> args;
  std::vector<uint64_t> nextFree; ///< per HBM pseudo-channel: next free byte
  bool running = false;           ///< ap_start written, ap_done not yet seen
  bool lastRunOk = false;
};

template <class Model> class VerilatedBackend : public EmuBackend {
public:
  VerilatedBackend(const std::function<AxiLitePins(Model &)> &controlPins,
                   const std::function<std::vector<AxiPins>(Model &)> &dmaPins, uint64_t seed,
                   double kernelClockMhz = 0)
      : harness_(options(seed),
                 [](Model &m) {
                   return ClockReset{&m.ap_clk, &m.ap_rst_n};
                 }),
        host_("host", controlPins(harness_.dut()), seed * 7 + 1) {
    // The design testbench's HBM (tb/hbm_model.h): default timing, bandwidth cap at the clock.
    const std::vector<AxiPins> pins = dmaPins(harness_.dut());
    std::vector<std::string> names;
    for (size_t i = 0; i < pins.size(); ++i)
      names.push_back("m_axi" + std::to_string(i));
    hbm_ = std::make_unique<HbmModel>(harness_, names, pins, seed,
                                      hbmMemoryConfig(HbmTiming{}, kernelClockMhz));
    harness_.add(host_);
    harness_.reset();
  }

  void writeHbm(uint64_t address, const void *data, size_t bytes) override {
    hbm_->storage().write(address, static_cast<const uint8_t *>(data), bytes);
  }
  void readHbm(uint64_t address, void *data, size_t bytes) override {
    hbm_->storage().read(address, static_cast<uint8_t *>(data), bytes);
  }
  void writeRegister(uint32_t offset, uint32_t value) override {
    host_.write32(harness_, offset, value);
  }
  void start() override { host_.startKernel(harness_); }
  bool waitDone(uint64_t timeoutCycles) override {
    try {
      host_.waitDone(harness_, timeoutCycles);
    } catch (const TestFailure &) {
      return false;
    }
    return true;
  }
  uint64_t cycles() const override { return harness_.cycle(); }

private:
  static TestOptions options(uint64_t seed) {
    TestOptions o;
    o.seed = seed;
    return o;
  }
  Harness<Model> harness_;
  AxiLiteMaster host_;
  std::unique_ptr<HbmModel> hbm_;
};

} // namespace st::tb::xrtemu
