// Verilator test of st_gemv_engine (the shared GEMV engine, docs/gemv-engine.md):
//  1. timing: with ideal sources (every channel valid in every cycle, x always offered, y always
//     ready) a sequence of back-to-back invocations (reuse and fresh x, x announced by the call
//     before and loaded while it streams, per-channel and grouped layers, N not a multiple of
//     Channels, blocks bound by the output) shows exactly the cycles
//     of st::model::gemvEngineSequenceTiming: every descriptor, x token, block's last weight
//     word and y token, and each y token after the inputs the model says it needs;
//  1b. with every y port blocked, the next call's descriptor and x are taken once the previous
//     call's weights are in (also while the pipeline waits for the output buffer);
//  2. bit-exactness: --tokens random invocations (random K, N, group size, out bits, bias,
//     mantissas, shifts, x reuse, announced next x, x and y port, padding rows with zero or
//     saturating records;
//     one layer in 8 at the code extremes so that outputs saturate, one in 8 with tiny codes so
//     that small shifts and shift 0 occur) under four traffic phases of seeded random
//     backpressure on every channel, x port and y port; every y token is compared with
//     st::numerics::linear of the layer padded to the delivered rows.
// The channel streams come from numerics/gemv_stream (the one implementation of the layout).
#include "config_dispatch.h"
#include "gemv_engine_configs.h"
#include "harness.h"
#include "model/gemv_engine_model.h"
#include "numerics/gemv_stream.h"
#include "numerics/golden_ops.h"
#include "numerics/quantization.h"
#include "scoreboard.h"
#include "stream_driver.h"
#include "stream_sink.h"
#include "watchdog.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

using namespace st::tb;
namespace num = st::numerics;
namespace model = st::model;

