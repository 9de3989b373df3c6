// Timing and resource model of st_embedding_gather (see embedding_model.h).
#include "model/embedding_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/elementwise_model.h"
#include "support/int_math.h"

namespace st::model {

namespace {

void require(bool ok, const std::string &what) {
  if (!ok)
    throw std::invalid_argument("st_embedding_gather parameters: " + what);
}

/// Cycles from the id handshake to the first word on the DMA's data output, less the memory
/// latency and the first burst's length (the burst former gathers a burst's addresses, one per
/// cycle, before it issues it): start, address generation, AR, the memory's cycle after the AR
/// handshake, the DMA's data buffer. Measured against AxiMemory with a fixed latency
/// (tests/rtl/embedding_gather).
constexpr int64_t kDmaStartCycles = 5;

/// From the unpacker taking a row's last word to the DMA accepting the next id (done, idle).
constexpr int64_t kDmaDoneCycles = 2;

/// The first burst of a row: min(row words, MaxBurstLen) (rows do not cross a 4 KB page inside
/// their first burst: the compiler aligns the table to 4 KB and RowBytes divides 4 KB or is a
/// multiple of it).
int64_t firstBurstWords(const EmbeddingParams &p) {
  return std::min(ceilDiv(p.dim, 64), p.maxBurstLen);
}

/// From a word's arrival at the unpacker to the output handshake of its first token: the take
/// register, s1..s5 and the output slice.
constexpr int64_t kUnpackCycles = 7;

} // namespace

int64_t embeddingRowWords(const EmbeddingParams &p) {
  return ceilDiv(p.dim, 64);
}

void checkEmbeddingParams(const EmbeddingParams &p) {
  require(p.lanes >= 1 && 64 % p.lanes == 0 && p.dim >= 1 && p.dim % p.lanes == 0,
          "Lanes must divide 64 and Dim");
  require(p.outBits >= 2 && p.outBits <= 32, "OutBits must be 2 .. 32");
  require(p.maxBurstLen >= 1 && p.maxBurstLen <= 64, "MaxBurstLen must be 1 .. 64");
  require(p.maxOutstanding >= 1, "MaxOutstanding must be >= 1");
}

KernelTiming embeddingTiming(const EmbeddingParams &p, int64_t readLatency) {
  checkEmbeddingParams(p);
  const int64_t tokens = p.dim / p.lanes;
  KernelTiming t;
  t.firstOutputDelay = kDmaStartCycles + firstBurstWords(p) + readLatency + kUnpackCycles;
  t.ii = 1;
  t.totalLatency = t.firstOutputDelay + tokens - 1;
  t.outputTokens = tokens;
  t.inputTokens = {1};
  t.inputTokensNeeded = {[](int64_t) { return int64_t(1); }};
  return t;
}

int64_t embeddingIdInterval(const EmbeddingParams &p, int64_t readLatency) {
  checkEmbeddingParams(p);
  // The DMA takes the next id once the unpacker has taken the row's last word (it holds one
  // word and takes the next as it emits the previous word's last token), plus its done cycle.
  const int64_t tokensPerWord = 64 / p.lanes;
  return kDmaStartCycles + firstBurstWords(p) + readLatency +
         (embeddingRowWords(p) - 1) * tokensPerWord + kDmaDoneCycles;
}

ResourceEstimate embeddingResources(const EmbeddingParams &p) {
  checkEmbeddingParams(p);
  const int64_t tokenBits = p.lanes * 8;
  const int64_t tokensPerWord = 64 / p.lanes;
  const int64_t productBits = 33;
  ResourceEstimate r;

  // st_axi_read_dma (one loop, 64-bit addresses, 512-bit data): the data FIFO of
  // MaxOutstanding * MaxBurstLen words in BRAM (512x72 RAMB36 mode per 512 entries: seven
  // RAMB36 for 504 bits and one RAMB18 for the last 8), its 512-bit output register and
  // read-side mux; address generator (base, trip count, stride, current address, counter),
  // burst former (start address, length, page check), AR register, credit and outstanding
  // counters. The last term (600) is fitted on synth.embedding_gather.d128: Yosys maps the
  // gather to 3931 LUTs since the DMA's command side is st_axi_burst_cmd (3429 before, with
  // 100 here).
  const int64_t fifoDepth = p.maxOutstanding * p.maxBurstLen;
  const int64_t fifoBanks = ceilDiv(fifoDepth, 512);
  const int64_t rem = 512 % 72;
  r.bram36 += double(fifoBanks) * (double(512 / 72) + (rem == 0 ? 0.0 : rem <= 36 ? 0.5 : 1.0));
  r.ff += 2 * 512 + 64 * 5 + 32 * 2 + 64 + 8 + 64 + 8 + 40;
  r.lut += 512 + 64 * 6 + 32 * 3 + 600;

  // Id -> row address (constant multiply: shifts and adds) and the base addition.
  r.lut += 64 * (1 + (ceilDiv(p.dim, 64) & (ceilDiv(p.dim, 64) - 1) ? 1 : 0));

  // Unpacker: the word register (512 FF, fed straight from the FIFO) and a tokensPerWord:1 mux
  // per selected bit (one LUT6 per 4 inputs, plus a combining level), the row multiplier and
  // counters.
  r.ff += 512 + 2 * 30 + 16;
  r.lut +=
      tokenBits * std::max<int64_t>(1, ceilDiv(tokensPerWord, 4) + (tokensPerWord > 4 ? 1 : 0)) +
      30;

  // Per lane: s1 code (8 FF), code * M (one DSP; its output register is the DSP's), s3-s5
  // rounding shift of 33 bits by 0..63 (6 mux levels) with saturation.
  ResourceEstimate lane;
  lane.dsp = 1;
  lane.ff = 8 + roundShiftStageFfs(productBits, p.outBits) + p.outBits;
  lane.lut = 6 * productBits + 2 * p.outBits; // the round shift, fitted on synth d128
  for (int64_t i = 0; i < p.lanes; ++i)
    r += lane;
  r.ff += 24 + 6 * 2 + 5; // multiplier and shift of s1, s2; valid bits

  // Output register slice.
  r.ff += 2 * p.lanes * p.outBits + 2;
  r.lut += p.lanes * p.outBits + 2;
  return r;
}

} // namespace st::model
