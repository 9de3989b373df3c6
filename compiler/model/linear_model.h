// Timing and resource model of the st_linear template (rtl_templates/kernels/st_linear.sv): a
// quantized GEMV y = W x + b whose weights stream in the format of docs/weight-stream.md. The
// Verilator test tests/rtl/linear asserts that the measured cycles equal linearTiming().
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

/// Mirrors the parameters of st_linear (same names, same meaning).
struct LinearParams {
  int64_t k = 128;            ///< reduction length
  int64_t nOut = 16;          ///< output rows
  int64_t rows = 4;           ///< output rows per block (per output token)
  int64_t kLanes = 16;        ///< K elements per row per weight word
  int64_t lanes = 8;          ///< activations per x token
  int64_t weightBits = 4;     ///< 4 or 8
  int64_t activationBits = 8; ///< 8 or 16
  int64_t groupSize = 32;     ///< 0 = per output channel
  int64_t outputBits = 8;
  int64_t wordBits = 320; ///< weight stream word width (payload + zero padding)
};

/// Input port order of KernelTiming::inputTokens / inputTokensNeeded.
enum LinearInput : int { kLinearInputX = 0, kLinearInputWeights = 1 };

/// Cycles from a block's last weight-word handshake to its output handshake (s1..s5, r1..r4,
/// output register slice).
constexpr int64_t kLinearPipelineDepth = 10;

/// Bits of one weight word that carry data: Rows*KLanes*WBits weights (+ Rows*16 mantissas).
int64_t linearWeightPayloadBits(const LinearParams &p);
/// Header words per row block: ceil(Rows * 80 / WordBits).
int64_t linearHeaderWords(const LinearParams &p);
/// Weight-stream words per row block: header words + K / KLanes.
int64_t linearBlockWords(const LinearParams &p);
/// Throws std::invalid_argument when the parameters break a rule st_linear checks with $fatal.
void checkLinearParams(const LinearParams &p);

/// Exact under ideal sources (kernel_timing.h): x tokens at cycles 0..K/Lanes-1, then one
/// weight word per cycle; block b's output at K/Lanes + (b+1)*B - 1 + kLinearPipelineDepth with
/// B = linearBlockWords. ii = B. Output k needs all of x and (k+1)*B weight words.
KernelTiming linearTiming(const LinearParams &p);

/// Structural estimate for Yosys synth_xilinx -family xcup (one DSP48E2 per product, adder
/// trees and accumulators in fabric carry chains, x buffer in LUTRAM or BRAM by size).
ResourceEstimate linearResources(const LinearParams &p);

} // namespace st::model
