// The HBM plan's placement of buffers larger than the room of one pseudo-channel
// (plan/hbm_plan.h): with an engine stream pinned at offset 0 of every channel, a table spans two
// channels of one mini-switch and the second channel's stream moves to its top; no buffer
// overlaps another; no row is split at a channel boundary between mini-switches; a buffer that
// finds no room is one error naming the free room. And the capacity check from a model's shapes
// (plan/hbm_capacity.h) on the full-size configs.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontend/decode_builder.h"
#include "plan/hbm_capacity.h"
#include "plan/hbm_plan.h"
#include "support/error.h"

namespace st::plan {
namespace {

/// A plan of `device` with a pinned stream of `streamBytes` in every channel (as planHbmImage
/// places a GEMV engine's streams).
HbmImagePlan withEngineStreams(const HbmDevice &device, int64_t streamBytes) {
  HbmImagePlan plan;
  plan.device = device;
  plan.channelBytes.assign(static_cast<size_t>(device.pseudoChannels), 0);
  for (int64_t c = 0; c < device.pseudoChannels; ++c) {
    HbmBuffer s;
    s.name = engineStreamBufferName(c);
    s.kind = "engine_stream";
    s.layerBytes = streamBytes;
    s.pinnedChannel = c;
    const HbmBuffer placed = addRunBuffer(plan, s);
    EXPECT_EQ(placed.address, c * device.pseudoChannelBytes);
  }
  return plan;
}

HbmBuffer table(const std::string &name, int64_t rows, int64_t rowBytes) {
  HbmBuffer t;
  t.name = name;
  t.kind = "embedding_table";
  t.layerBytes = rows * rowBytes;
  t.lookupRowBytes = rowBytes;
  return t;
}

/// No two buffers overlap; each lies in the channels it names; the image files' extents cover
/// them; totalBytes counts each buffer's (aligned) bytes once.
void expectConsistent(const HbmImagePlan &plan) {
  const int64_t channelBytes = plan.device.pseudoChannelBytes;
  std::vector<std::pair<int64_t, int64_t>> extents;
  int64_t used = 0;
  for (const HbmBuffer &b : plan.buffers) {
    const int64_t end = b.address + b.bytes();
    extents.push_back({b.address, end});
    used += (b.bytes() + plan.device.alignmentBytes - 1) / plan.device.alignmentBytes *
            plan.device.alignmentBytes;
    ASSERT_FALSE(b.channels.empty()) << b.name;
    EXPECT_EQ(b.address / channelBytes, b.channels.front()) << b.name;
    EXPECT_EQ((end - 1) / channelBytes, b.channels.back()) << b.name;
    for (size_t i = 1; i < b.channels.size(); ++i)
      EXPECT_EQ(b.channels[i], b.channels[i - 1] + 1) << b.name;
    for (int64_t c : b.channels) {
      const int64_t lastByte = std::min(end, (c + 1) * channelBytes) - c * channelBytes;
      EXPECT_GE(plan.channelBytes[static_cast<size_t>(c)], lastByte) << b.name;
    }
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i)
    EXPECT_LE(extents[i - 1].second, extents[i].first) << "overlap";
  EXPECT_EQ(plan.totalBytes(), used);
}

/// Every row of `b` that lies across a channel boundary stays inside one mini-switch.
void expectNoRowAcrossSwitches(const HbmImagePlan &plan, const HbmBuffer &b) {
  const int64_t channelBytes = plan.device.pseudoChannelBytes;
  const int64_t perSwitch = plan.device.miniSwitchChannels;
  const int64_t row = b.rowUnitBytes();
  ASSERT_GT(row, 0);
  for (int64_t r = 0; r < b.layerBytes / row; ++r) {
    const int64_t first = (b.address + r * row) / channelBytes;
    const int64_t last = (b.address + (r + 1) * row - 1) / channelBytes;
    if (first != last)
      EXPECT_TRUE(perSwitch > 0 && first / perSwitch == last / perSwitch)
          << b.name << " row " << r << " lies on channels " << first << " and " << last;
  }
}

TEST(HbmPlanTest, ATableLargerThanAChannelSpansTwoBesideEngineStreams) {
  // 8 channels of 64 KiB, 24 KiB of engine stream at the bottom of each: no channel has room
  // for 80 KiB and none is empty; the table runs from the top of one channel's room into the
  // next channel of its mini-switch, whose stream moves to the channel's top.
  const HbmDevice device{8, 64 << 10, 4096, 0, 4};
  HbmImagePlan plan = withEngineStreams(device, 24 << 10);
  const HbmBuffer placed = addRunBuffer(plan, table("prologue/embed.table", 20, 4096));
  ASSERT_EQ(placed.channels.size(), 2u);
  const int64_t first = placed.channels[0];
  EXPECT_EQ(first / 4, (first + 1) / 4); // one mini-switch
  EXPECT_EQ(placed.address, first * device.pseudoChannelBytes + (24 << 10));
  const HbmBuffer &moved = hbmBufferNamed(plan, engineStreamBufferName(first + 1));
  EXPECT_EQ(moved.address, (first + 2) * device.pseudoChannelBytes - (24 << 10));
  EXPECT_EQ(moved.channels, std::vector<int64_t>{first + 1});
  EXPECT_EQ(plan.channelBytes[static_cast<size_t>(first + 1)], device.pseudoChannelBytes);
  expectConsistent(plan);
  expectNoRowAcrossSwitches(plan, placed);
  // A second table takes another pair; a small buffer still finds the room left below the moved
  // stream.
  const HbmBuffer second = addRunBuffer(plan, table("epilogue/other.table", 20, 4096));
  EXPECT_NE(second.channels[0], first);
  HbmBuffer small;
  small.name = "run/tokens";
  small.layerBytes = 4096;
  addRunBuffer(plan, small);
  expectConsistent(plan);
}

TEST(HbmPlanTest, NoRowIsSplitAtAMiniSwitchBoundary) {
  // Rows of 3 KiB in 4 empty channels of 16 KiB: a 24 KiB table spanning two channels from
  // offset 0 splits a row at the boundary (16 KiB is 5 1/3 rows).
  HbmDevice device{4, 16 << 10, 1024, 0, 4};
  {
    HbmImagePlan plan;
    plan.device = device;
    plan.channelBytes.assign(4, 0);
    const HbmBuffer placed = addRunBuffer(plan, table("t", 8, 3072)); // inside a mini-switch
    EXPECT_EQ(placed.channels.size(), 2u);
    expectConsistent(plan);
    expectNoRowAcrossSwitches(plan, placed);
  }
  device.miniSwitchChannels = 1; // every boundary between two switches: no span splits no row
  {
    HbmImagePlan plan;
    plan.device = device;
    plan.channelBytes.assign(4, 0);
    try {
      addRunBuffer(plan, table("t", 8, 3072));
      FAIL() << "expected no room";
    } catch (const Error &e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("buffer 't' (24576 bytes): expected room in 4 pseudo-channels of 16384"),
                std::string::npos)
          << m;
      EXPECT_NE(m.find("65536 bytes free in all, at most 16384 in one channel"), std::string::npos)
          << m;
    }
  }
  {
    // 1 KiB used at the bottom of channel 0: the 15 KiB left are 5 rows, so the boundary falls
    // between two rows and the table spans channels 0 and 1.
    HbmImagePlan plan;
    plan.device = device;
    plan.channelBytes.assign(4, 0);
    HbmBuffer first;
    first.name = "first";
    first.layerBytes = 1024;
    first.pinnedChannel = 0;
    addRunBuffer(plan, first);
    const HbmBuffer placed = addRunBuffer(plan, table("t", 8, 3072));
    EXPECT_EQ(placed.address, 1024);
    EXPECT_EQ(placed.channels, (std::vector<int64_t>{0, 1}));
    expectConsistent(plan);
  }
}

TEST(HbmPlanTest, SmallBuffersKeepTheLeastUsedChannelRule) {
  // Nothing spans and nothing moves when every buffer fits a channel: the placement of the
  // small designs is the one before spanning.
  const HbmDevice device{4, 64 << 10, 4096, 0, 4};
  HbmImagePlan plan = withEngineStreams(device, 8 << 10);
  for (int i = 0; i < 6; ++i) {
    HbmBuffer b;
    b.name = "b" + std::to_string(i);
    b.layerBytes = 20 << 10;
    const HbmBuffer placed = addRunBuffer(plan, b);
    EXPECT_EQ(placed.channels.size(), 1u);
  }
  for (int64_t c = 0; c < 4; ++c)
    EXPECT_EQ(hbmBufferNamed(plan, engineStreamBufferName(c)).address, c * (64 << 10));
  expectConsistent(plan);
}

TEST(HbmCapacityTest, FullSizeConfigsFitAtTheirContextAndNotBeyond) {
  const HbmDevice u55c = loadHbmDevice(ST_DEVICE_YAML);
  EXPECT_EQ(u55c.miniSwitchChannels, 4);
  const frontend::LoadedModel m = frontend::loadModel(std::string(ST_CONFIG_DIR) + "/llama-3.1-8b",
                                                      frontend::WeightSource::ShapeOnly);
  const HbmCapacityNeed need = hbmCapacityNeed(m.program, numerics::Precision::W4A8);
  // 7.5 B parameters in linears (LM head included) at 4 bits, the 128256 x 4096 s8 table.
  EXPECT_EQ(need.tableBytes, int64_t(128256) * 4096);
  const int64_t perLayer = 2 * 4096 * 4096 + 2 * 1024 * 4096 + 3 * 14336 * 4096;
  EXPECT_EQ(need.weightBytes, (32 * perLayer + int64_t(128256) * 4096) / 2);
  EXPECT_EQ(need.kvBytesPerPosition, 2 * 32 * 8 * 128);
  EXPECT_EQ(need.kvBuffer, "block/attention.k_cache");
  EXPECT_NO_THROW(checkHbmCapacity(need, u55c, 4096));
  EXPECT_NO_THROW(checkHbmCapacity(need, u55c, 131072));
  try {
    checkHbmCapacity(need, u55c, 2000000);
    FAIL() << "expected a capacity error";
  } catch (const Error &e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("hbm capacity: buffer 'block/attention.k_cache' and the other KV caches "
                      "(131072000000 bytes",
                      0),
              0u)
        << m;
    // 196,872 positions fit the HBM; the model has 131,072.
    EXPECT_GT((u55c.capacityBytes() - need.fixedBytes()) / need.kvBytesPerPosition, 131072);
    EXPECT_NE(m.find("--max-context 131072 or less fits"), std::string::npos) << m;
  }
  // Half the HBM: the whole context no longer fits, 4096 still does.
  const HbmDevice half{32, 256 << 20, 4096, 0, 4};
  EXPECT_NO_THROW(checkHbmCapacity(need, half, 4096));
  try {
    checkHbmCapacity(need, half, 131072);
    FAIL() << "expected a capacity error";
  } catch (const Error &e) {
    const int64_t fits = (half.capacityBytes() - need.fixedBytes()) / need.kvBytesPerPosition;
    EXPECT_NE(std::string(e.what()).find("--max-context " + std::to_string(fits) + " or less"),
              std::string::npos)
        << e.what();
  }
  // Weights alone beyond the device: the message names the largest buffer and the precision.
  try {
    checkHbmCapacity(need, HbmDevice{4, 256 << 20, 4096, 0, 4}, 64);
    FAIL() << "expected a capacity error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("--precision"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace st::plan
