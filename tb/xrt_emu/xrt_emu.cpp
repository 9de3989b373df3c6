// XRT emulation: xrt::device, xrt::bo, xrt::kernel and xrt::run over a registered EmuBackend
// (a Verilated kernel top). See xrt_emu_backend.h.
#include <cstdlib>
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
/// run.wait() without a timeout: the cycle budget before it reports ERT_CMD_STATE_TIMEOUT.
uint64_t defaultTimeoutCycles() {
  const char *env = std::getenv("ST_XRT_EMU_TIMEOUT_CYCLES");
  return env && *env ? std::strtoull(env, nullptr, 10) : 20000000ull;
}
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
  state_->kernelClockMhz = j.value("clock_mhz", 250.0);
  state_->args.clear();
  for (const auto &a : j.at("args")) {
    DeviceState::Arg arg;
    arg.offset = a.at("offset").get<uint32_t>();
    arg.pointer = a.contains("group");
    arg.group = arg.pointer ? a.at("group").get<int>() : -1;
    arg.bytes = a.value("size", arg.pointer ? 8u : 4u);
    if (arg.bytes == 0 || arg.bytes % 4 != 0 || (arg.pointer && arg.bytes != 8))
      throw std::runtime_error("xrt emulation: " + path + ": argument at offset " +
                               std::to_string(arg.offset) +
                               ": expected a size of 8 (pointer) or a multiple of 4 (scalar)");
    state_->args.push_back(arg);
  }
  return uuid(path);
}

/// A buffer's host copy is shared by the buffer and its sub-buffers; each covers [offset,
/// offset + size) of it and of the HBM range that starts at `base`.
struct bo::Impl {
  std::shared_ptr<DeviceState> state;
  std::shared_ptr<std::vector<uint8_t>> host;
  uint64_t base = 0; ///< HBM address of host->at(0)
  size_t offset = 0, size = 0;
};

bo::bo(const xrt::device &device, size_t sz, memory_group grp) : impl_(std::make_shared<Impl>()) {
  if (grp >= st::tb::xrtemu::kChannels)
    throw std::runtime_error("xrt emulation: no HBM bank " + std::to_string(grp));
  impl_->state = device.state_;
  uint64_t &next = impl_->state->nextFree[grp];
  impl_->base = grp * st::tb::xrtemu::kChannelBytes + next;
  next += (sz + 4095) / 4096 * 4096;
  if (next > st::tb::xrtemu::kChannelBytes)
    throw std::runtime_error("xrt emulation: HBM bank " + std::to_string(grp) + " is full");
  impl_->host = std::make_shared<std::vector<uint8_t>>(sz, 0);
  impl_->size = sz;
}

bo::bo(const bo &parent, size_t size, size_t offset) : impl_(std::make_shared<Impl>()) {
  if (!parent.impl_)
    throw std::runtime_error("xrt emulation: a sub-buffer of an unallocated buffer");
  if (offset + size > parent.impl_->size)
    throw std::runtime_error("xrt emulation: sub-buffer of " + std::to_string(size) +
                             " bytes at offset " + std::to_string(offset) +
                             " past the end of its parent (" + std::to_string(parent.impl_->size) +
                             " bytes)");
  *impl_ = *parent.impl_;
  impl_->offset = parent.impl_->offset + offset;
  impl_->size = size;
}

void bo::write(const void *src, size_t size, size_t seek) {
  if (seek + size > impl_->size)
    throw std::runtime_error("xrt emulation: bo::write past the buffer's end");
  std::memcpy(impl_->host->data() + impl_->offset + seek, src, size);
}

void bo::read(void *dst, size_t size, size_t skip) {
  if (skip + size > impl_->size)
    throw std::runtime_error("xrt emulation: bo::read past the buffer's end");
  std::memcpy(dst, impl_->host->data() + impl_->offset + skip, size);
}

void bo::sync(xclBOSyncDirection dir) {
  sync(dir, impl_->size, 0);
}

void bo::sync(xclBOSyncDirection dir, size_t size, size_t offset) {
  if (offset + size > impl_->size)
    throw std::runtime_error("xrt emulation: bo::sync past the buffer's end");
  const size_t at = impl_->offset + offset;
  if (dir == XCL_BO_SYNC_BO_TO_DEVICE)
    impl_->state->backend->writeHbm(impl_->base + at, impl_->host->data() + at, size);
  else
    impl_->state->backend->readHbm(impl_->base + at, impl_->host->data() + at, size);
}

size_t bo::size() const {
  return impl_ ? impl_->size : 0;
}

uint64_t bo::address() const {
  if (!impl_)
    throw std::runtime_error("xrt emulation: the address of an unallocated buffer");
  return impl_->base + impl_->offset;
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

run::run(const kernel &krnl)
    : state_(krnl.state_), args_(krnl.state_->args.size(), 0),
      set_(krnl.state_->args.size(), false) {}

void run::set_arg(int index, const xrt::bo &boh) {
  const DeviceState::Arg &a = state_->args.at(static_cast<size_t>(index));
  if (!a.pointer)
    throw std::runtime_error("xrt emulation: set_arg(" + std::to_string(index) +
                             "): a buffer for a scalar argument");
  args_.at(static_cast<size_t>(index)) = boh.address();
  set_.at(static_cast<size_t>(index)) = true;
}

void run::setScalar(int index, const void *value, size_t bytes) {
  const DeviceState::Arg &a = state_->args.at(static_cast<size_t>(index));
  if (a.pointer || bytes != a.bytes || bytes > sizeof(uint64_t))
    throw std::runtime_error("xrt emulation: set_arg(" + std::to_string(index) + "): a " +
                             std::to_string(bytes) + "-byte scalar for " +
                             (a.pointer ? std::string("a pointer argument")
                                        : "a " + std::to_string(a.bytes) + "-byte scalar"));
  uint64_t v = 0;
  std::memcpy(&v, value, bytes);
  args_.at(static_cast<size_t>(index)) = v;
  set_.at(static_cast<size_t>(index)) = true;
}

void run::start() {
  // XRT sends the whole register map with each start; an argument never set would be 0 there.
  // The emulation refuses it instead: a host that forgets an argument has a bug.
  for (size_t i = 0; i < args_.size(); ++i) {
    if (!set_[i])
      throw std::runtime_error("xrt emulation: run.start() with argument " + std::to_string(i) +
                               " never set");
    const DeviceState::Arg &a = state_->args[i];
    for (unsigned word = 0; word < a.bytes / 4; ++word)
      state_->backend->writeRegister(a.offset + 4 * word,
                                     static_cast<uint32_t>(args_[i] >> (32 * word)));
  }
  state_->backend->start();
  state_->running = true;
}

ert_cmd_state run::wait(unsigned int timeout_ms) const {
  if (!state_->running)
    return state_->lastRunOk ? ERT_CMD_STATE_COMPLETED : ERT_CMD_STATE_NEW;
  const uint64_t cycles = timeout_ms == 0
                              ? st::tb::xrtemu::defaultTimeoutCycles()
                              : static_cast<uint64_t>(timeout_ms * state_->kernelClockMhz * 1000.0);
  state_->lastRunOk = state_->backend->waitDone(cycles);
  state_->running = !state_->lastRunOk; // a later wait() goes on simulating
  return state_->lastRunOk ? ERT_CMD_STATE_COMPLETED : ERT_CMD_STATE_TIMEOUT;
}

} // namespace xrt
