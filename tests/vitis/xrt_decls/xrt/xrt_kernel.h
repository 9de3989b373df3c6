// Minimal declarations of the XRT kernel and run calls the generated host program uses (XRT 2.x
// include/xrt/xrt_kernel.h and ert.h). Declarations only.
#pragma once

#include <cstdint>
#include <string>

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
};

class run {
public:
  explicit run(const kernel &krnl);
  void start();
  ert_cmd_state wait(unsigned int timeout_ms = 0) const;
  void set_arg(int index, const xrt::bo &boh);
  /// A scalar argument (XRT declares a template over the argument type; the LLM host passes
  /// uint32_t n_prompt and n_steps).
  void set_arg(int index, uint32_t value);
};

} // namespace xrt
