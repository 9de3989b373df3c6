// Minimal declarations of the XRT native API calls the generated host program uses (the
// signatures of XRT 2.x include/xrt/xrt_device.h and xrt_uuid.h), so tests/vitis can compile
// host.cpp without XRT. Declarations only: nothing here runs.
#pragma once

#include <string>

namespace xrt {

class uuid {
public:
  uuid();
};

class device {
public:
  device();
  explicit device(unsigned int didx);
  uuid load_xclbin(const std::string &xclbin_fnm);
};

} // namespace xrt
