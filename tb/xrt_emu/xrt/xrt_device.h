// XRT emulation over the Verilator model (tb/xrt_emu): xrt::device and xrt::uuid with the
// signatures of XRT 2.x include/xrt/xrt_device.h, so the generated host program (host/host.cpp)
// compiles unchanged against it and runs its kernel in simulation. See xrt_emu_backend.h.
#pragma once

#include <memory>
#include <string>

namespace st::tb::xrtemu {
struct DeviceState;
}

namespace xrt {

class uuid {
public:
  uuid() = default;
  explicit uuid(std::string value) : value_(std::move(value)) {}
  const std::string &to_string() const { return value_; }

private:
  std::string value_;
};

class device {
public:
  device() = default;
  explicit device(unsigned int didx);
  /// Reads the emulated xclbin: a JSON file {"kernel", "clock_mhz"?, "args": [{"offset",
  /// "group"?, "size"?}]} (the register map of package_kernel.tcl and the HBM banks of link.cfg;
  /// an argument without "group" is a scalar of "size" bytes, default 4; a pointer is 8 bytes).
  uuid load_xclbin(const std::string &xclbin_fnm);

  std::shared_ptr<st::tb::xrtemu::DeviceState> state_;
};

} // namespace xrt
