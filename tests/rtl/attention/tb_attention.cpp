// Verilator test of st_attention against the golden st::numerics::attention (OnePass:
// st::numerics::attentionTiled with the kernel's TilePositions).
// The cache streams come in the kernel's walk order (position-major, or block-major with the
// BlockMajor parameter, each block's positions padded with random codes to a multiple of
// CacheRound).
//  1. Timing: with ideal sources and sink, isolated invocations at cache_len 0, 1, MaxContext-1
//     and random ones must show exactly the model's D, L and ii = 1 (attentionTiming: D and L
//     are functions of cache_len), cycle 0 being the first handshake on any input, and every
//     input token taken exactly at its cycle in the model's inputRanks; and
//     back-to-back invocations start exactly attentionSchedule().nextInvocation cycles apart;
//     k_new and v_new offered late (up to 40 cycles past where the walk needs them): the first
//     output exactly where attentionSchedule puts it given their last handshakes; and
//  2. Bit-exactness: >= 1,000 invocations under random valid gaps on all five inputs and random
//     output backpressure, every output code equal to the golden one. Operands: full-range
//     random codes (near one-hot softmax), small codes (many positions contribute), q = 0
//     (all-equal scores), extremes only (+-127/-128); cache_len 0, MaxContext - 1 and random;
//     score multipliers over six decades plus raw extremes, output multipliers from
//     saturating to tiny.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <random>
#include <vector>

#include "attention_configs.h"
#include "config_dispatch.h"
#include "model/attention_model.h"
#include "numerics/attention_golden.h"
#include "numerics/golden_ops.h"
#include "passthrough_test.h"
#include "sideband_ports.h"

using namespace st::tb;
namespace num = st::numerics;

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

struct Sideband {
  uint64_t cacheLength;
  num::AttentionScales scales;
};

/// Drives the sideband inputs of the invocation whose q tokens the q driver is offering: the
/// invocation index is the number of q tokens sent so far divided by the q tokens per call.
class SidebandDriver : public Component {
public:
  SidebandDriver(const StreamDriver &q, uint64_t qTokens, SidebandPorts ports,
                 unsigned cacheLenBits)
      : q_(q), qTokens_(qTokens), ports_(std::move(ports)), cacheLenBits_(cacheLenBits) {}
  void push(const Sideband &s) { queue.push_back(s); }
  void drive(uint64_t) override {
    const uint64_t index = q_.sent() / qTokens_;
    if (index < queue.size()) {
      // The LLM top's mapping; cache_len is the CacheLength source's runtime value.
      const Sideband &s = queue[index];
      st::plan::SidebandRuntime runtime;
      runtime.cacheLength = int64_t(s.cacheLength);
      ports_.write(st::plan::attentionSidebands(s.scales, cacheLenBits_), runtime);
    } else {
      ports_.fill(0);
    }
  }
  std::vector<Sideband> queue;

private:
  const StreamDriver &q_;
  uint64_t qTokens_;
  SidebandPorts ports_;
  unsigned cacheLenBits_;
};

uint64_t interiorOutputs = 0, saturatedOutputs = 0;

std::vector<int32_t> makeCodes(std::mt19937_64 &rng, size_t n, int kind) {
  std::vector<int32_t> v(n);
  for (auto &x : v) {
    switch (kind) {
    case 0:
      x = int32_t(rng() % 256) - 128;
      break;
    case 1:
      x = int32_t(rng() % 17) - 8;
      break;
    default:
      x = rng() % 2 ? 127 : -128;
    }
  }
  return v;
}

