// Minimal declarations of the XRT buffer-object calls the generated host program uses (XRT 2.x
// include/xrt/xrt_bo.h). Declarations only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xrt/xrt_device.h"

enum xclBOSyncDirection {
  XCL_BO_SYNC_BO_TO_DEVICE = 0,
  XCL_BO_SYNC_BO_FROM_DEVICE,
  XCL_BO_SYNC_BO_GMIO_TO_AIE,
  XCL_BO_SYNC_BO_AIE_TO_GMIO,
};

namespace xrt {

using memory_group = uint32_t;

class bo {
public:
  bo();
  bo(const xrt::device &device, size_t sz, memory_group grp);
  /// A sub-buffer: `size` bytes of `parent` at `offset` (the LLM host's pointer arguments).
  bo(const bo &parent, size_t size, size_t offset);
  void write(const void *src, size_t size, size_t seek);
  void read(void *dst, size_t size, size_t skip);
  void sync(xclBOSyncDirection dir);
  uint64_t address() const;
};

} // namespace xrt
