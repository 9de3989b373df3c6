// BulkFile (compiler/support/bulk_file.h): pieces at every alignment, written from several
// threads, read back byte for byte, on the build directory's filesystem (O_DIRECT where it is
// allowed) and on /dev/shm (tmpfs: buffered only); the untouched bytes stay zero.
#include "support/bulk_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>
#include <vector>

#include <unistd.h>

#include "support/error.h"

namespace st {
namespace {

std::vector<uint8_t> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void expectPiecesReadBack(const std::string &directory) {
  namespace fs = std::filesystem;
  fs::create_directories(directory);
  const std::string path = directory + "/bulk_file_test.bin";
  // Pieces that start and end inside blocks, on block boundaries, span many blocks (past one
  // bounce buffer) or lie inside one block; gaps between them stay zero. The file's size is not
  // a whole number of blocks.
  const int64_t size = (int64_t(20) << 20) + 1234;
  struct Piece {
    int64_t offset, bytes;
  };
  const std::vector<Piece> pieces = {
      {0, 4096},       {4096, 100},        {4300, 9000}, {20000, 10 << 20}, {(11 << 20) + 7, 8191},
      {(12 << 20), 1}, {size - 5000, 5000}};
  std::vector<uint8_t> expected(static_cast<size_t>(size), 0);
  std::mt19937 random(7);
  std::vector<std::vector<uint8_t>> data;
  for (const Piece &p : pieces) {
    data.emplace_back(static_cast<size_t>(p.bytes));
    for (uint8_t &b : data.back())
      b = static_cast<uint8_t>(random() | 1); // never zero: a lost byte shows
    std::copy(data.back().begin(), data.back().end(), expected.begin() + p.offset);
  }
  {
    BulkFile file(path, size);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < pieces.size(); ++i)
      threads.emplace_back([&, i] {
        file.write(pieces[i].offset, data[i].data(), static_cast<size_t>(pieces[i].bytes));
      });
    for (std::thread &t : threads)
      t.join();
    file.close();
  }
  const std::vector<uint8_t> actual = readAll(path);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_EQ(actual[i], expected[i]) << "byte " << i << " of " << path;
  fs::remove(path);
  fs::remove(directory);
}

TEST(BulkFile, PiecesReadBackOnTheBuildFilesystem) {
  expectPiecesReadBack(std::filesystem::current_path().string() + "/bulk_file_test");
}

TEST(BulkFile, PiecesReadBackOnTmpfs) {
  if (!std::filesystem::is_directory("/dev/shm"))
    GTEST_SKIP() << "no /dev/shm";
  expectPiecesReadBack("/dev/shm/streamtensor_bulk_file_test_" + std::to_string(::getpid()));
}

TEST(BulkFile, UnwritablePathIsAnErrorNamingIt) {
  try {
    BulkFile file("/nonexistent-directory/x.bin", 10);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-directory/x.bin"), std::string::npos);
  }
}

} // namespace
} // namespace st
