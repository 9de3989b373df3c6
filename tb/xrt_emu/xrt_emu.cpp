// XRT emulation: xrt::device, xrt::bo, xrt::kernel and xrt::run over a registered EmuBackend
// (a Verilated kernel top). See xrt_emu_backend.h.
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"
#include "xrt_emu_backend.h"

namespace st::tb::xrtemu {

namespace {
BackendFactory &factory() {
  static BackendFactory f;
  return f;
}
constexpr unsigned kChannels = 32;
constexpr uint64_t kChannelBytes = uint64_t{1} << 29;
} // namespace

bool registerBackend(BackendFactory f) {
  factory() = std::move(f);
  return true;
}

} // namespace st::tb::xrtemu

namespace xrt {

using st::tb::xrtemu::DeviceState;

device::device(unsigned int didx) {
  if (didx != 0)
    throw std::runtime_error("xrt emulation: only device 0 exists");
  if (!st::tb::xrtemu::factory())
    throw std::runtime_error("xrt emulation: no kernel backend registered");
  state_ = std::make_shared<DeviceState>();
  state_->backend = st::tb::xrtemu::factory()();
  state_->nextFree.assign(st::tb::xrtemu::kChannels, 0);
}

uuid device::load_xclbin(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("xrt emulation: cannot read the xclbin " + path);
  const nlohmann::json j = nlohmann::json::parse(in);
  state_->kernelName = j.at("kernel").get<std::string>();
  state_->args.clear();
  for (const auto &a : j.at("args"))
    state_->args.push_back({a.at("offset").get<uint32_t>(), a.at("group").get<int>()});
  return uuid(path);
}

struct bo::Impl {
  std::shared_ptr<DeviceState> state;
  uint64_t address = 0;
  std::vector<uint8_t> host;
};

bo::bo(const xrt::device &device, size_t sz, memory_group grp) : impl_(std::make_shared<Impl>()) {
  if (grp >= st::tb::xrtemu::kChannels)
    throw std::runtime_error("xrt emulation: no HBM bank " + std::to_string(grp));
  impl_->state = device.state_;
  uint64_t &next = impl_->state->nextFree[grp];
  impl_->address = grp * st::tb::xrtemu::kChannelBytes + next;
  next += (sz + 4095) / 4096 * 4096;
  if (next > st::tb::xrtemu::kChannelBytes)
    throw std::runtime_error("xrt emulation: HBM bank " + std::to_string(grp) + " is full");
  impl_->host.assign(sz, 0);
}

void bo::write(const void *src, size_t size, size_t seek) {
  if (seek + size > impl_->host.size())
    throw std::runtime_error("xrt emulation: bo::write past the buffer's end");
  std::memcpy(impl_->host.data() + seek, src, size);
}

void bo::read(void *dst, size_t size, size_t skip) {
  if (skip + size > impl_->host.size())
    throw std::runtime_error("xrt emulation: bo::read past the buffer's end");
  std::memcpy(dst, impl_->host.data() + skip, size);
}

void bo::sync(xclBOSyncDirection dir) {
  if (dir == XCL_BO_SYNC_BO_TO_DEVICE)
    impl_->state->backend->writeHbm(impl_->address, impl_->host.data(), impl_->host.size());
  else
    impl_->state->backend->readHbm(impl_->address, impl_->host.data(), impl_->host.size());
}

uint64_t bo::address() const {
  return impl_->address;
}

kernel::kernel(const xrt::device &device, const xrt::uuid &, const std::string &name)
    : state_(device.state_) {
  if (name != state_->kernelName)
    throw std::runtime_error("xrt emulation: the xclbin has kernel '" + state_->kernelName +
                             "', not '" + name + "'");
}

int kernel::group_id(int argno) const {
  return state_->args.at(static_cast<size_t>(argno)).group;
}
uint32_t kernel::offset(int argno) const {
  return state_->args.at(static_cast<size_t>(argno)).offset;
}

run::run(const kernel &krnl) : state_(krnl.state_), args_(krnl.state_->args.size(), 0) {}

void run::set_arg(int index, const xrt::bo &boh) {
  args_.at(static_cast<size_t>(index)) = boh.address();
}

void run::start() {
  for (size_t i = 0; i < args_.size(); ++i) {
    state_->backend->writeRegister(state_->args[i].offset, static_cast<uint32_t>(args_[i]));
    state_->backend->writeRegister(state_->args[i].offset + 4,
                                   static_cast<uint32_t>(args_[i] >> 32));
  }
  state_->lastRunOk = state_->backend->startAndWait(2000000);
}

ert_cmd_state run::wait(unsigned int) const {
  return state_->lastRunOk ? ERT_CMD_STATE_COMPLETED : ERT_CMD_STATE_TIMEOUT;
}

} // namespace xrt
