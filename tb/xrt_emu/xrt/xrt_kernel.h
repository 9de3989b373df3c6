// XRT emulation over the Verilator model (tb/xrt_emu): xrt::kernel and xrt::run with the
// signatures of XRT 2.x include/xrt/xrt_kernel.h. run.start() programs each argument at the
// offset the emulated xclbin gives and sets ap_start through the AXI4-Lite host model; wait()
// runs the simulation until ap_done.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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
  int group_id(int argno) const;
  uint32_t offset(int argno) const;

  std::shared_ptr<st::tb::xrtemu::DeviceState> state_;
};

class run {
public:
  explicit run(const kernel &krnl);
  void start();
  ert_cmd_state wait(unsigned int timeout_ms = 0) const;
  void set_arg(int index, const xrt::bo &boh);

private:
  std::shared_ptr<st::tb::xrtemu::DeviceState> state_;
  std::vector<uint64_t> args_;
};

} // namespace xrt
