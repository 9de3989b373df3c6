// Unit tests of the XRT emulation (tb/xrt_emu) over a recording backend instead of a Verilated
// top: buffer addresses per HBM bank, sub-buffers (shared host copy, address = parent's +
// offset, sync of their own range), pointer and scalar arguments written as 32-bit registers at
// the emulated xclbin's offsets, ap_start in start() and the simulation in wait().
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"
#include "xrt_emu_backend.h"

namespace {

using st::tb::xrtemu::EmuBackend;

/// What the emulated calls did to the "card": HBM bytes, register writes, starts and waits.
struct Record {
  std::map<uint64_t, uint8_t> hbm;
  std::vector<std::pair<uint32_t, uint32_t>> registers;
  std::vector<std::string> events;
  bool done = true; ///< what waitDone answers
};
Record *record = nullptr;

class RecordingBackend : public EmuBackend {
public:
  void writeHbm(uint64_t address, const void *data, size_t bytes) override {
    for (size_t i = 0; i < bytes; ++i)
      record->hbm[address + i] = static_cast<const uint8_t *>(data)[i];
    record->events.push_back("writeHbm " + std::to_string(address) + " " + std::to_string(bytes));
  }
  void readHbm(uint64_t address, void *data, size_t bytes) override {
    for (size_t i = 0; i < bytes; ++i)
      static_cast<uint8_t *>(data)[i] = record->hbm[address + i];
    record->events.push_back("readHbm " + std::to_string(address) + " " + std::to_string(bytes));
  }
  void writeRegister(uint32_t offset, uint32_t value) override {
    record->registers.emplace_back(offset, value);
  }
  void start() override { record->events.push_back("start"); }
  bool waitDone(uint64_t cycles) override {
    record->events.push_back("waitDone " + std::to_string(cycles));
    return record->done;
  }
  uint64_t cycles() const override { return 0; }
};

class XrtEmu : public ::testing::Test {
protected:
  void SetUp() override {
    record = &rec;
    st::tb::xrtemu::registerBackend(
        [] { return std::unique_ptr<EmuBackend>(new RecordingBackend); });
  }
  void TearDown() override { record = nullptr; }
  /// An emulated xclbin: n_prompt (0x10, 4 bytes), n_steps (0x18), then pointers at 0x20 (bank
  /// 3) and 0x2c (bank 5), at 100 MHz.
  std::string xclbin() {
    // One file per test: ctest -j runs the tests of this binary in parallel processes.
    const std::string path = ::testing::TempDir() + "/xrt_emu_test." +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                             ".xclbin.json";
    std::ofstream(path) << R"({"kernel": "k_top", "clock_mhz": 100, "args": [
        {"offset": 16, "size": 4}, {"offset": 24}, {"offset": 32, "group": 3},
        {"offset": 44, "group": 5}]})";
    return path;
  }
  Record rec;
};

constexpr uint64_t kBank = uint64_t{1} << 29;

TEST_F(XrtEmu, BuffersLiveInTheirBankAndSubBuffersShareTheParent) {
  xrt::device device(0);
  const xrt::uuid id = device.load_xclbin(xclbin());
  xrt::kernel kernel(device, id, "k_top");
  EXPECT_EQ(kernel.group_id(0), -1);
  EXPECT_EQ(kernel.group_id(2), 3);
  EXPECT_EQ(kernel.offset(3), 44u);
  xrt::bo channel(device, 8192, static_cast<xrt::memory_group>(kernel.group_id(2)));
  xrt::bo next(device, 100, 3);
  EXPECT_EQ(channel.address(), 3 * kBank);
  EXPECT_EQ(next.address(), 3 * kBank + 8192); // 4 KB-aligned after the first
  xrt::bo view(channel, 64, 4096);
  EXPECT_EQ(view.address(), 3 * kBank + 4096);
  EXPECT_EQ(view.size(), 64u);
  const char text[] = "abc";
  view.write(text, 3, 1); // seen through the parent at 4097
  char back[3] = {};
  channel.read(back, 3, 4097);
  EXPECT_EQ(std::string(back, 3), "abc");
  view.sync(XCL_BO_SYNC_BO_TO_DEVICE);
  EXPECT_EQ(rec.events.back(), "writeHbm " + std::to_string(3 * kBank + 4096) + " 64");
  EXPECT_EQ(rec.hbm[3 * kBank + 4097], 'a');
  xrt::bo nested(view, 8, 16);
  EXPECT_EQ(nested.address(), 3 * kBank + 4096 + 16);
  rec.hbm[3 * kBank + 4096 + 20] = 0x5a;
  nested.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
  EXPECT_EQ(rec.events.back(), "readHbm " + std::to_string(3 * kBank + 4112) + " 8");
  unsigned char got = 0;
  channel.read(&got, 1, 4096 + 20);
  EXPECT_EQ(got, 0x5a);
  EXPECT_THROW(xrt::bo(channel, 64, 8192 - 32), std::runtime_error);
  EXPECT_THROW(view.write(text, 3, 62), std::runtime_error);
}

TEST_F(XrtEmu, StartWritesEveryArgumentThenApStartAndWaitSimulates) {
  xrt::device device(0);
  const xrt::uuid id = device.load_xclbin(xclbin());
  xrt::kernel kernel(device, id, "k_top");
  xrt::bo a(device, 4096, 3), b(device, 4096, 5);
  xrt::bo view(b, 64, 128);
  xrt::run run(kernel);
  run.set_arg(0, uint32_t{3});
  run.set_arg(2, a);
  run.set_arg(3, view);
  EXPECT_THROW(run.start(), std::runtime_error);                  // n_steps never set
  EXPECT_THROW(run.set_arg(1, uint64_t{10}), std::runtime_error); // 8 bytes for a 4-byte scalar
  EXPECT_THROW(run.set_arg(0, b), std::runtime_error);            // a buffer for a scalar
  run.set_arg(1, 10u);
  rec.registers.clear();
  rec.events.clear();
  run.start();
  // Scalars one word each; pointers low word then high word: 3 * 2^29 = 0x6000'0000 and
  // 5 * 2^29 + 128 = 0xA000'0080.
  const std::vector<std::pair<uint32_t, uint32_t>> want{
      {16, 3}, {24, 10}, {32, 0x60000000u}, {36, 0}, {44, 0xA0000080u}, {48, 0}};
  EXPECT_EQ(rec.registers, want);
  EXPECT_EQ(rec.events, std::vector<std::string>{"start"});
  EXPECT_EQ(run.wait(), ERT_CMD_STATE_COMPLETED);
  EXPECT_EQ(rec.events.back(), "waitDone 20000000");
  rec.done = false;
  run.start();
  EXPECT_EQ(run.wait(5), ERT_CMD_STATE_TIMEOUT);
  EXPECT_EQ(rec.events.back(), "waitDone 500000"); // 5 ms at 100 MHz
}

TEST_F(XrtEmu, RefusesAnotherKernelName) {
  xrt::device device(0);
  const xrt::uuid id = device.load_xclbin(xclbin());
  EXPECT_THROW(xrt::kernel(device, id, "other_top"), std::runtime_error);
}

} // namespace
