// XRT emulation over the Verilator model (tb/xrt_emu): xrt::kernel and xrt::run with the
// signatures of XRT 2.x include/xrt/xrt_kernel.h. run.start() programs each argument at the
// offset the emulated xclbin gives (a pointer: its buffer's address, low word then high word at
// +4; a scalar: its value, one 32-bit word per 4 bytes of its xclbin size) and sets ap_start, all
// through the AXI4-Lite host model; wait() simulates until ap_done reads 1.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"

enum ert_cmd_state {
  ERT_CMD_STATE_NEW = 1,
  ERT_CMD_STATE_QUEUED = 2,
  ERT_CMD_STATE_RUNNING = 3,
  ERT_CMD_STATE_COMPLETED = 4,
  ERT_CMD_STATE_ERROR = 5,
  ERT_CMD_STATE_ABORT = 6,
  ERT_CMD_STATE_SUBMITTED = 7,
  ERT_CMD_STATE_TIMEOUT = 8,
};

namespace xrt {

class kernel {
public:
  kernel(const xrt::device &device, const xrt::uuid &xclbin_id, const std::string &name);
  /// The HBM bank of a pointer argument (link.cfg sp=); -1 for a scalar.
  int group_id(int argno) const;
  uint32_t offset(int argno) const;

  std::shared_ptr<st::tb::xrtemu::DeviceState> state_;
};

class run {
public:
  explicit run(const kernel &krnl);
  void start();
  /// Simulates until ap_done; timeout_ms 0 waits for the emulation's cycle budget
  /// (ST_XRT_EMU_TIMEOUT_CYCLES, default 20 million cycles, the LLM testbench's --timeout),
  /// else timeout_ms at the kernel clock of the emulated xclbin. ERT_CMD_STATE_TIMEOUT when
  /// ap_done does not come.
  ert_cmd_state wait(unsigned int timeout_ms = 0) const;
  void set_arg(int index, const xrt::bo &boh);
  void set_arg(int index, xrt::bo &boh) { set_arg(index, static_cast<const xrt::bo &>(boh)); }
  /// A scalar argument by value (XRT copies sizeof(ArgType) bytes of it).
  template <typename ArgType,
            typename = std::enable_if_t<std::is_arithmetic_v<std::decay_t<ArgType>>>>
  void set_arg(int index, ArgType &&arg) {
    const std::decay_t<ArgType> value = arg;
    setScalar(index, &value, sizeof value);
  }

private:
  void setScalar(int index, const void *value, size_t bytes);
  std::shared_ptr<st::tb::xrtemu::DeviceState> state_;
  std::vector<uint64_t> args_;
  std::vector<bool> set_;
};

} // namespace xrt
