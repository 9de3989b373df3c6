// BulkFile (see bulk_file.h).
#include "support/bulk_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

#include "support/error.h"

namespace st {

namespace {

constexpr int64_t kBlock = 4096;                 ///< O_DIRECT alignment (buffer, offset, size)
constexpr size_t kBounceBytes = size_t(8) << 20; ///< a direct write's most bytes per call

struct FreeDeleter {
  void operator()(uint8_t *p) const { std::free(p); }
};

} // namespace

BulkFile::BulkFile(const std::string &path, int64_t size) : path_(path) {
  buffered_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (buffered_ < 0 || ::ftruncate(buffered_, static_cast<off_t>(size)) != 0) {
    if (buffered_ >= 0)
      ::close(buffered_);
    buffered_ = -1;
    throw Error(path, "file", "a writable file of " + std::to_string(size) + " bytes");
  }
#ifdef O_DIRECT
  direct_ = ::open(path.c_str(), O_WRONLY | O_DIRECT);
#endif
}

BulkFile::~BulkFile() {
  if (direct_ >= 0)
    ::close(direct_);
  if (buffered_ >= 0)
    ::close(buffered_);
}

void BulkFile::writeBuffered(int64_t offset, const uint8_t *data, size_t n) {
  size_t written = 0;
  while (written < n) {
    const ssize_t w = ::pwrite(buffered_, data + written, n - written,
                               static_cast<off_t>(offset + static_cast<int64_t>(written)));
    if (w <= 0)
      throw Error(path_, "file",
                  "a successful write of " + std::to_string(n) + " bytes at " +
                      std::to_string(offset));
    written += static_cast<size_t>(w);
  }
}

void BulkFile::write(int64_t offset, const uint8_t *data, size_t n) {
  const int64_t end = offset + static_cast<int64_t>(n);
  const int64_t first = (offset + kBlock - 1) / kBlock * kBlock; // whole blocks: [first, last)
  const int64_t last = end / kBlock * kBlock;
  if (direct_ < 0 || !directOk_.load() || last <= first) {
    writeBuffered(offset, data, n);
    return;
  }
  writeBuffered(offset, data, static_cast<size_t>(first - offset));
  writeBuffered(last, data + (last - offset), static_cast<size_t>(end - last));
  std::unique_ptr<uint8_t, FreeDeleter> bounce(static_cast<uint8_t *>(
      std::aligned_alloc(kBlock, std::min(kBounceBytes, static_cast<size_t>(last - first)))));
  if (!bounce)
    throw Error(path_, "file", "memory for a direct write");
  for (int64_t at = first; at < last;) {
    const size_t chunk = std::min(kBounceBytes, static_cast<size_t>(last - at));
    std::memcpy(bounce.get(), data + (at - offset), chunk);
    size_t written = 0;
    while (written < chunk) {
      const ssize_t w = directOk_.load()
                            ? ::pwrite(direct_, bounce.get() + written, chunk - written,
                                       static_cast<off_t>(at + static_cast<int64_t>(written)))
                            : -1;
      if (w > 0 && static_cast<size_t>(w) % kBlock == 0) {
        written += static_cast<size_t>(w);
        continue;
      }
      if (w < 0 && directOk_.load() && errno != EINVAL)
        throw Error(path_, "file",
                    "a successful write of " + std::to_string(chunk) + " bytes at " +
                        std::to_string(at));
      // The filesystem refuses direct writes (or wrote part of a block): the rest buffered.
      directOk_.store(false);
      const size_t done = w > 0 ? written + static_cast<size_t>(w) : written;
      writeBuffered(at + static_cast<int64_t>(done), bounce.get() + done, chunk - done);
      written = chunk;
    }
    at += static_cast<int64_t>(chunk);
  }
}

void BulkFile::close() {
  const int direct = direct_, buffered = buffered_;
  direct_ = buffered_ = -1;
  const bool ok = (direct < 0 || ::close(direct) == 0) & (buffered < 0 || ::close(buffered) == 0);
  if (!ok)
    throw Error(path_, "file", "a successful write");
}

} // namespace st
