// Timing and resource model of st_matmul (rtl_templates/kernels/st_matmul.sv), the tiled matrix
// multiply of synthetic tensor graphs. One C tile takes KTiles (A, B) tile pairs, one pair per
// cycle; pair j of a C tile is taken in cycle j and the C tile leaves 2 cycles after its last
// pair (dot-product register, accumulator/result register) plus 1 (output register slice):
//   D = KTiles + 2,  II = KTiles,  L = D + (T - 1) * KTiles   for T output tiles,
//   inputTokensNeeded(k) = (k + 1) * KTiles on both ports.
// tests/rtl/matmul asserts these numbers against Verilator and prints the resource estimate
// beside Yosys's counts.
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

/// Parameters of st_matmul, plus the C tiles of the invocation being timed.
struct MatmulParams {
  int64_t tm = 2;          ///< TM: rows of the A and C tiles
  int64_t tn = 2;          ///< TN: columns of the B and C tiles
  int64_t tk = 2;          ///< TK: columns of A / rows of B per tile
  int64_t kTiles = 4;      ///< KTiles = K / TK: tile pairs per C tile
  int64_t aBits = 8;       ///< ABits: code width of A
  int64_t bBits = 8;       ///< BBits: code width of B
  int64_t outBits = 32;    ///< OutBits: code width of C
  bool aSigned = true;     ///< ASigned: A codes signed (else unsigned)
  bool bSigned = true;     ///< BSigned
  bool outSigned = true;   ///< OutSigned: C saturates to the signed range (else unsigned)
  int64_t outputTiles = 1; ///< C tiles of one invocation (T)
};

/// Input port 0 is A, port 1 is B; each carries outputTiles * KTiles tokens.
KernelTiming matmulTiming(const MatmulParams &params);

/// LUT/FF/DSP estimate (see matmul_model.cpp).
ResourceEstimate matmulResources(const MatmulParams &params);

/// Widths of the exact datapath: a dot product of TK terms and the accumulator.
int64_t matmulDotBits(const MatmulParams &params);
int64_t matmulAccBits(const MatmulParams &params);

} // namespace st::model
