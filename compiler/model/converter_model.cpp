// Timing and resource model of st_layout_converter (see converter_model.h).
#include "model/converter_model.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "support/int_math.h"

namespace st::model {

int64_t layoutConverterOutputCycle(const ir::ConverterProgram &p, int64_t k) {
  const int64_t pt = p.producerTokensPerPhase, ct = p.consumerTokensPerPhase;
  return pt + 1 + (k / ct) * std::max(pt, ct) + k % ct;
}

KernelTiming layoutConverterTiming(const ir::ConverterProgram &p) {
  const int64_t pt = p.producerTokensPerPhase, ct = p.consumerTokensPerPhase;
  KernelTiming t;
  t.firstOutputDelay = pt + 1;
  t.ii = 1;
  t.totalLatency = pt + ct + (p.phases - 1) * std::max(pt, ct);
  t.outputTokens = p.phases * ct;
  t.inputTokens = {p.phases * pt};
  t.inputTokensNeeded = {[pt, ct](int64_t k) { return (k / ct + 1) * pt; }};
  return t;
}

ResourceEstimate layoutConverterResources(const ir::ConverterLimits &l,
                                          const ir::ConverterProgram *program) {
  const int64_t bits = l.elementBits;
  const int64_t depth = 2 * l.maxBufferElements;
  const int64_t addrBits = std::max<int64_t>(1, ceilLog2(l.maxBufferElements));
  const int64_t prodTokBits = std::max<int64_t>(1, ceilLog2(l.maxProducerTokens));
  const int64_t consTokBits = std::max<int64_t>(1, ceilLog2(l.maxConsumerTokens));
  const bool singleLane = l.maxProducerElements == 1 && l.maxConsumerElements == 1;
  ResourceEstimate r;
  // Control: token counters and their comparators, bank flags, the output valid.
  r.ff = prodTokBits + consTokBits + 5;
  r.lut = 2 * (prodTokBits + consTokBits) + 8;
  // The output register.
  r.ff += l.maxConsumerElements * bits;
  if (!program) {
    // Table rows (read one token ahead) and the table ROMs: LUTs (one LUT6 per 64 entries per
    // bit) unless large enough for block RAM.
    r.ff += (l.maxProducerElements + l.maxConsumerElements) * addrBits;
    for (auto [entries, width] :
         {std::pair{l.maxProducerTokens, l.maxProducerElements * addrBits},
          std::pair{l.maxConsumerTokens, l.maxConsumerElements * addrBits}}) {
      if (entries > 256)
        r.bram36 += static_cast<double>(ceilDiv(entries * width, 36 * 1024));
      else if (entries > 1)
        r.lut += width * ceilDiv(entries, 64);
    }
  }
  if (singleLane && depth > 8) {
    if (program)
      r.ff += 2 * addrBits; // a single lane's address rows stay registers (RAM addresses)
    if (depth <= 256 && depth * bits <= 8192)
      r.lut += bits * ceilDiv(depth, 64) * 2; // RAM64X1D: 2 LUTs per 64x1 dual port
    else
      r.bram36 += static_cast<double>(ceilDiv(depth, 1024) * ceilDiv(bits, 36));
    return r;
  }
  // Registers: every word; a write enable per word; per word and bit a multiplexer over the
  // lanes that write it; per output lane and bit a multiplexer over the words it reads. A LUT6
  // (with MUXF7/F8) selects about 4 inputs.
  r.ff += depth * bits;
  r.lut += depth;
  if (program) {
    std::vector<std::vector<char>> writers(
        static_cast<size_t>(l.maxBufferElements),
        std::vector<char>(static_cast<size_t>(l.maxProducerElements), 0));
    for (const auto &token : program->producerAddresses)
      for (size_t lane = 0; lane < token.size(); ++lane)
        writers[static_cast<size_t>(token[lane])][lane] = 1;
    for (const auto &w : writers) {
      const int64_t f = std::count(w.begin(), w.end(), 1);
      if (f > 1)
        r.lut += 2 * bits * ceilDiv(f, 4); // both banks
    }
    for (int64_t lane = 0; lane < program->consumerTokenElements; ++lane) {
      std::vector<int64_t> read;
      for (const auto &token : program->consumerAddresses)
        read.push_back(token[static_cast<size_t>(lane)]);
      std::sort(read.begin(), read.end());
      const int64_t d = std::unique(read.begin(), read.end()) - read.begin();
      r.lut += bits * ceilDiv(2 * d, 4);
    }
    return r;
  }
  r.lut += depth * l.maxProducerElements * ceilDiv(addrBits + 3, 6);
  if (l.maxProducerElements > 1)
    r.lut += depth * bits * ceilDiv(l.maxProducerElements, 4);
  r.lut += l.maxConsumerElements * bits * ceilDiv(depth, 4);
  return r;
}

} // namespace st::model
