// XRT emulation over the Verilator model (tb/xrt_emu): xrt::bo with the signatures of XRT 2.x
// include/xrt/xrt_bo.h. A buffer is a host copy plus a range of the emulated HBM in its bank
// (pseudo-channel `grp`); sync copies between the two. A sub-buffer (bo(parent, size, offset),
// what the LLM host points each kernel argument at) shares its parent's host copy and HBM range
// at `offset`: writes through either are seen by both, and its address() is the parent's plus
// `offset`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

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
  bo() = default;
  bo(const xrt::device &device, size_t sz, memory_group grp);
  /// A sub-buffer: `size` bytes of `parent` at `offset` (within the parent).
  bo(const bo &parent, size_t size, size_t offset);
  void write(const void *src, size_t size, size_t seek);
  void write(const void *src) { write(src, size(), 0); }
  void read(void *dst, size_t size, size_t skip);
  void read(void *dst) { read(dst, size(), 0); }
  void sync(xclBOSyncDirection dir);
  /// Syncs `size` bytes at `offset` of this buffer only.
  void sync(xclBOSyncDirection dir, size_t size, size_t offset);
  size_t size() const;
  uint64_t address() const;

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

} // namespace xrt
