// ScratchBuffer: a float buffer a parallel task borrows from a process-wide pool and gives back
// when it ends. The passes that read every weight a block at a time (calibration, quantization)
// run thousands of short tasks on threads that parallelFor makes per call; with buffers of their
// own each task would take fresh pages from the kernel (~1.4 s per GB on the VMs we measure on),
// while pooled buffers are touched once and reused, whichever thread runs the task.
#pragma once

#include <vector>

namespace st {

class ScratchBuffer {
public:
  ScratchBuffer();  ///< takes a buffer from the pool (a new, empty one if none is free)
  ~ScratchBuffer(); ///< gives it back (its capacity kept)
  ScratchBuffer(const ScratchBuffer &) = delete;
  ScratchBuffer &operator=(const ScratchBuffer &) = delete;

  std::vector<float> &get() { return buffer_; }

private:
  std::vector<float> buffer_;
};

} // namespace st
