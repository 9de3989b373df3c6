// Resource model of the HBM DMA templates: st_axi_read_dma / st_axi_write_dma (address
// generator, burst former, AXI channel logic, the read data buffer or write length queue and
// W slice) and the DMA streams the compiler instantiates, st_read_dma_stream (read DMA +
// st_stream_unpack) and st_write_dma_stream (st_stream_pack + write DMA).
// Structural parts: the read buffer is an st_fifo of DataWidth x MaxBurstLen*MaxOutstanding
// (fifo_resources.h: BRAM plus prefetch registers), the write DMA's W slice a DataWidth+1 skid
// buffer, unpack/pack hold a word and an output slice. The address-generation core (per loop: a
// trip counter, a 64-bit stride and address adder, the latched configuration) is calibrated on
// Yosys: st_axi_read_dma / st_axi_write_dma at NumLoops=4 (synth.axi_*_dma.w512) and the two
// streams at NumLoops=1 (synth.*_dma_stream.l1); the *.vs_model tests print the comparison.
// In a generated top the loop configuration is constant, which synthesis folds a little further
// (the design estimate is then slightly high; see docs/vivado.md).
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

struct DmaParams {
  int64_t numLoops = 1;
  int64_t dataWidth = 512;
  int64_t maxBurstLen = 64;
  int64_t maxOutstanding = 4;
};

/// st_stream_unpack / st_stream_pack parameters of a DMA stream.
struct DmaStreamTokens {
  int64_t paddedTokenBits = 32;
  int64_t tokenBits = 32;
  int64_t tokensPerRun = 16;
};

ResourceEstimate axiReadDmaResources(const DmaParams &p);
ResourceEstimate axiWriteDmaResources(const DmaParams &p);
ResourceEstimate readDmaStreamResources(const DmaParams &p, const DmaStreamTokens &t);
ResourceEstimate writeDmaStreamResources(const DmaParams &p, const DmaStreamTokens &t);
/// st_channel_claim on a read master of `maxOutstanding` bursts, claiming `channels` channels:
/// the channel range compare of the AR address, a tag FIFO and a burst counter per channel.
/// Yosys (synth.channel_claim, 2 channels of 512 MB): 65 LUTs, 20 FFs.
ResourceEstimate channelClaimResources(int64_t channels, int64_t maxOutstanding = 4);

} // namespace st::model
