// Timing and resource model of the RoPE kernel st_rope (rtl_templates/kernels/st_rope.sv):
// rotate-half rotary embedding of the q or k vector of one token (NumHeads heads of HeadDim
// codes). Mirrors the template's parameters and pipeline; tests/rtl/rope asserts the timing
// against Verilator and prints the resources beside Yosys's counts.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

/// The parameters of st_rope (same names, same meaning).
struct RopeParams {
  int64_t numHeads = 2;  ///< heads per vector
  int64_t headDim = 16;  ///< even; lanes divides headDim / 2
  int64_t lanes = 4;     ///< codes per token
  int64_t inBits = 8;    ///< input code width, 2 .. 16
  int64_t outBits = 8;   ///< output code width, 2 .. 16
  int64_t posBits = 16;  ///< position input width, 1 .. 32
  int64_t numTables = 2; ///< RoPE variants in the phase table file
};

/// Cycles from the read of a token out of the head buffer to its output handshake: 9 datapath
/// stages (s1 read .. s9 rounding) and the output register slice.
constexpr int64_t kRopePipelineDepth = 10;

/// Tokens per head: headDim / lanes.
int64_t ropeHeadTokens(const RopeParams &params);

/// Throws std::invalid_argument for parameters the template rejects with $fatal.
void checkRopeParams(const RopeParams &params);

/// One invocation = one vector (numHeads * T tokens, T = headDim / lanes). A head is read once
/// it is complete: D = T + kRopePipelineDepth, II = 1, L = D + numHeads*T - 1; output k needs
/// the whole head it belongs to. Vectors follow back to back without bubbles (two head banks).
KernelTiming ropeTiming(const RopeParams &params);

/// LUT/FF/DSP/BRAM estimate for Yosys synth_xilinx -family xcup, counted per part (see
/// rope_model.cpp).
ResourceEstimate ropeResources(const RopeParams &params);

} // namespace st::model
