// Timing and resource model of the embedding gather kernel st_embedding_gather
// (rtl_templates/kernels/st_embedding_gather.sv): one int8 table row per token id, read from HBM
// through st_axi_read_dma and requantized. Its timing depends on the memory: the figures below
// hold for a fixed read latency with no memory stalls (AxiMemoryConfig::readLatency); the
// Verilator test tests/rtl/embedding_gather asserts them against that memory model.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

/// The parameters of st_embedding_gather (same names, same meaning).
struct EmbeddingParams {
  int64_t dim = 128;          ///< codes per row (hidden size)
  int64_t lanes = 8;          ///< codes per output token; divides 64 and dim
  int64_t outBits = 16;       ///< output code width
  int64_t addrWidth = 64;     ///< the AXI master's address width
  int64_t idWidth = 1;        ///< the AXI master's ID width
  int64_t maxBurstLen = 64;   ///< the read DMA's longest burst
  int64_t maxOutstanding = 2; ///< the read DMA's bursts in flight
};

/// 64-byte HBM words per table row: ceil(dim / 64).
int64_t embeddingRowWords(const EmbeddingParams &params);

/// Throws std::invalid_argument for parameters the template rejects with $fatal.
void checkEmbeddingParams(const EmbeddingParams &params);

/// One invocation = one id; cycle 0 = its handshake. With a memory that answers every burst
/// `readLatency` cycles after the cycle after its AR handshake and never stalls: D, II = 1
/// (a row's tokens are emitted back to back), L = D + dim/lanes - 1. The id needs nothing more
/// than itself (inputTokensNeeded = 1).
KernelTiming embeddingTiming(const EmbeddingParams &params, int64_t readLatency);

/// Cycles between the handshakes of two back-to-back ids under the same conditions (the DMA
/// takes the next id once it has delivered the row's last word to the one-word unpacker).
/// These figures assume the DMA has each next word ready when the unpacker wants it (64/Lanes
/// cycles per word): true when 64/Lanes cycles cover a burst's round trip or the row's words
/// come in one burst, as in the tested parameter sets; otherwise the memory is the bottleneck
/// and the figures are lower bounds.
int64_t embeddingIdInterval(const EmbeddingParams &params, int64_t readLatency);

/// LUT/FF/DSP/BRAM estimate for Yosys synth_xilinx -family xcup (see embedding_model.cpp).
ResourceEstimate embeddingResources(const EmbeddingParams &params);

} // namespace st::model
