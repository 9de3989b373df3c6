// BulkFile: a large output file (an HBM image channel, hundreds of MB) written in pieces from
// several threads. Where the filesystem allows it, whole 4 KiB blocks go out with O_DIRECT
// (through an aligned bounce buffer), bypassing the page cache: copying gigabytes into the page
// cache cost about 1.5 s of kernel time per GB on the 2-core build machine, a direct write is
// mostly the disk's time. The partial blocks at a piece's ends, and everything on a filesystem
// without O_DIRECT (tmpfs), are ordinary buffered writes. The file reads back the same either way.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace st {

class BulkFile {
public:
  /// Creates (or truncates) `path` at `size` bytes, all zero (sparse). Throws st::Error naming
  /// the path when it cannot.
  BulkFile(const std::string &path, int64_t size);
  ~BulkFile();
  BulkFile(const BulkFile &) = delete;
  BulkFile &operator=(const BulkFile &) = delete;

  /// Writes `n` bytes at `offset`. Pieces written concurrently must not overlap. Throws st::Error
  /// naming the path on failure.
  void write(int64_t offset, const uint8_t *data, size_t n);
  /// Closes the file; throws st::Error naming the path when the writes did not all succeed.
  void close();

  const std::string &path() const { return path_; }

private:
  void writeBuffered(int64_t offset, const uint8_t *data, size_t n);

  std::string path_;
  int buffered_ = -1;
  int direct_ = -1;                  ///< -1: no O_DIRECT on this filesystem
  std::atomic<bool> directOk_{true}; ///< cleared when a direct write is refused (EINVAL)
};

} // namespace st
