// ScratchBuffer's pool (see scratch_buffer.h). The pool holds at most as many buffers as tasks
// ever ran at once (the thread budget, nested tasks included).
#include "support/scratch_buffer.h"

#include <mutex>
#include <utility>

namespace st {

namespace {

std::mutex poolMutex;

std::vector<std::vector<float>> &pool() {
  static auto *buffers = new std::vector<std::vector<float>>(); // never destroyed: no exit order
  return *buffers;
}

} // namespace

ScratchBuffer::ScratchBuffer() {
  std::lock_guard<std::mutex> lock(poolMutex);
  if (!pool().empty()) {
    buffer_ = std::move(pool().back());
    pool().pop_back();
  }
}

ScratchBuffer::~ScratchBuffer() {
  std::lock_guard<std::mutex> lock(poolMutex);
  pool().push_back(std::move(buffer_));
}

} // namespace st
