// Timing and resource model of rtl_templates/kernels/st_argmax.sv: the index of the largest
// element of a streamed vector (ties to the lowest index). Its Verilator test
// (tests/rtl/argmax) asserts these cycle counts exactly.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

/// The template's parameters, plus the runtime vector length of the invocation being timed.
struct ArgmaxParams {
  int64_t lanes = 4;     ///< Lanes: elements per input token
  int64_t elemBits = 16; ///< ElemBits: signed element width
  int64_t maxLen = 1024; ///< MaxLen: longest vector
  int64_t length = 0;    ///< runtime length n of the invocation (1 .. maxLen; 0 means maxLen)
};

/// Bits of the output index and of the config-stream length.
int64_t argmaxIndexBits(const ArgmaxParams &params);
int64_t argmaxLengthBits(const ArgmaxParams &params);

/// Inputs: port 0 = config (one token, the length), port 1 = data (T = ceil(n/Lanes) tokens).
/// With the config handshake at cycle 0, data tokens arrive in cycles 1..T (one per cycle), one
/// cycle in the input register, one in each registered tree level (ceil(log2(Lanes)) - 1 of
/// them, none for one or two lanes), one in the lane-reduction register, one in the output
/// register slice: the single output token leaves at D = L = T + 3 + tree levels (T + 5 at
/// eight lanes). ii is the interval between the outputs of back-to-back
/// invocations of this length: T, but at least 2 (the config register takes the next length
/// one cycle after the current one is consumed).
KernelTiming argmaxTiming(const ArgmaxParams &params);

/// LUT/FF estimate: lane tree of Lanes-1 compare-and-select nodes (value and lane index),
/// the running-best compare and select, the index adder and counters, the output slice.
ResourceEstimate argmaxResources(const ArgmaxParams &params);

} // namespace st::model