namespace {

num::GemvEngineShape shapeOf(const Params &params) {
  num::GemvEngineShape s;
  s.channels = params["Channels"];
  s.kLanes = params["KLanes"];
  s.segLanes = params["SegLanes"];
  s.lanes = params["Lanes"];
  s.weightBits = params["WBits"];
  s.activationBits = params["ABits"];
  s.maxK = params["MaxK"];
  s.outputBits = params["OutBits"];
  s.numX = params["NumX"];
  s.numY = params["NumY"];
  return s;
}

int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// Drives the Channels weight streams flattened onto w_valid_i / w_data_i (channel c at bit c
/// and [512c +: 512]) straight into the model's wide port. Each channel has its own queue and
/// seeded random gaps; like StreamDriver it never drops valid or changes data while a word
/// waits, and drives random data while idle. Logs the cycle of every super-word (channel 0).
template <class Wide> class ChannelDriver : public Component {
public:
  ChannelDriver(unsigned channels, SignalRef valid, SignalRef ready, Wide &data, uint64_t seed)
      : channels_(channels), valid_(std::move(valid)), ready_(std::move(ready)), data_(data),
        rng_(seed), queues_(channels), presenting_(channels, false), written_(channels, false) {}

  void push(unsigned c, const num::StreamWord &w) { queues_[c].push_back(w); }
  void setValidProbability(double p) { p_ = p; }
  bool idle() const {
    for (unsigned c = 0; c < channels_; ++c)
      if (!queues_[c].empty())
        return false;
    return true;
  }
  std::vector<uint64_t> fires; ///< cycles of the super-word handshakes

  void reset() override {
    std::fill(presenting_.begin(), presenting_.end(), false);
    std::fill(written_.begin(), written_.end(), false);
    valid_.write(0);
  }
  void drive(uint64_t) override {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    uint64_t valid = 0;
    for (unsigned c = 0; c < channels_; ++c) {
      if (!presenting_[c] && !queues_[c].empty())
        presenting_[c] = p_ >= 1.0 || u(rng_) < p_;
      uint32_t *limbs = &data_.at(c * 16);
      if (presenting_[c]) {
        valid |= uint64_t(1) << c;
        if (!written_[c]) {
          const num::StreamWord &w = queues_[c].front();
          std::copy(w.begin(), w.end(), limbs);
          written_[c] = true;
        }
      } else {
        for (unsigned i = 0; i < 16; i += 2) {
          const uint64_t r = rng_();
          limbs[i] = uint32_t(r);
          limbs[i + 1] = uint32_t(r >> 32);
        }
      }
    }
    valid_.write(Bits(channels_, valid));
  }
  void sample(uint64_t cycle) override {
    const uint64_t ready = ready_.readU64();
    bool fired = false;
    for (unsigned c = 0; c < channels_; ++c) {
      if (!((ready >> c) & 1))
        continue;
      if (!presenting_[c]) {
        error_ = "w_ready_o[" + std::to_string(c) + "] high while channel " + std::to_string(c) +
                 " is not valid";
        return;
      }
      queues_[c].pop_front();
      presenting_[c] = false;
      written_[c] = false;
      fired = true;
    }
    if (fired) {
      if (ready != (channels_ == 64 ? ~uint64_t(0) : (uint64_t(1) << channels_) - 1))
        error_ = "w_ready_o rose for some channels only";
      fires.push_back(cycle);
    }
  }
  std::string error() const override { return error_; }

private:
  unsigned channels_;
  SignalRef valid_, ready_;
  Wide &data_;
  std::mt19937_64 rng_;
  double p_ = 1.0;
  std::vector<std::deque<num::StreamWord>> queues_;
  std::vector<bool> presenting_, written_;
  std::string error_;
};

/// Records the cycle of every handshake on a group of streams (any of them).
class HandshakeLog : public Component {
public:
  explicit HandshakeLog(std::vector<StreamPins> pins) : pins_(std::move(pins)) {}
  void sample(uint64_t cycle) override {
    for (const StreamPins &p : pins_)
      if (p.valid.readBool() && p.ready.readBool())
        cycles.push_back(cycle);
  }
  std::vector<uint64_t> cycles;

private:
  std::vector<StreamPins> pins_;
};

enum class LayerKind { Random, Extreme, Tiny };

/// Group sizes a K allows on this shape (0 = per channel; g = K is per channel too).
std::vector<int64_t> groupSizesFor(const num::GemvEngineShape &s, int64_t k) {
  std::vector<int64_t> out{0};
  for (int64_t g = s.segLanes; g < k; g += s.segLanes)
    if ((g % s.kLanes == 0 || s.kLanes % g == 0) && k % g == 0)
      out.push_back(g);
  return out;
}

/// One invocation: the layer, the caller's choices, x, and the expected delivered rows.
struct Call {
  num::QuantizedLinear layer;
  num::GemvInvocation invocation;
  num::GemvDescriptor descriptor;
  std::vector<int32_t> x;
  std::vector<int32_t> y; ///< N delivered rows
  LayerKind kind = LayerKind::Random;
};

/// What a random call may be: K, N (layer rows), g; the rest is drawn.
struct CallShape {
  int64_t k = 0, n = 0, g = 0;
  bool reuse = false;
};

std::vector<int32_t> randomX(const num::GemvEngineShape &s, int64_t k, LayerKind kind,
                             std::mt19937_64 &rng) {
  const int64_t lo = num::minSigned(unsigned(s.activationBits));
  const int64_t hi = num::maxSigned(unsigned(s.activationBits));
  std::vector<int32_t> x(static_cast<size_t>(k));
  const int sign = int(uniform(rng, 0, 2));
  for (auto &v : x) {
    if (kind == LayerKind::Random)
      v = int32_t(uniform(rng, lo, hi));
    else if (kind == LayerKind::Tiny)
      v = int32_t(uniform(rng, -1, 1));
    else {
      const bool negative = sign == 1 || (sign == 2 && uniform(rng, 0, 1));
      v = int32_t(negative ? (uniform(rng, 0, 3) == 0 ? lo : -hi) : hi);
    }
  }
  return x;
}

/// A random layer in hardware form with output multipliers chosen against x so that most rows
/// land in range, some saturate; extreme layers saturate; tiny ones use shifts 0..3.
num::QuantizedLinear randomLayer(const num::GemvEngineShape &s, const CallShape &cs,
                                 int64_t outBits, LayerKind kind, const std::vector<int32_t> &x,
                                 std::mt19937_64 &rng) {
  num::QuantizedLinear layer;
  layer.rows = size_t(cs.n);
  layer.cols = size_t(cs.k);
  layer.weightBits = unsigned(s.weightBits);
  layer.groupSize = size_t(cs.g == 0 ? cs.k : cs.g);
  layer.activationBits = unsigned(s.activationBits);
  layer.outputBits = unsigned(outBits);
  const int64_t wMin = num::minSigned(layer.weightBits), wMax = num::maxSigned(layer.weightBits);
  std::vector<int32_t> codes(size_t(cs.n * cs.k));
  const int sign = int(uniform(rng, 0, 2));
  for (auto &c : codes) {
    if (kind == LayerKind::Random)
      c = int32_t(uniform(rng, wMin, wMax));
    else if (kind == LayerKind::Tiny)
      c = int32_t(uniform(rng, -1, 1));
    else {
      const bool negative = sign == 1 || (sign == 2 && uniform(rng, 0, 1));
      c = int32_t(negative ? (uniform(rng, 0, 3) == 0 ? wMin : -wMax) : wMax);
    }
  }
  if (layer.weightBits == 4)
    layer.packedWeights = num::packInt4(codes);
  else
    for (int32_t c : codes)
      layer.packedWeights.push_back(uint8_t(c & 0xff));
  for (size_t i = 0; i < layer.rows * layer.groupsPerRow(); ++i)
    layer.groupScales.push_back(cs.g == 0 ? 1
                                : kind == LayerKind::Extreme
                                    ? uint16_t(uniform(rng, 0, 1) ? 0xffff : 0x8000)
                                : kind == LayerKind::Tiny ? uint16_t(uniform(rng, 0, 3))
                                                          : uint16_t(uniform(rng, 0, 0xffff)));
  if (uniform(rng, 0, 1)) {
    for (size_t r = 0; r < layer.rows; ++r) {
      const int bits = int(uniform(rng, 0, 47));
      int64_t b = uniform(rng, -(int64_t(1) << bits), (int64_t(1) << bits) - 1);
      if (kind == LayerKind::Extreme && r % 3 == 0)
        b = r % 2 ? (int64_t(1) << 47) - 1 : -(int64_t(1) << 47);
      if (kind == LayerKind::Tiny)
        b = uniform(rng, -4, 4);
      layer.bias.push_back(b);
    }
  }
  layer.outputScales.assign(layer.rows, num::FixedScale{});
  const std::vector<int64_t> acc = num::linearAccumulators(x, layer);
  for (size_t r = 0; r < layer.rows; ++r) {
    num::FixedScale m;
    m.mantissa = uint32_t(uniform(rng, 1 << 23, (1 << 24) - 1));
    const int accBits =
        acc[r] == 0 ? 0 : int(num::leadingOnePosition(uint64_t(std::llabs(acc[r])))) + 1;
    int shift = 24 + accBits - int(outBits) + int(uniform(rng, -1, 5));
    if (kind == LayerKind::Extreme)
      shift = int(uniform(rng, 12, 24));
    if (kind == LayerKind::Tiny && r % 4 == 0) {
      m.mantissa = uint32_t(uniform(rng, 0, 300));
      shift = int(uniform(rng, 0, 3));
    }
    // |A| < 2^49 here, so A * mantissa < 2^73: a shift >= 12 keeps round(A * M) in 64 bits.
    const int minShift = kind == LayerKind::Tiny ? 0 : 12;
    m.shift = uint8_t(std::clamp(shift, minShift, 63));
    layer.outputScales[r] = m;
  }
  return layer;
}

/// numerics::linear of the layer padded to the delivered rows: padding rows have zero codes and
/// the record the invocation asks for (zero, or bias -2^47 with multiplier 1: the most negative
/// code).
std::vector<int32_t> expectedRows(const Call &c) {
  num::QuantizedLinear padded = c.layer;
  const size_t rows = size_t(c.descriptor.rows);
  if (rows > padded.rows) {
    const size_t extra = rows - padded.rows;
    const bool saturate = c.invocation.padding == num::GemvPaddingRecord::Saturate;
    padded.packedWeights.resize(rows * padded.cols * padded.weightBits / 8, 0);
    padded.groupScales.resize(rows * padded.groupsPerRow(), 0);
    padded.bias.resize(padded.rows, 0); // none: zero
    padded.bias.insert(padded.bias.end(), extra, saturate ? -(int64_t(1) << 47) : 0);
    padded.outputScales.insert(padded.outputScales.end(), extra,
                               num::FixedScale{saturate ? 1u : 0u, 0});
    padded.rows = rows;
  }
  return num::linear(c.x, padded);
}

/// A random call on this shape: fresh x (or the previous call's when reusing), layer, ports.
Call makeCall(const num::GemvEngineShape &s, const CallShape &cs, LayerKind kind,
              const std::vector<int32_t> &previousX, std::mt19937_64 &rng) {
  Call c;
  c.kind = kind;
  c.x = cs.reuse ? previousX : randomX(s, cs.k, kind, rng);
  const int64_t outBits =
      uniform(rng, 0, 3) == 0 ? s.outputBits : std::min<int64_t>(s.outputBits, uniform(rng, 2, 16));
  c.layer = randomLayer(s, cs, outBits, kind, c.x, rng);
  c.invocation.xPort = uniform(rng, 0, s.numX - 1);
  c.invocation.reuseX = cs.reuse;
  c.invocation.yPort = uniform(rng, 0, s.numY - 1);
  c.invocation.padding =
      uniform(rng, 0, 1) ? num::GemvPaddingRecord::Saturate : num::GemvPaddingRecord::Zero;
  c.invocation.deliverPaddedRows = cs.n % s.lanes != 0 || uniform(rng, 0, 1);
  c.descriptor = num::gemvDescriptorFor(c.layer, s, c.invocation);
  c.y = expectedRows(c);
  return c;
}

/// A random K, N, g (N sometimes not a multiple of Channels or Lanes; K sometimes the shortest,
/// so that blocks are bound by the output).
CallShape randomShape(const num::GemvEngineShape &s, std::mt19937_64 &rng, int64_t previousK) {
  CallShape cs;
  cs.reuse = previousK > 0 && uniform(rng, 0, 3) == 0;
  cs.k = cs.reuse ? previousK
                  : s.kLanes * (uniform(rng, 0, 4) == 0 ? 1 : uniform(rng, 1, s.maxK / s.kLanes));
  cs.n = uniform(rng, 0, 2) == 0 ? uniform(rng, 1, s.channels)
                                 : uniform(rng, 1, std::min<int64_t>(4 * s.channels, 200));
  const std::vector<int64_t> gs = groupSizesFor(s, cs.k);
  cs.g = gs[size_t(uniform(rng, 0, int64_t(gs.size()) - 1))];
  return cs;
}

/// Announces the next call's x in each call's descriptor (the engine then loads it while the
/// call streams) where the next call loads a new x, in about three calls of four; never in the
/// last call (nothing follows it in its batch).
void announceNextX(const num::GemvEngineShape &s, std::vector<Call> &calls, std::mt19937_64 &rng) {
  for (size_t i = 0; i + 1 < calls.size(); ++i) {
    const Call &next = calls[i + 1];
    if (next.invocation.reuseX || uniform(rng, 0, 3) == 0)
      continue;
    calls[i].invocation.nextX = num::GemvNextX{next.invocation.xPort, next.descriptor.k};
    calls[i].descriptor = num::gemvDescriptorFor(calls[i].layer, s, calls[i].invocation);
  }
}

LayerKind kindOf(uint64_t index) {
  return index % 8 == 3 ? LayerKind::Extreme : index % 8 == 6 ? LayerKind::Tiny : LayerKind::Random;
}

struct TrafficPhase {
  const char *name;
  double wValid, xValid, yReady;
};

} // namespace

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  const num::GemvEngineShape s = shapeOf(params);
  const unsigned xBits = unsigned(s.lanes * s.activationBits);
  const unsigned yBits = unsigned(s.lanes * s.outputBits);
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const uint64_t seed = options.seed;
  ChannelDriver<decltype(m.w_data_i)> wDriver(
      unsigned(s.channels), SignalRef(m.w_valid_i, unsigned(s.channels)),
      SignalRef(m.w_ready_o, unsigned(s.channels)), m.w_data_i, seed * 7 + 2);
  const StreamPins xFlat{SignalRef(m.x_valid_i, unsigned(s.numX)),
                         SignalRef(m.x_ready_o, unsigned(s.numX)),
                         SignalRef(m.x_data_i, unsigned(s.numX) * xBits)};
  const StreamPins yFlat{SignalRef(m.valid_o, unsigned(s.numY)),
                         SignalRef(m.ready_i, unsigned(s.numY)),
                         SignalRef(m.data_o, unsigned(s.numY) * yBits)};
  std::vector<StreamPins> xPins, yPins;
  std::vector<std::unique_ptr<StreamDriver>> xDrivers;
  std::vector<std::unique_ptr<StreamSink>> sinks;
  std::vector<std::unique_ptr<Scoreboard>> boards;
  std::vector<std::deque<std::string>> labels(size_t(s.numY));
  std::vector<std::string> current(size_t(s.numY));
  Watchdog watchdog(options.watchdogCycles);
  for (unsigned p = 0; p < unsigned(s.numX); ++p) {
    xPins.push_back(
        {xFlat.valid.slice(p, 1), xFlat.ready.slice(p, 1), xFlat.data.slice(p * xBits, xBits)});
    xDrivers.push_back(
        std::make_unique<StreamDriver>("x" + std::to_string(p), xPins.back(), seed * 3 + 1 + p));
    watchdog.watch("x" + std::to_string(p), xPins.back());
  }
  for (unsigned p = 0; p < unsigned(s.numY); ++p) {
    yPins.push_back(
        {yFlat.valid.slice(p, 1), yFlat.ready.slice(p, 1), yFlat.data.slice(p * yBits, yBits)});
    const std::string name = "y" + std::to_string(p);
    sinks.push_back(std::make_unique<StreamSink>(name, yPins.back(), seed * 5 + 3 + p));
    boards.push_back(std::make_unique<Scoreboard>(name));
    Scoreboard *board = boards.back().get();
    sinks.back()->onToken([&, board, p](const Bits &t) {
      current[p] = labels[p].empty() ? "(none)" : labels[p].front();
      if (!labels[p].empty())
        labels[p].pop_front();
      board->observe(t);
    });
    watchdog.watch(sinks.back()->checker());
  }
  watchdog.watch("w0",
                 StreamPins{SignalRef(m.w_valid_i, unsigned(s.channels)).slice(0, 1),
                            SignalRef(m.w_ready_o, unsigned(s.channels)).slice(0, 1), SignalRef()});
  HandshakeLog xLog(xPins), yLog(yPins);
  h.add(wDriver);
  for (auto &d : xDrivers)
    h.add(*d);
  for (auto &k : sinks)
    h.add(*k);
  for (auto &b : boards)
    h.add(*b);
  h.add(watchdog);
  h.add(xLog);
  h.add(yLog);
  h.reset();
  std::mt19937_64 rng(seed);

  uint64_t calls = 0, tokens = 0;
  uint64_t saturatedHigh = 0, saturatedLow = 0, inRange = 0, reused = 0, paddedCalls = 0;
  uint64_t announced = 0;
  uint64_t groupedCalls = 0, shiftZeroRows = 0;
  std::vector<int32_t> previousX;
  int64_t previousK = 0;
  // Queues one call: every channel's words, x on its port (unless reused), expected y tokens.
  auto enqueue = [&](const Call &c) {
    const auto words = num::gemvChannelWords(c.layer, s, c.invocation);
    for (unsigned ch = 0; ch < unsigned(s.channels); ++ch)
      for (const num::StreamWord &w : words[ch])
        wDriver.push(ch, w);
    if (!c.invocation.reuseX)
      for (int64_t t = 0; t < c.descriptor.k / s.lanes; ++t) {
        Bits token(xBits);
        for (int64_t i = 0; i < s.lanes; ++i)
          token.setSliceU64(unsigned(i * s.activationBits), unsigned(s.activationBits),
                            uint64_t(int64_t(c.x[size_t(t * s.lanes + i)])));
        xDrivers[size_t(c.invocation.xPort)]->push(token);
      }
    const int64_t outMax = num::maxSigned(c.layer.outputBits);
    const int64_t outMin = num::minSigned(c.layer.outputBits);
    for (int64_t b = 0; b < c.descriptor.blocks; ++b) {
      const int64_t rows = std::min<int64_t>(s.channels, c.descriptor.rows - b * s.channels);
      for (int64_t t = 0; t < rows / s.lanes; ++t) {
        Bits token(yBits);
        for (int64_t i = 0; i < s.lanes; ++i) {
          const int64_t row = b * s.channels + t * s.lanes + i;
          const int32_t y = c.y[size_t(row)];
          token.setSliceU64(unsigned(i * s.outputBits), unsigned(s.outputBits),
                            uint64_t(int64_t(y)));
          if (row < int64_t(c.layer.rows)) {
            saturatedHigh += y == outMax;
            saturatedLow += y == outMin;
            inRange += y != outMax && y != outMin;
            shiftZeroRows += c.layer.outputScales[size_t(row)].shift == 0;
          }
        }
        boards[size_t(c.invocation.yPort)]->expect(token);
        labels[size_t(c.invocation.yPort)].push_back(
            "call " + std::to_string(calls) + " (K " + std::to_string(c.descriptor.k) + ", N " +
            std::to_string(c.layer.rows) + " delivered " + std::to_string(c.descriptor.rows) +
            ", g " + std::to_string(c.descriptor.groupSize) + ", out bits " +
            std::to_string(c.descriptor.outputBits) + (c.invocation.reuseX ? ", reuse x" : "") +
            ") block " + std::to_string(b) + " token " + std::to_string(t) + " (rows " +
            std::to_string(b * s.channels + t * s.lanes) + ".." +
            std::to_string(b * s.channels + t * s.lanes + s.lanes - 1) + ")");
        ++tokens;
      }
    }
    reused += c.invocation.reuseX;
    announced += c.invocation.nextX.has_value();
    paddedCalls += c.descriptor.rows > int64_t(c.layer.rows) || int64_t(c.layer.rows) % s.channels;
    groupedCalls += c.descriptor.groupSize != 0;
    previousX = c.x;
    previousK = c.descriptor.k;
    ++calls;
  };
  auto allDone = [&] {
    for (auto &b : boards)
      if (!b->empty())
        return false;
    return wDriver.idle();
  };
  auto run = [&](uint64_t limit) {
    try {
      h.runUntil(allDone, limit);
    } catch (const TestFailure &e) {
      std::string where;
      for (size_t p = 0; p < boards.size(); ++p)
        if (!boards[p]->error().empty())
          where = " [y" + std::to_string(p) + ": " + current[p] + "]";
      throw TestFailure(e.what() + where);
    }
  };

  // ---- 1. exact timing under ideal sources ------------------------------------------------------
  std::vector<Call> timed;
  {
    // Hand-picked first: the shortest K (blocks bound by the output), a reused x, one call with
    // a single block (D P W back to back), then random calls.
    const std::vector<CallShape> fixed = {
        {s.kLanes, 2 * s.channels + s.lanes, 0, false},
        {s.kLanes, s.channels, 0, true},
        {s.kLanes, s.lanes, 0, true},
        {s.kLanes, s.lanes, 0, true},
        {s.maxK, 3 * s.channels - 1, groupSizesFor(s, s.maxK).back(), false},
        {s.maxK, 13 * s.channels, groupSizesFor(s, s.maxK)[1], true},
    };
    std::vector<int32_t> x = previousX;
    for (const CallShape &cs : fixed) {
      timed.push_back(makeCall(s, cs, LayerKind::Random, x, rng));
      x = timed.back().x;
    }
    for (int i = 0; i < 18; ++i) {
      timed.push_back(makeCall(s, randomShape(s, rng, timed.back().descriptor.k),
                               kindOf(timed.size()), x, rng));
      x = timed.back().x;
    }
    announceNextX(s, timed, rng);
    for (const Call &c : timed)
      enqueue(c);
  }
  run(2000000);
  for (int i = 0; i < 32; ++i)
    h.step();
  std::vector<model::GemvEngineCall> modelCalls;
  for (const Call &c : timed)
    modelCalls.push_back({c.descriptor.k, c.descriptor.rows, c.descriptor.groupSize,
                          c.invocation.reuseX, c.invocation.nextX.has_value()});
  const std::vector<model::GemvEngineCallTiming> expected =
      model::gemvEngineSequenceTiming(s, modelCalls);
  size_t wAt = 0, xAt = 0, yAt = 0;
  int64_t timedCycles = 0, timedWords = 0;
  for (size_t i = 0; i < timed.size(); ++i) {
    const model::GemvEngineCallTiming &e = expected[i];
    if (wAt + size_t(e.superWords) > wDriver.fires.size() ||
        xAt + size_t(e.xTokens) > xLog.cycles.size() || yAt + e.outputs.size() > yLog.cycles.size())
      h.fail("call " + std::to_string(i) + ": fewer handshakes than the model's");
    const int64_t d = int64_t(wDriver.fires[wAt]);
    if (i > 0 && d != int64_t(wDriver.fires[wAt - 1]) + 1)
      h.fail("call " + std::to_string(i) + ": descriptor " +
             std::to_string(d - int64_t(wDriver.fires[wAt - 1])) +
             " cycles after the previous last word; model 1");
    auto check = [&](const char *what, int64_t index, int64_t measured, int64_t modelled) {
      if (measured != modelled)
        h.fail("call " + std::to_string(i) + ": " + what + " " + std::to_string(index) + " at " +
               std::to_string(measured) + " cycles after the descriptor; model " +
               std::to_string(modelled));
    };
    for (int64_t t = 0; t < e.xTokens; ++t)
      check("x token", t, int64_t(xLog.cycles[xAt + size_t(t)]) - d, e.xFirst + t);
    for (size_t b = 0; b < e.blockLastWord.size(); ++b) {
      const size_t word = size_t(e.blockSuperWords[b]) - 1; // D is super-word 0
      check("last weight word of block", int64_t(b), int64_t(wDriver.fires[wAt + word]) - d,
            e.blockLastWord[b]);
    }
    for (size_t k = 0; k < e.outputs.size(); ++k) {
      const uint64_t at = yLog.cycles[yAt + k];
      check("y token", int64_t(k), int64_t(at) - d, e.outputs[k]);
      // The inputs the model says token k needs came before it.
      const uint64_t lastWord =
          wDriver.fires[wAt + size_t(e.blockSuperWords[size_t(e.outputBlock[k])]) - 1];
      if (lastWord >= at || (e.xTokens > 0 && xLog.cycles[xAt + size_t(e.xTokens) - 1] >= at))
        h.fail("call " + std::to_string(i) + ": y token " + std::to_string(k) +
               " before the inputs the model says it needs");
    }
    timedCycles =
        int64_t(wDriver.fires[wAt + size_t(e.superWords) - 1]) + 1 - int64_t(wDriver.fires[0]);
    timedWords += e.superWords;
    std::printf("call %2zu: K %4lld N %4lld g %4lld%s%s: D at %6lld, %lld super-words, %lld x "
                "tokens from %+lld, first y +%lld, last y +%lld, last word +%lld (model "
                "equal)\n",
                i, (long long)timed[i].descriptor.k, (long long)timed[i].descriptor.rows,
                (long long)timed[i].descriptor.groupSize,
                timed[i].invocation.reuseX ? " reuse" : "      ",
                timed[i].invocation.nextX ? " announces" : "          ", (long long)d,
                (long long)e.superWords, (long long)e.xTokens, (long long)e.xFirst,
                (long long)e.outputs.front(), (long long)e.outputs.back(), (long long)e.lastWord());
    wAt += size_t(e.superWords);
    xAt += size_t(e.xTokens);
    yAt += e.outputs.size();
  }
  if (wAt != wDriver.fires.size() || xAt != xLog.cycles.size() || yAt != yLog.cycles.size())
    h.fail("more handshakes than the model's");
  std::printf("timing: %zu calls, %lld super-words in %lld cycles, every handshake at the "
              "model's cycle\n",
              timed.size(), (long long)timedWords, (long long)timedCycles);

  // ---- 1b. the next call's descriptor and x load while the outputs cannot leave -----------------
  {
    // The y ports stay blocked until the next call's x is all taken (as when y computes x through
    // a kernel with a short FIFO). Once the first call's weight words are all in, the engine must
    // take the next descriptor and x while the first call's blocks wait in the output stages,
    // also while the pipeline stops with a finished block waiting for the output buffer. First
    // calls of 1..4 words per row and 1..8 blocks put that stop before, at and after the next
    // descriptor; those whose weights cannot all go in while y is blocked are only drained.
    int64_t checked = 0, shapes = 0;
    for (int64_t words = 1; words <= std::min<int64_t>(4, s.maxK / s.kLanes); ++words)
      for (int64_t blocks = 1; blocks <= 8; ++blocks) {
        for (auto &k : sinks)
          k->setReadyProbability(0.0);
        const size_t yBefore = yLog.cycles.size(), xBefore = xLog.cycles.size();
        const size_t wBefore = wDriver.fires.size();
        const Call first = makeCall(s, {words * s.kLanes, blocks * s.channels, 0, false},
                                    LayerKind::Random, previousX, rng);
        enqueue(first);
        const Call next =
            makeCall(s, {s.kLanes, s.lanes, 0, false}, LayerKind::Random, previousX, rng);
        enqueue(next);
        const size_t wFirst =
            wBefore +
            size_t(num::gemvWordsPerChannel(first.descriptor.k, first.descriptor.rows, 0, s));
        for (int i = 0; i < 400 && wDriver.fires.size() < wFirst; ++i)
          h.step();
        ++shapes;
        if (wDriver.fires.size() >= wFirst) {
          const size_t xWanted =
              xBefore + size_t(first.descriptor.k / s.lanes + next.descriptor.k / s.lanes);
          for (int i = 0; i < 400 && xLog.cycles.size() < xWanted; ++i)
            h.step();
          if (xLog.cycles.size() < xWanted)
            h.fail("drain: the next call's x was not taken while y was blocked (first call: " +
                   std::to_string(words) + " words per row, " + std::to_string(blocks) +
                   " blocks)");
          if (yLog.cycles.size() != yBefore)
            h.fail("a y token left while no y port was ready");
          ++checked;
        }
        for (auto &k : sinks)
          k->setReadyProbability(1.0);
        run(100000);
      }
    std::printf(
        "drain: in %lld of %lld shapes the first call's weights went in with y blocked, and "
        "the next call's descriptor and x were taken\n",
        (long long)checked, (long long)shapes);
  }

  // ---- 2. random calls under random backpressure ------------------------------------------------
  const TrafficPhase phases[] = {{"free flow", 1.0, 1.0, 1.0},
                                 {"slow consumer", 1.0, 1.0, 0.15},
                                 {"slow producers", 0.5, 0.3, 1.0},
                                 {"random", 0.7, 0.6, 0.5}};
  const uint64_t total = options.tokens;
  for (size_t ph = 0; ph < 4; ++ph) {
    wDriver.setValidProbability(phases[ph].wValid);
    for (auto &d : xDrivers)
      d->setValidProbability(phases[ph].xValid);
    for (auto &k : sinks)
      k->setReadyProbability(phases[ph].yReady);
    const uint64_t n = total / 4 + (ph == 3 ? total % 4 : 0);
    const uint64_t start = h.cycle();
    std::vector<Call> batch;
    std::vector<int32_t> x = previousX;
    int64_t k = previousK;
    for (uint64_t i = 0; i < n; ++i) {
      batch.push_back(makeCall(s, randomShape(s, rng, k), kindOf(calls + i), x, rng));
      x = batch.back().x;
      k = batch.back().descriptor.k;
    }
    announceNextX(s, batch, rng);
    for (const Call &c : batch)
      enqueue(c);
    run(200000000);
    std::printf("phase '%s': %llu calls checked in %llu cycles\n", phases[ph].name,
                (unsigned long long)n, (unsigned long long)(h.cycle() - start));
  }
  for (int i = 0; i < 64; ++i)
    h.step();
  for (auto &b : boards) {
    const std::string e = b->finalCheck();
    if (!e.empty())
      h.fail(e);
  }
  std::printf("outputs: %llu saturated high, %llu saturated low, %llu in range; %llu rows with "
              "shift 0; calls: %llu grouped, %llu reusing x, %llu announcing the next x, %llu "
              "with padding rows\n",
              (unsigned long long)saturatedHigh, (unsigned long long)saturatedLow,
              (unsigned long long)inRange, (unsigned long long)shiftZeroRows,
              (unsigned long long)groupedCalls, (unsigned long long)reused,
              (unsigned long long)announced, (unsigned long long)paddedCalls);
  std::printf("%llu calls (%llu y tokens) bit-exact against numerics::linear, %llu cycles\n",
              (unsigned long long)calls, (unsigned long long)tokens, (unsigned long long)h.cycle());
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
