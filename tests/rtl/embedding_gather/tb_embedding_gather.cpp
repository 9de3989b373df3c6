// Verilator test of st_embedding_gather (token-embedding row gather from HBM):
//  1. timing: with a fixed memory latency, no memory stalls, ideal id source and no output
//     backpressure, back-to-back ids each show exactly the first-output delay D, II and total
//     latency L of st::model::embeddingTiming and the id interval embeddingIdInterval;
//  2. bit-exactness: --tokens random ids (default 1200, including the first and last row and rows
//     of extreme codes) with random per-id multipliers (some saturating, some rounding to 0) and
//     two table bases, against AxiMemory (the HBM model) with random latency and stalls, under
//     the AXI protocol checker and random output backpressure; every output token compared
//     with st::numerics::embeddingGather.
// --config NAME --compare-synth REPORT prints the resource estimate beside Yosys's counts.
#include "axi_checker.h"
#include "axi_memory.h"
#include "config_dispatch.h"
#include "embedding_gather_configs.h"
#include "harness.h"
#include "model/embedding_model.h"
#include "numerics/embedding.h"
#include "scoreboard.h"
#include "sideband_ports.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "synth_compare.h"
#include "watchdog.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

namespace {

/// Records the cycle of every handshake on one stream.
class HandshakeLog : public Component {
public:
  explicit HandshakeLog(StreamPins pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    if (pins_.valid.readBool() && pins_.ready.readBool())
      cycles.push_back(cycle);
  }
  std::vector<uint64_t> cycles;

private:
  StreamPins pins_;
};

/// The sideband of one id: table base and multiplier.
struct IdSideband {
  uint64_t base = 0;
  num::FixedScale multiplier;
};

/// Drives the sideband of the id the kernel may accept this cycle (id number = ids accepted so
/// far); garbage once every queued id is taken.
class SidebandDriver : public Component {
public:
  SidebandDriver(StreamPins ids, SidebandPorts ports, unsigned addrBits, uint64_t seed)
      : ids_(std::move(ids)), ports_(std::move(ports)), addrBits_(addrBits), rng_(seed) {}
  void add(const IdSideband &s) { queue_.push_back(s); }
  void drive(uint64_t) override {
    if (accepted_ < queue_.size()) {
      // The LLM top's mapping; the table base is the TableBase source's runtime value.
      st::plan::SidebandRuntime runtime;
      runtime.tableBase = queue_[accepted_].base;
      ports_.write(st::plan::embeddingSidebands(queue_[accepted_].multiplier, addrBits_), runtime);
    } else {
      ports_.fill(rng_());
    }
  }
  void sample(uint64_t) override {
    if (ids_.valid.readBool() && ids_.ready.readBool())
      ++accepted_;
  }

private:
  StreamPins ids_;
  SidebandPorts ports_;
  unsigned addrBits_;
  std::mt19937_64 rng_;
  std::vector<IdSideband> queue_;
  uint64_t accepted_ = 0;
};

model::EmbeddingParams paramsOf(const Params &params) {
  model::EmbeddingParams p;
  p.dim = params["Dim"];
  p.lanes = params["Lanes"];
  p.outBits = params["OutBits"];
  p.maxBurstLen = params["MaxBurstLen"];
  p.maxOutstanding = params["MaxOutstanding"];
  return p;
}

int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// A table of `rows` rows: random codes, row 1 all -128, row 2 all 127, row 3 zeros, row 4
/// alternating extremes.
num::QuantizedEmbedding randomTable(size_t rows, size_t dim, unsigned outBits,
                                    std::mt19937_64 &rng) {
  num::QuantizedEmbedding t;
  t.rows = rows;
  t.dim = dim;
  t.outputBits = outBits;
  for (size_t r = 0; r < rows; ++r)
    for (size_t i = 0; i < dim; ++i) {
      int v = int(uniform(rng, -128, 127));
      if (r == 1)
        v = -128;
      else if (r == 2)
        v = 127;
      else if (r == 3)
        v = 0;
      else if (r == 4)
        v = i % 2 ? 127 : -128;
      t.codes.push_back(int8_t(v));
    }
  return t;
}

/// A multiplier that maps int8 codes near the top of the output range, with saturating
/// (small shift), vanishing (huge shift) and zero multipliers now and then.
num::FixedScale randomMultiplier(int64_t outBits, uint64_t index, std::mt19937_64 &rng) {
  num::FixedScale s;
  s.mantissa = uint32_t(uniform(rng, 1 << 23, (1 << 24) - 1));
  int shift = 23 - int(outBits - 8) + int(uniform(rng, -1, 3));
  if (index % 7 == 6)
    shift = int(uniform(rng, 0, std::max<int64_t>(0, 23 - (outBits - 8) - 4)));
  if (index % 11 == 10)
    shift = int(uniform(rng, 40, 63));
  if (index % 13 == 12)
    s.mantissa = uint32_t(uniform(rng, 0, 3));
  s.shift = uint8_t(std::clamp(shift, 0, 63));
  return s;
}

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const model::EmbeddingParams p = paramsOf(params);
  const unsigned idBits = unsigned(params.get("IdWidth", 1));
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  AxiPins axi;
  ST_AXI_BIND_READ(axi, m, m_axi_, idBits, 64, 512);
  AxiMemoryConfig calm;
  calm.readLatency = 5;
  AxiMemory memory("hbm", axi, options.seed * 7 + 1, calm);
  AxiProtocolChecker checker("m_axi", axi, unsigned(p.maxBurstLen));
  StreamPins idPins{SignalRef(m.index_valid_i, 1), SignalRef(m.index_ready_o, 1),
                    SignalRef(m.index_data_i, 32)};
  StreamPins outPins{SignalRef(m.valid_o, 1), SignalRef(m.ready_i, 1),
                     SignalRef(m.data_o, unsigned(p.lanes * p.outBits))};
  StreamDriver idDriver("ids", idPins, options.seed * 3 + 1);
  SidebandDriver sideband(idPins,
                          SidebandPorts({{"table_base_i", SignalRef(m.table_base_i, 64)},
                                         {"mult_mantissa_i", SignalRef(m.mult_mantissa_i, 24)},
                                         {"mult_shift_i", SignalRef(m.mult_shift_i, 6)}}),
                          64, options.seed * 13 + 2);
  StreamSink sink("out", outPins, options.seed * 5 + 3);
  Scoreboard board("out");
  Watchdog watchdog(options.watchdogCycles);
  watchdog.watch(sink.checker());
  watchdog.watch("ids", idPins);
  HandshakeLog idLog(idPins), outLog(outPins);
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c : std::initializer_list<Component *>{&memory, &checker, &sideband, &idDriver,
                                                         &sink, &board, &watchdog, &idLog, &outLog})
    h.add(*c);

  // Two tables in HBM: one at a page boundary, one at an odd 64-byte offset.
  std::mt19937_64 rng(options.seed);
  const size_t rows = 300;
  const uint64_t bases[2] = {0x10000000ull, 0x23450000ull + 64 * 37};
  std::vector<num::QuantizedEmbedding> tables;
  for (uint64_t base : bases) {
    tables.push_back(randomTable(rows, size_t(p.dim), unsigned(p.outBits), rng));
    const std::vector<uint8_t> image = num::embeddingImage(tables.back());
    memory.write(base, image.data(), image.size());
  }
  h.reset();

  uint64_t idsDone = 0, saturated = 0, outputs = 0;
  const int64_t outMax = (int64_t(1) << (p.outBits - 1)) - 1, outMin = -outMax - 1;
  // Table 0 is 4 KB aligned (no row crosses a page inside its first burst: the timing model's
  // condition); the timing phase uses it only.
  bool anyTable = false;
  auto enqueue = [&]() {
    const size_t which = anyTable ? size_t(uniform(rng, 0, 1)) : 0;
    uint32_t id = uint32_t(uniform(rng, 0, int64_t(rows) - 1));
    if (idsDone % 9 == 0)
      id = uint32_t(idsDone / 9 % 6); // rows 0..5: first row and the extreme rows
    if (idsDone % 17 == 0)
      id = uint32_t(rows - 1);
    num::QuantizedEmbedding &t = tables[which];
    t.outputScale = randomMultiplier(p.outBits, idsDone, rng);
    sideband.add({bases[which], t.outputScale});
    idDriver.push(Bits(32, id));
    const std::vector<int32_t> y = num::embeddingGather(t, id);
    for (size_t k = 0; k < y.size() / size_t(p.lanes); ++k) {
      Bits token(unsigned(p.lanes * p.outBits));
      for (int64_t i = 0; i < p.lanes; ++i) {
        const int32_t v = y[k * size_t(p.lanes) + size_t(i)];
        token.setSliceU64(unsigned(i * p.outBits), unsigned(p.outBits), uint64_t(int64_t(v)));
        saturated += v == outMax || v == outMin;
        ++outputs;
      }
      board.expect(token);
    }
    ++idsDone;
  };

  // ---- 1. exact timing: fixed latency, no stalls ----------------------------------------------
  const model::KernelTiming timing = model::embeddingTiming(p, calm.readLatency);
  const int64_t interval = model::embeddingIdInterval(p, calm.readLatency);
  const int timedIds = 4;
  for (int i = 0; i < timedIds; ++i)
    enqueue();
  h.runUntil([&] { return board.empty(); }, 100000);
  const size_t outPer = size_t(timing.outputTokens);
  if (idLog.cycles.size() != size_t(timedIds) || outLog.cycles.size() != outPer * timedIds)
    h.fail("token counts differ from the model's");
  for (int i = 0; i < timedIds; ++i) {
    const int64_t start = int64_t(idLog.cycles[size_t(i)]);
    auto y = [&](size_t k) { return int64_t(outLog.cycles[size_t(i) * outPer + k]) - start; };
    std::printf("id %d: D %lld (model %lld)  L %lld (model %lld)", i, (long long)y(0),
                (long long)timing.firstOutputDelay, (long long)y(outPer - 1),
                (long long)timing.totalLatency);
    if (i > 0)
      std::printf("  interval %lld (model %lld)",
                  (long long)(start - int64_t(idLog.cycles[size_t(i) - 1])), (long long)interval);
    std::printf("\n");
    if (y(0) != timing.firstOutputDelay || y(outPer - 1) != timing.totalLatency)
      h.fail("measured D/L differ from embeddingTiming");
    if (i > 0 && start - int64_t(idLog.cycles[size_t(i) - 1]) != interval)
      h.fail("measured id interval differs from embeddingIdInterval");
    for (size_t k = 1; k < outPer; ++k)
      if (y(k) - y(k - 1) != timing.ii)
        h.fail("output " + std::to_string(k) + " of id " + std::to_string(i) + " came " +
               std::to_string(y(k) - y(k - 1)) + " cycles after the previous one");
  }

  // ---- 2. random ids, random memory timing, backpressure --------------------------------------
  anyTable = true;
  struct Phase {
    const char *name;
    double idValid, outReady;
    AxiMemoryConfig memory;
  };
  AxiMemoryConfig jitter;
  jitter.readLatency = 2;
  jitter.readLatencyJitter = 40;
  jitter.arreadyProbability = 0.5;
  jitter.rvalidProbability = 0.6;
  AxiMemoryConfig capped;
  capped.kernelClockMhz = 250;
  capped.readLatencyJitter = 20;
  AxiMemoryConfig slow;
  slow.readLatency = 30;
  slow.readLatencyJitter = 10;
  slow.arreadyProbability = slow.rvalidProbability = 0.3;
  const Phase phases[] = {{"jittery memory, free output", 1.0, 1.0, jitter},
                          {"capped memory, slow consumer", 1.0, 0.2, capped},
                          {"slow memory, slow id source", 0.3, 1.0, slow},
                          {"jittery memory, random", 0.6, 0.5, jitter}};
  const uint64_t ids = options.tokens;
  for (size_t ph = 0; ph < 4; ++ph) {
    memory.setConfig(phases[ph].memory);
    idDriver.setValidProbability(phases[ph].idValid);
    sink.setReadyProbability(phases[ph].outReady);
    const uint64_t n = ids / 4 + (ph == 3 ? ids % 4 : 0);
    for (uint64_t i = 0; i < n; ++i)
      enqueue();
    h.runUntil([&] { return board.empty(); }, n * uint64_t(outPer + 200) * 20 + 10000);
    std::printf("phase '%s': %llu ids checked, cycle %llu\n", phases[ph].name,
                (unsigned long long)n, (unsigned long long)h.cycle());
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  if (m.error_o)
    h.fail("error_o is set, but every read answered OKAY");
  std::printf("%llu of %llu output codes saturated; %llu read bursts\n",
              (unsigned long long)saturated, (unsigned long long)outputs,
              (unsigned long long)checker.readBursts());
  std::printf("%llu ids (%llu output tokens) bit-exact against numerics::embeddingGather, %llu "
              "cycles\n",
              (unsigned long long)idsDone, (unsigned long long)board.matched(),
              (unsigned long long)h.cycle());
}

int main(int argc, char **argv) {
  if (argc == 5 && !std::strcmp(argv[1], "--config") && !std::strcmp(argv[3], "--compare-synth")) {
#define ST_ESTIMATE(cfg, Model, params)                                                            \
  if (!std::strcmp(argv[2], #cfg))                                                                 \
    return compareSynthWithEstimate(argv[4], model::embeddingResources(paramsOf(params)));
    ST_CONFIGS(ST_ESTIMATE)
    std::fprintf(stderr, "unknown --config '%s'\n", argv[2]);
    return 2;
  }
  return runTest(argc, argv, [](const TestOptions &options) {
#define ST_DISPATCH(cfg, Model, params)                                                            \
  if (options.config == #cfg)                                                                      \
    return runConfig<Model>(options, params);
    ST_CONFIGS(ST_DISPATCH)
    throw TestFailure("unknown --config '" + options.config +
                      "'; known:" ST_CONFIGS(ST_CONFIG_NAME));
  });
}