num::FixedScale randomScoreScale(std::mt19937_64 &rng) {
  switch (rng() % 8) {
  case 0:
    return num::FixedScale{static_cast<uint32_t>((1u << 23) + rng() % (1u << 23)), 0};
  case 1:
    return num::FixedScale{static_cast<uint32_t>((1u << 23) + rng() % (1u << 23)), 63};
  default:
    return num::softmaxScales(std::pow(10.0, std::uniform_real_distribution<double>(-7, -1)(rng)))
        .logitToLog2;
  }
}

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  st::model::AttentionParams mp;
  mp.numHeads = params["NumHeads"];
  mp.numKvHeads = params["NumKvHeads"];
  mp.headDim = params["HeadDim"];
  mp.maxContext = params["MaxContext"];
  mp.lanes = params["Lanes"];
  mp.cacheLanes = params["CacheLanes"];
  mp.outBits = params["OutBits"];
  mp.blockMajor = params.get("BlockMajor", 0) != 0;
  mp.cacheRound = params.get("CacheRound", 1);
  mp.onePass = params.get("OnePass", 0) != 0;
  mp.tilePositions = params.get("TilePositions", 64);
  const num::AttentionShape shape{size_t(mp.numHeads), size_t(mp.numKvHeads), size_t(mp.headDim)};
  const unsigned lanes = unsigned(mp.lanes), cacheLanes = unsigned(mp.cacheLanes),
                 outBits = unsigned(mp.outBits);
  const uint64_t qTokens = shape.qSize() / lanes;

  auto pins = [](auto &valid, auto &ready, auto &data, unsigned width) {
    return StreamPins{SignalRef(valid, 1), SignalRef(ready, 1), SignalRef(data, width)};
  };
  StreamPins qPins = pins(m.q_valid_i, m.q_ready_o, m.q_data_i, lanes * 8);
  StreamPins kNewPins = pins(m.k_new_valid_i, m.k_new_ready_o, m.k_new_data_i, lanes * 8);
  StreamPins vNewPins = pins(m.v_new_valid_i, m.v_new_ready_o, m.v_new_data_i, lanes * 8);
  StreamPins kCachePins =
      pins(m.k_cache_valid_i, m.k_cache_ready_o, m.k_cache_data_i, cacheLanes * 8);
  StreamPins vCachePins =
      pins(m.v_cache_valid_i, m.v_cache_ready_o, m.v_cache_data_i, cacheLanes * 8);
  StreamPins outPins = pins(m.valid_o, m.ready_i, m.data_o, lanes * outBits);

  const uint64_t seed = options.seed;
  StreamDriver q("q", qPins, seed * 7 + 3), kNew("k_new", kNewPins, seed * 11 + 4),
      vNew("v_new", vNewPins, seed * 13 + 5), kCache("k_cache", kCachePins, seed * 17 + 6),
      vCache("v_cache", vCachePins, seed * 19 + 7);
  const unsigned cacheLenBits = unsigned(st::model::attentionCacheLengthBits(mp));
  SidebandDriver sideband(q, qTokens,
                          SidebandPorts({{"cache_len_i", SignalRef(m.cache_len_i, cacheLenBits)},
                                         {"score_mantissa_i", SignalRef(m.score_mantissa_i, 24)},
                                         {"score_shift_i", SignalRef(m.score_shift_i, 6)},
                                         {"out_mantissa_i", SignalRef(m.out_mantissa_i, 24)},
                                         {"out_shift_i", SignalRef(m.out_shift_i, 6)}}),
                          cacheLenBits);
  StreamSink sink("out", outPins, seed * 5 + 2);
  Scoreboard board("attention output");
  Watchdog watchdog(options.watchdogCycles);
  for (auto *p : {&qPins, &kNewPins, &vNewPins, &kCachePins, &vCachePins})
    watchdog.watch("in", *p);
  watchdog.watch(sink.checker());
  HandshakeLog qLog(qPins), kNewLog(kNewPins), vNewLog(vNewPins), kCacheLog(kCachePins),
      vCacheLog(vCachePins), outLog(outPins);
  std::vector<HandshakeLog *> inLogs = {&qLog, &kNewLog, &vNewLog, &kCacheLog, &vCacheLog};
  std::vector<StreamDriver *> drivers = {&q, &kNew, &vNew, &kCache, &vCache};
  sink.onToken([&](const Bits &t) { board.observe(t); });
  for (Component *c : std::initializer_list<Component *>{
           &q, &kNew, &vNew, &kCache, &vCache, &sideband, &sink, &board, &watchdog, &qLog, &kNewLog,
           &vNewLog, &kCacheLog, &vCacheLog, &outLog})
    h.add(*c);
  h.reset();
  std::mt19937_64 rng(seed);

  auto pushCodes = [](StreamDriver &d, const std::vector<int32_t> &codes, unsigned perToken) {
    for (size_t t = 0; t < codes.size() / perToken; ++t) {
      Bits token(perToken * 8);
      for (unsigned i = 0; i < perToken; ++i)
        token.setSliceU64(i * 8, 8, uint64_t(codes[t * perToken + i]) & 0xff);
      d.push(token);
    }
  };
  // The cache streams in the kernel's walk order: the golden's position-major tokens (position,
  // kv-head block, chunk), or block-major (block, position, chunk) with the same tokens, each
  // block's positions padded with random codes to a multiple of CacheRound (the kernel must
  // drop them: a kernel that used them would miss the golden).
  const size_t chunksPerPosition = shape.kvSize() / cacheLanes;
  const size_t blockChunks = mp.cacheLanes > mp.headDim ? 1 : size_t(mp.headDim / mp.cacheLanes);
  auto cacheOrder = [&](const std::vector<int32_t> &codes) {
    if (!mp.blockMajor)
      return codes;
    const size_t positions = codes.size() / shape.kvSize();
    std::vector<int32_t> ordered;
    ordered.reserve(codes.size());
    for (size_t g = 0; g < chunksPerPosition / blockChunks; ++g) {
      for (size_t p = 0; p < positions; ++p) {
        const auto first =
            codes.begin() + std::ptrdiff_t(p * shape.kvSize() + g * blockChunks * cacheLanes);
        ordered.insert(ordered.end(), first, first + std::ptrdiff_t(blockChunks * cacheLanes));
      }
      const size_t padded =
          (positions + size_t(mp.cacheRound) - 1) / size_t(mp.cacheRound) * size_t(mp.cacheRound);
      for (size_t c = 0; c < (padded - positions) * blockChunks * cacheLanes; ++c)
        ordered.push_back(int32_t(int8_t(rng() & 0xff)));
    }
    return ordered;
  };
  // withNew false: k_new and v_new are the caller's to push (late).
  auto submit = [&](const num::AttentionInputs &in, const num::AttentionScales &scales,
                    bool withNew = true) {
    const std::vector<int32_t> o =
        mp.onePass ? num::attentionTiled(in, shape, scales, size_t(mp.tilePositions))
                   : num::attention(in, shape, scales);
    sideband.push({in.cacheLength, scales});
    pushCodes(q, in.q, lanes);
    if (withNew) {
      pushCodes(kNew, in.kNew, lanes);
      pushCodes(vNew, in.vNew, lanes);
    }
    pushCodes(kCache, cacheOrder(in.kCache), cacheLanes);
    pushCodes(vCache, cacheOrder(in.vCache), cacheLanes);
    const int64_t hi = (int64_t(1) << (outBits - 1)) - 1, lo = -hi - 1;
    for (size_t t = 0; t < o.size() / lanes; ++t) {
      Bits token(lanes * outBits);
      for (unsigned i = 0; i < lanes; ++i) {
        const int32_t v = o[t * lanes + i];
        interiorOutputs += v > lo && v < hi && v != 0;
        saturatedOutputs += v == lo || v == hi;
        token.setSliceU64(i * outBits, outBits,
                          uint64_t(int64_t(v)) & ((uint64_t(1) << outBits) - 1));
      }
      board.expect(token);
    }
  };
  auto makeInvocation = [&](size_t cacheLength, int kind) {
    num::AttentionInputs in;
    in.cacheLength = cacheLength;
    const int codeKind = kind == 3 ? 2 : kind;
    in.q = makeCodes(rng, shape.qSize(), codeKind);
    if (kind == 2)
      std::fill(in.q.begin(), in.q.end(), 0);
    in.kCache = makeCodes(rng, cacheLength * shape.kvSize(), codeKind);
    in.vCache = makeCodes(rng, cacheLength * shape.kvSize(), kind == 1 ? 0 : codeKind);
    in.kNew = makeCodes(rng, shape.kvSize(), codeKind);
    in.vNew = makeCodes(rng, shape.kvSize(), kind == 1 ? 0 : codeKind);
    return in;
  };
  auto randomScales = [&]() {
    num::AttentionScales s;
    s.scoreToLog2 = randomScoreScale(rng);
    // a * M_o: a ~ 2^15 * |v| <= 2^22; from x8 (saturating) to x2^-9.
    s.output = num::fixedScaleFromReal(std::ldexp(1.0, -int(12 + rng() % 13)) *
                                       (1.0 + double(rng() % 1000) / 1000));
    s.outputBits = outBits;
    return s;
  };
  auto idle = [&] {
    for (StreamDriver *d : drivers)
      if (!d->idle())
        return false;
    return board.empty();
  };
  auto drain = [&](uint64_t limit) {
    h.runUntil(idle, limit);
    for (int i = 0; i < 4; ++i)
      h.step();
  };
  const uint64_t cyclesPerInvocation =
      uint64_t(mp.maxContext) * uint64_t(mp.numKvHeads * mp.headDim / mp.cacheLanes) * 2 +
      qTokens * 2 + 400;

  // ---- 1. exact timing with ideal sources and sink --------------------------------------------
  std::vector<int64_t> timingLengths = {0, 1, 2, mp.maxContext - 1};
  for (int i = 0; i < 4; ++i)
    timingLengths.push_back(int64_t(rng() % uint64_t(mp.maxContext)));
  for (int64_t cacheLength : timingLengths) {
    mp.cacheLength = cacheLength;
    const st::model::KernelTiming model = st::model::attentionTiming(mp);
    for (HandshakeLog *log : inLogs)
      log->cycles.clear();
    outLog.cycles.clear();
    submit(makeInvocation(size_t(cacheLength), int(rng() % 4)), randomScales());
    drain(cyclesPerInvocation);
    uint64_t start = UINT64_MAX;
    for (HandshakeLog *log : inLogs)
      if (!log->cycles.empty())
        start = std::min(start, log->cycles.front());
    const int64_t d = int64_t(outLog.cycles.front() - start);
    const int64_t l = int64_t(outLog.cycles.back() - start);
    int64_t maxGap = 1;
    for (size_t k = 1; k < outLog.cycles.size(); ++k)
      maxGap = std::max<int64_t>(maxGap, int64_t(outLog.cycles[k] - outLog.cycles[k - 1]));
    std::printf("  timing cache_len=%lld: D=%lld L=%lld ii=%lld tokens=%zu (model D=%lld L=%lld "
                "ii=%lld tokens=%lld)\n",
                static_cast<long long>(cacheLength), static_cast<long long>(d),
                static_cast<long long>(l), static_cast<long long>(maxGap), outLog.cycles.size(),
                static_cast<long long>(model.firstOutputDelay),
                static_cast<long long>(model.totalLatency), static_cast<long long>(model.ii),
                static_cast<long long>(model.outputTokens));
    if (d != model.firstOutputDelay || l != model.totalLatency || maxGap != model.ii ||
        int64_t(outLog.cycles.size()) != model.outputTokens)
      h.fail("cache_len=" + std::to_string(cacheLength) + ": measured D/L/ii " + std::to_string(d) +
             "/" + std::to_string(l) + "/" + std::to_string(maxGap) + " differ from the model's " +
             std::to_string(model.firstOutputDelay) + "/" + std::to_string(model.totalLatency) +
             "/" + std::to_string(model.ii));
    for (size_t port = 0; port < inLogs.size(); ++port) {
      const std::vector<uint64_t> &taken = inLogs[port]->cycles;
      if (int64_t(taken.size()) != model.inputTokens[port])
        h.fail("cache_len=" + std::to_string(cacheLength) + ": input port " + std::to_string(port) +
               " took " + std::to_string(taken.size()) + " tokens, the model says " +
               std::to_string(model.inputTokens[port]));
      for (size_t k = 0; k < taken.size(); ++k)
        if (int64_t(taken[k] - start) != model.inputRanks[port].at(k))
          h.fail("cache_len=" + std::to_string(cacheLength) + ": input port " +
                 std::to_string(port) + " took token " + std::to_string(k) + " at cycle " +
                 std::to_string(taken[k] - start) + ", the model's rank is " +
                 std::to_string(model.inputRanks[port][k]));
    }
  }

  // Back to back: the next invocation's first handshake comes exactly
  // attentionSchedule().nextInvocation cycles after the first one's.
  for (int64_t cacheLength :
       {int64_t(0), mp.maxContext - 1, int64_t(rng() % uint64_t(mp.maxContext))}) {
    mp.cacheLength = cacheLength;
    const int64_t interval = st::model::attentionSchedule(mp).nextInvocation;
    qLog.cycles.clear();
    submit(makeInvocation(size_t(cacheLength), 1), randomScales());
    submit(makeInvocation(size_t(cacheLength), 0), randomScales());
    drain(2 * cyclesPerInvocation);
    const int64_t measured = int64_t(qLog.cycles.at(qTokens) - qLog.cycles.at(0));
    std::printf("  back to back cache_len=%lld: next invocation after %lld cycles (model %lld)\n",
                static_cast<long long>(cacheLength), static_cast<long long>(measured),
                static_cast<long long>(interval));
    if (measured != interval)
      h.fail("cache_len=" + std::to_string(cacheLength) + ": next invocation after " +
             std::to_string(measured) + " cycles, the model says " + std::to_string(interval));
  }

  // Late k_new / v_new: the walk starts after q and waits for them only at the new position.
  // Each is offered from a random cycle up to 40 past the one the ideal walk needs it in; the
  // first output comes exactly where the model's schedule with their measured last handshakes
  // puts it.
  for (int64_t cacheLength :
       {int64_t(0), int64_t(2), mp.maxContext - 1, int64_t(rng() % uint64_t(mp.maxContext))}) {
    mp.cacheLength = cacheLength;
    mp.kNewLastTaken = mp.vNewLastTaken = -1;
    const st::model::AttentionSchedule ideal = st::model::attentionSchedule(mp);
    // the cache chunks of segment 0 (pad included): its new position comes after them
    const int64_t walk =
        ideal.segmentChunks * ((cacheLength + mp.cacheRound - 1) / mp.cacheRound * mp.cacheRound);
    const int64_t kOffer = int64_t(rng() % uint64_t(ideal.scoreStart.front() + walk + 40));
    const int64_t vOffer = int64_t(rng() % uint64_t(ideal.valueStart.front() + walk + 40));
    for (HandshakeLog *log : inLogs)
      log->cycles.clear();
    outLog.cycles.clear();
    const num::AttentionInputs in = makeInvocation(size_t(cacheLength), int(rng() % 4));
    submit(in, randomScales(), false);
    h.runUntil([&] { return !qLog.cycles.empty(); }, cyclesPerInvocation);
    const uint64_t start = qLog.cycles.front();
    bool kPushed = false, vPushed = false;
    h.runUntil(
        [&] {
          const int64_t now = int64_t(h.cycle() - start);
          if (!kPushed && now >= kOffer)
            pushCodes(kNew, in.kNew, lanes), kPushed = true;
          if (!vPushed && now >= vOffer)
            pushCodes(vNew, in.vNew, lanes), vPushed = true;
          return kPushed && vPushed;
        },
        cyclesPerInvocation);
    drain(cyclesPerInvocation);
    mp.kNewLastTaken = int64_t(kNewLog.cycles.back() - start);
    mp.vNewLastTaken = int64_t(vNewLog.cycles.back() - start);
    const int64_t expected = st::model::attentionSchedule(mp).firstOutputIssue +
                             st::model::AttentionPipeline::kOutputStages;
    const int64_t d = int64_t(outLog.cycles.front() - start);
    std::printf("  late k_new/v_new cache_len=%lld: offered from %lld/%lld, last taken %lld/%lld, "
                "D=%lld (model %lld, ideal %lld)\n",
                static_cast<long long>(cacheLength), static_cast<long long>(kOffer),
                static_cast<long long>(vOffer), static_cast<long long>(mp.kNewLastTaken),
                static_cast<long long>(mp.vNewLastTaken), static_cast<long long>(d),
                static_cast<long long>(expected),
                static_cast<long long>(ideal.firstOutputIssue +
                                       st::model::AttentionPipeline::kOutputStages));
    if (d != expected)
      h.fail("late k_new/v_new, cache_len=" + std::to_string(cacheLength) + ": D " +
             std::to_string(d) + ", the model says " + std::to_string(expected));
  }
  mp.kNewLastTaken = mp.vNewLastTaken = -1;

  // ---- 2. bit-exact against the golden under random traffic ------------------------------------
  const uint64_t invocations = std::max<uint64_t>(options.tokens, 1000);
  int empty = 0, full = 0;
  const size_t phases = sizeof kDefaultPhases / sizeof kDefaultPhases[0];
  for (uint64_t j = 0; j < invocations; ++j) {
    const TrafficPhase &phase = kDefaultPhases[(j * phases) / invocations];
    for (StreamDriver *d : drivers)
      d->setValidProbability(phase.validProbability);
    sink.setReadyProbability(phase.readyProbability);
    size_t cacheLength;
    switch (rng() % 6) {
    case 0:
      cacheLength = 0;
      break;
    case 1:
      cacheLength = size_t(mp.maxContext - 1);
      break;
    default:
      cacheLength = size_t(rng() % uint64_t(mp.maxContext));
    }
    empty += cacheLength == 0;
    full += cacheLength == size_t(mp.maxContext - 1);
    submit(makeInvocation(cacheLength, int(rng() % 4)), randomScales());
    if (j % 4 == 3 || j + 1 == invocations)
      drain(cyclesPerInvocation * 4 * 8);
  }
  for (int i = 0; i < 32; ++i)
    h.step();
  const std::string e = board.finalCheck();
  if (!e.empty())
    h.fail(e);
  std::printf("%llu invocations (%d with cache_len 0, %d with MaxContext-1): %llu output tokens "
              "matched the golden attention, %llu cycles\n",
              static_cast<unsigned long long>(invocations), empty, full,
              static_cast<unsigned long long>(board.matched()),
              static_cast<unsigned long long>(h.cycle()));
  std::printf("expected codes: %llu interior non-zero, %llu saturated\n",
              static_cast<unsigned long long>(interiorOutputs),
              static_cast<unsigned long long>(saturatedOutputs));
  std::printf("%s", watchdog.stallReport().c_str());
}

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
