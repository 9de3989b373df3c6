// Unit tests of writeRopePhaseFile, the PhaseTableFile of st_rope: one 12-digit hexadecimal
// Q0.48 increment per line, table 0 first; tables of different head dims are refused.
#include "numerics/table_export.h"

#include "support/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace st::numerics {
namespace {

TEST(RopePhaseFile, OneEntryPerLineTableMajor) {
  const std::vector<RopeTable> tables = {makeRopeTable(10000.0, 8), makeRopeTable(1e6, 8)};
  const std::string path =
      (std::filesystem::temp_directory_path() / "st_rope_phase_test.mem").string();
  writeRopePhaseFile(tables, path);
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> entries;
  while (std::getline(in, line))
    if (line.rfind("//", 0) != 0)
      entries.push_back(line);
  ASSERT_EQ(entries.size(), 8u);
  for (size_t t = 0; t < 2; ++t)
    for (size_t j = 0; j < 4; ++j) {
      EXPECT_EQ(entries[t * 4 + j].size(), 12u);
      EXPECT_EQ(std::stoull(entries[t * 4 + j], nullptr, 16), tables[t].phaseIncrement[j]);
    }
  // Pair 0 turns once per 2*pi positions: 2^48 / (2*pi), rounded.
  EXPECT_EQ(entries[0], "28be60db9391");
  std::filesystem::remove(path);
}

TEST(RopePhaseFile, RefusesMixedHeadDims) {
  const std::vector<RopeTable> tables = {makeRopeTable(10000.0, 8), makeRopeTable(10000.0, 16)};
  try {
    writeRopePhaseFile(tables, "never_written.mem");
    FAIL() << "no error for tables of different head dims";
  } catch (const Error &e) {
    EXPECT_EQ(e.field(), "RoPE table 1");
  }
}

} // namespace
} // namespace st::numerics
