// Verilator test of st_axi_burst_former on its own: >= 10,000 word addresses in random sequences
// (contiguous runs that start near 4 KB page ends, strided and descending patterns, repeated
// addresses, sequences that continue exactly where the previous one ended), each ending with
// last_i, under random backpressure on both sides. The bursts must equal the greedy C++ split
// of each sequence (splitIntoBursts: merge consecutive words, close at MaxBurstLen beats, at a
// 4 KB page end, and at last_i); every burst is also checked on its own: 1..MaxBurstLen beats,
// inside one 4 KB page. In free flow one address enters per cycle; at the end idle_o is high.
#include <algorithm>
#include <cinttypes>

#include "addr_pattern.h"
#include "axi_burst_former_configs.h"
#include "config_dispatch.h"
#include "multi_stream_bench.h"

using namespace st::tb;

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

/// A random sequence of word addresses (multiples of wordBytes) below 2^36. `previousEnd` is the
/// word after the previous sequence's last address.
std::vector<uint64_t> randomSequence(std::mt19937_64 &rng, unsigned wordBytes, unsigned maxBurstLen,
                                     uint64_t previousEnd) {
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t word = wordBytes;
  const int64_t wordsPerPage = 4096 / word;
  // A start near the end of a 4 KB page, anywhere in a page, or right after the last sequence.
  uint64_t start;
  switch (uniform(0, 3)) {
  case 0:
    start = uniform(1, 1 << 20) * 4096 - uniform(0, 5) * word;
    break;
  case 1:
    start = previousEnd;
    break;
  default:
    start = uniform(0, int64_t(1) << 30) * word;
    break;
  }
  AddrPattern p;
  p.base = start;
  switch (uniform(0, 4)) {
  case 0: // one contiguous run, up to three maximal bursts long
    p.tripCounts = {static_cast<uint32_t>(uniform(1, 3 * maxBurstLen))};
    p.strides = {word};
    break;
  case 1: // rows of a matrix: contiguous rows, row pitch random (sometimes exactly the row)
  {
    const int64_t rowWords = uniform(1, 2 * wordsPerPage);
    const int64_t pitch =
        uniform(0, 2) == 0 ? rowWords * word : uniform(-64, 4 * wordsPerPage) * word;
    p.tripCounts = {static_cast<uint32_t>(uniform(1, 6)), static_cast<uint32_t>(rowWords)};
    p.strides = {pitch, word};
    break;
  }
  case 2: // a strided or descending walk
    p.tripCounts = {static_cast<uint32_t>(uniform(1, 40))};
    p.strides = {uniform(-3, 3) * word};
    break;
  case 3: // a block re-read: repeats whole runs
    p.tripCounts = {static_cast<uint32_t>(uniform(2, 3)), static_cast<uint32_t>(uniform(1, 20))};
    p.strides = {0, word};
    break;
  default: // scattered single words
  {
    std::vector<uint64_t> out;
    for (int i = uniform(1, 8); i > 0; --i)
      out.push_back(static_cast<uint64_t>(uniform(0, int64_t(1) << 30)) * word);
    return out;
  }
  }
  std::vector<uint64_t> out = p.addresses();
  for (uint64_t &a : out)
    a &= (uint64_t(1) << 36) - 1; // keep clear of the address width (a 40-bit bus)
  return out;
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned addrWidth = static_cast<unsigned>(params["AddrWidth"]);
  const unsigned wordBytes = static_cast<unsigned>(params["WordBytes"]);
  const unsigned maxBurstLen = static_cast<unsigned>(params["MaxBurstLen"]);
  StreamPins in{SignalRef(m.valid_i, 1), SignalRef(m.ready_o, 1),
                SignalRef(m.data_i, addrWidth + 1)};
  StreamPins out{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                 SignalRef(m.data_o, addrWidth + 8)};

  MultiStreamBench bench(options);
  StreamDriver &driver = bench.addDriver("addr", in);
  Scoreboard &board = bench.addScoreboard("bursts");
  uint64_t bursts = 0, beats = 0, longest = 0;
  std::string ruleError;
  bench.addSink("bursts", out).onToken([&](const Bits &t) {
    // The AXI rules on their own, before the comparison with the model.
    const uint64_t addr = t.sliceU64(0, addrWidth);
    const uint64_t n = t.sliceU64(addrWidth, 8) + 1;
    const uint64_t lastByte = addr + n * wordBytes - 1;
    if (ruleError.empty() && n > maxBurstLen)
      ruleError = "burst at " + hex(addr) + " has " + std::to_string(n) +
                  " beats, more than MaxBurstLen " + std::to_string(maxBurstLen);
    if (ruleError.empty() && addr / 4096 != lastByte / 4096)
      ruleError =
          "burst at " + hex(addr) + " of " + std::to_string(n) + " beats crosses a 4 KB page";
    ++bursts;
    beats += n;
    longest = std::max(longest, n);
    // A burst that breaks a rule is reported as such (by the check below), not as a mismatch.
    if (ruleError.empty())
      board.observe(t);
  });
  bench.addCheck("AXI burst rules", [&] { return ruleError; });

  std::mt19937_64 rng(options.seed);
  uint64_t previousEnd = 0, sequences = 0;
  bench.run(h, options.tokens, [&](uint64_t count) {
    uint64_t queued = 0;
    while (queued < count) {
      const std::vector<uint64_t> seq = randomSequence(rng, wordBytes, maxBurstLen, previousEnd);
      for (size_t i = 0; i < seq.size(); ++i) {
        Bits token(addrWidth + 1, seq[i]);
        token.setBit(addrWidth, i + 1 == seq.size());
        driver.push(token);
      }
      for (const BurstSpec &b : splitIntoBursts(seq, wordBytes, maxBurstLen)) {
        Bits burst(addrWidth + 8, b.addr);
        burst.setSliceU64(addrWidth, 8, b.beats - 1);
        board.expect(burst);
      }
      previousEnd = seq.back() + wordBytes;
      queued += seq.size();
      ++sequences;
    }
    return queued;
  });
  if (!m.idle_o)
    h.fail("idle_o is low after every burst left");
  std::printf("%llu sequences -> %llu bursts of %llu beats (longest %llu) matched the model\n",
              static_cast<unsigned long long>(sequences), static_cast<unsigned long long>(bursts),
              static_cast<unsigned long long>(beats), static_cast<unsigned long long>(longest));
}

} // namespace

int main(int argc, char **argv) {
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
