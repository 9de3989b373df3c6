// KernelTiming and ResourceEstimate: the one description of a kernel template instance that the
// FIFO-sizing LP, the design-space exploration and the reports read (docs/fifo-sizing.md). Each
// template has a model file in compiler/model/ computing these from its parameters; its
// Verilator test asserts that the measured cycles equal the model's.
//
// Conditions of the timing figures: every input offers a token in every cycle the kernel is
// ready for one (ideal sources), the output is never back-pressured, and cycle 0 is the cycle
// of the first input handshake on any input of one invocation.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace st::model {

struct KernelTiming {
  /// D: cycles from the first input handshake to the first output handshake.
  int64_t firstOutputDelay = 0;
  /// Steady-state cycles between consecutive output tokens.
  int64_t ii = 1;
  /// A cadence finer than a whole II (0: none): on average `rateCycles` cycles per `rateTokens`
  /// outputs (rateCycles >= rateTokens), e.g. a memory that offers a word in 4 of 5 cycles. Output
  /// k then comes at least floor(k c / t) - floor((k - 1) c / t) cycles after output k - 1 (the
  /// gaps of a Bresenham line: 1, 1, 1, 2, ... for 5 / 4); ii must be 1.
  int64_t rateTokens = 0;
  int64_t rateCycles = 0;
  /// Outputs 0 .. rateFrom come at II, the cadence applies to the outputs after them (a
  /// memory source whose first words are already in its DMA's buffer).
  int64_t rateFrom = 0;
  /// A source's schedule (empty: none): output k no earlier than notBefore[k] cycles after the
  /// start, e.g. the words of a DMA's bursts as the memory answers them.
  std::vector<int64_t> notBefore;
  /// The least gap before output k >= 1 (ii, or the rate's).
  int64_t gapBefore(int64_t k) const {
    if (rateTokens <= 0 || k <= rateFrom)
      return ii;
    const int64_t j = k - rateFrom;
    return (j * rateCycles) / rateTokens - ((j - 1) * rateCycles) / rateTokens;
  }
  /// The least cycles from output 0 to output k.
  int64_t spanTo(int64_t k) const {
    if (rateTokens <= 0 || k <= rateFrom)
      return k * ii;
    return rateFrom * ii + ((k - rateFrom) * rateCycles) / rateTokens;
  }
  /// L: cycles from the first input handshake to the last output handshake.
  int64_t totalLatency = 0;
  /// Output tokens of one invocation.
  int64_t outputTokens = 0;
  /// Per input port: tokens consumed in one invocation.
  std::vector<int64_t> inputTokens;
  /// Per input port: how many of its tokens must have been consumed before output token k
  /// (0-based) can be emitted. A GEMV needs all of x before its first output; a norm needs
  /// its whole input vector (two passes) before output 0.
  std::vector<std::function<int64_t(int64_t k)>> inputTokensNeeded;
  /// Per input port, per token: the cycle the kernel takes it in its own schedule (ideal inputs),
  /// when its phases take inputs in an order the needs do not say (attention loads q, k_new and
  /// v_new before the first cache row, although output 0 needs them all). Empty: derived from
  /// the needs (sim/dataflow_timing_sim.h, the input-order rule).
  std::vector<std::vector<int64_t>> inputRanks;
  /// With inputRanks: per input port, per token, the kernel's phase (non-decreasing): a token is
  /// taken only after every token of an earlier phase on every port (attention's score pass
  /// after the whole load of q, k_new and v_new, which themselves come in any order).
  std::vector<std::vector<int64_t>> inputPhases;
  /// A port the kernel buffers ahead of its use (inputRanks and inputPhases 0: taken as offered,
  /// beside the first phase) whose tokens are needed only from `phase` on, at `rank` (the cycle
  /// of the kernel's own schedule that uses them): tokens of `phase` and later on every other
  /// port wait for all of it and keep their rank gap to `rank`; earlier phases do not wait for
  /// it (attention's k_new and v_new, used at the walk's new position).
  struct BufferedInput {
    int64_t phase = 0; ///< 0: not buffered (the port gates every later phase)
    int64_t rank = 0;
    bool operator==(const BufferedInput &o) const { return phase == o.phase && rank == o.rank; }
    bool operator!=(const BufferedInput &o) const { return !(*this == o); }
  };
  /// With inputRanks: per input port, or empty (no port buffered).
  std::vector<BufferedInput> inputBuffered;
  /// With inputRanks: per input port p, the ports whose tokens of earlier phases p waits for
  /// (inputWaitsFor[p][q]); empty: every port. A port that runs ahead of another (one-pass
  /// attention's score walker, which never waits for the value walker a tile behind it) does
  /// not wait for it.
  std::vector<std::vector<bool>> inputWaitsFor;
  bool waitsFor(size_t p, size_t q) const {
    return p >= inputWaitsFor.size() || inputWaitsFor[p].empty() || inputWaitsFor[p][q];
  }
};

struct ResourceEstimate {
  int64_t lut = 0;
  int64_t ff = 0;
  int64_t dsp = 0;
  double bram36 = 0; ///< RAMB18 count as 0.5
  int64_t uram = 0;

  ResourceEstimate &operator+=(const ResourceEstimate &o) {
    lut += o.lut;
    ff += o.ff;
    dsp += o.dsp;
    bram36 += o.bram36;
    uram += o.uram;
    return *this;
  }
};

/// A kernel that accumulates `perOutput` tokens on each of `inputs` ports into one output token,
/// `outputs` times (st_matmul's tile pairs, st_reduce's rows): the first output 2 cycles after
/// its last input, then one every `perOutput` cycles; output k needs (k + 1) x perOutput tokens.
inline KernelTiming accumulatingTiming(int64_t outputs, int64_t perOutput, int inputs) {
  KernelTiming t;
  outputs = outputs < 1 ? 1 : outputs;
  t.firstOutputDelay = perOutput + 2;
  t.ii = perOutput;
  t.totalLatency = t.firstOutputDelay + (outputs - 1) * perOutput;
  t.outputTokens = outputs;
  for (int port = 0; port < inputs; ++port) {
    t.inputTokens.push_back(outputs * perOutput);
    t.inputTokensNeeded.push_back([perOutput, outputs](int64_t out) {
      return (out + 1 < outputs ? out + 1 : outputs) * perOutput;
    });
  }
  return t;
}

/// The runtime length of a vector kernel's invocation: `length`, or `maxLen` when 0. Throws
/// std::invalid_argument (naming `what`) outside 1 .. maxLen.
inline int64_t runtimeVectorLength(int64_t length, int64_t maxLen, const std::string &what) {
  const int64_t n = length == 0 ? maxLen : length;
  if (n < 1 || n > maxLen)
    throw std::invalid_argument(what + " model: length " + std::to_string(n) + " outside 1 .. " +
                                std::to_string(maxLen));
  return n;
}

} // namespace st::model
