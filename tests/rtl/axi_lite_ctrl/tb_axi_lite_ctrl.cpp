// Verilator test of st_axi_lite_ctrl, the Vitis ap_ctrl_hs control slave. The host model
// (AxiLiteMaster) drives s_axi_control with random timing; a software kernel answers ap_start
// with ap_ready/ap_done after random latencies; a C++ model of the register file checks every
// read's data and, every cycle, ap_start_o, interrupt and args_o. Directed phases then assert
// what a host relies on: argument registers (full and partial WSTRB writes) read back and reach
// args_o; start -> ready -> done -> idle with clear-on-read ap_done/ap_ready; auto_restart;
// GIE/IER/ISR with toggle-on-write; and a random mix of --tokens register transactions.
#include <cstdio>
#include <deque>
#include <vector>

#include "axi_lite_ctrl_configs.h"
#include "axi_lite_master.h"
#include "config_dispatch.h"
#include "harness.h"

using namespace st::tb;

namespace {

constexpr uint64_t kGie = 0x04, kIer = 0x08, kIsr = 0x0C, kFirstArg = 0x10;

/// The argument layout of the register map (the rule st_axi_lite_ctrl documents): argument i at
/// byte offset argOffset(i); 64-bit arguments take 12 bytes, 32-bit ones 8.
struct ArgLayout {
  unsigned numArgs;
  uint64_t is64; ///< ArgIs64 | ArgIs64Hi << 32
  bool wide(unsigned i) const { return (is64 >> i) & 1u; }
  uint64_t offset(unsigned i) const {
    uint64_t off = kFirstArg;
    for (unsigned j = 0; j < i; ++j)
      off += wide(j) ? 12 : 8;
    return off;
  }
  uint64_t end() const { return offset(numArgs); }
  /// Words of argument i that hold data (1 or 2); the next one is reserved.
  unsigned dataWords(unsigned i) const { return wide(i) ? 2 : 1; }
};

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

/// The pins of the kernel side of the control slave.
struct KernelPins {
  SignalRef apStart, apDone, apIdle, apReady, args;
};

/// A software kernel speaking ap_ctrl_hs: idle until it samples ap_start, then after a random
/// number of cycles pulses ap_ready and, the same cycle or later, ap_done, and goes idle again.
/// Checks the slave's side: ap_start must stay high until the kernel's ap_ready.
class SoftKernel : public Component {
public:
  SoftKernel(KernelPins pins, uint64_t seed) : pins_(std::move(pins)), rng_(seed) {}

  /// ap_ready comes readyMin..readyMax cycles into a run, ap_done 0..doneExtraMax after it.
  void setLatency(unsigned readyMin, unsigned readyMax, unsigned doneExtraMax) {
    readyMin_ = readyMin;
    readyMax_ = readyMax;
    doneExtraMax_ = doneExtraMax;
  }
  bool busy() const { return busy_; }
  uint64_t runs() const { return runs_; }       ///< completed runs (ap_done pulses)
  uint64_t readies() const { return readies_; } ///< ap_ready pulses
  const Bits &argsAtLastStart() const { return argsAtStart_; }

  void reset() override {
    busy_ = false;
    drive(0);
  }
  void drive(uint64_t) override {
    pins_.apIdle.write(busy_ ? 0 : 1);
    pins_.apReady.write(busy_ && t_ == readyAt_ ? 1 : 0);
    pins_.apDone.write(busy_ && t_ == doneAt_ ? 1 : 0);
  }
  void sample(uint64_t) override {
    const bool start = pins_.apStart.readBool();
    if (!busy_) {
      if (start) {
        busy_ = true;
        t_ = 0;
        readyAt_ = std::uniform_int_distribution<unsigned>(readyMin_, readyMax_)(rng_);
        doneAt_ = readyAt_ + std::uniform_int_distribution<unsigned>(0, doneExtraMax_)(rng_);
        argsAtStart_ = pins_.args.read();
      }
      return;
    }
    if (t_ <= readyAt_ && !start && error_.empty())
      error_ = "ap_start dropped " + std::to_string(t_) + " cycles into a run, before ap_ready";
    if (t_ == readyAt_)
      ++readies_;
    if (t_ == doneAt_) {
      busy_ = false;
      ++runs_;
    }
    ++t_;
  }
  std::string error() const override { return error_; }

private:
  KernelPins pins_;
  std::mt19937_64 rng_;
  unsigned readyMin_ = 0, readyMax_ = 12, doneExtraMax_ = 6;
  bool busy_ = false;
  unsigned t_ = 0, readyAt_ = 0, doneAt_ = 0;
  uint64_t runs_ = 0, readies_ = 0;
  Bits argsAtStart_;
  std::string error_;
};

/// The reference model of the register file. It watches the AXI4-Lite and kernel pins, applies
/// each write at the edge where the later of AW and W is accepted, predicts each read's data at
/// its AR handshake and compares it at the R handshake, and compares ap_start_o, interrupt and
/// args_o with its own state every cycle.
class ControlRegisterModel : public Component {
public:
  ControlRegisterModel(AxiLitePins axi, KernelPins kernel, SignalRef interrupt, ArgLayout layout,
                       unsigned addrWidth)
      : axi_(std::move(axi)), kernel_(std::move(kernel)), interrupt_(std::move(interrupt)),
        layout_(layout), addrMask_((uint64_t{1} << addrWidth) - 1), args_(layout.numArgs, 0) {}

  // The state a host would see.
  bool apStart() const { return apStart_; }
  bool interruptLine() const { return gie_ && (ier_ & isr_) != 0; }
  uint64_t arg(unsigned i) const { return args_[i]; }
  uint64_t readsChecked() const { return readsChecked_; }
  uint64_t writesApplied() const { return writesApplied_; }

  void reset() override {
    apStart_ = apDone_ = apReady_ = autoRestart_ = gie_ = false;
    ier_ = isr_ = 0;
    std::fill(args_.begin(), args_.end(), 0);
    awPending_ = wPending_ = false;
    expectedReads_.clear();
  }

  void sample(uint64_t) override {
    if (!error_.empty())
      return;
    compareOutputs();

    const bool doneIn = kernel_.apDone.readBool();
    const bool readyIn = kernel_.apReady.readBool();
    const bool idleIn = kernel_.apIdle.readBool();

    // Read data handshake: compare with the prediction made at its AR handshake.
    if (axi_.rvalid.readBool() && axi_.rready.readBool()) {
      const uint32_t actual = static_cast<uint32_t>(axi_.rdata.readU64());
      if (expectedReads_.empty()) {
        error_ = "read data with no read outstanding";
        return;
      }
      const ExpectedRead e = expectedReads_.front();
      expectedReads_.pop_front();
      if (actual != e.data) {
        error_ = "read #" + std::to_string(readsChecked_) + " of " + hex(e.addr) + ": expected " +
                 hex(e.data) + ", actual " + hex(actual);
        return;
      }
      ++readsChecked_;
    }

    // Read address handshake: the read samples the registers as they are before this edge.
    bool readControl = false;
    if (axi_.arvalid.readBool() && axi_.arready.readBool()) {
      const uint64_t addr = axi_.araddr.readU64() & addrMask_;
      expectedReads_.push_back({addr, readValue(addr, idleIn)});
      readControl = (addr & ~uint64_t{3}) == AxiLiteMaster::kControl;
    }

    // Write handshakes: the write applies at the edge where both AW and W are in.
    if (axi_.awvalid.readBool() && axi_.awready.readBool()) {
      awPending_ = true;
      awAddr_ = axi_.awaddr.readU64() & addrMask_;
    }
    if (axi_.wvalid.readBool() && axi_.wready.readBool()) {
      wPending_ = true;
      wData_ = static_cast<uint32_t>(axi_.wdata.readU64());
      wStrb_ = static_cast<unsigned>(axi_.wstrb.readU64());
    }
    const bool writing = awPending_ && wPending_;
    const uint64_t word = awAddr_ & ~uint64_t{3};
    const bool lowByte = (wStrb_ & 1u) != 0;
    auto writes = [&](uint64_t reg) { return writing && word == reg && lowByte; };

    // Next state, register by register.
    const bool nextStart = writes(AxiLiteMaster::kControl) && (wData_ & 1u)
                               ? true
                               : (readyIn ? autoRestart_ : apStart_);
    const bool nextDone = doneIn ? true : (readControl ? false : apDone_);
    const bool nextReady = readyIn ? true : (readControl ? false : apReady_);
    if (writes(AxiLiteMaster::kControl))
      autoRestart_ = (wData_ >> 7) & 1u;
    if (writes(kGie))
      gie_ = wData_ & 1u;
    unsigned nextIsr = isr_;
    const bool event[2] = {doneIn, readyIn};
    for (unsigned b = 0; b < 2; ++b) {
      if (((ier_ >> b) & 1u) && event[b])
        nextIsr |= 1u << b;
      else if (writes(kIsr))
        nextIsr ^= wData_ & (1u << b);
    }
    if (writes(kIer))
      ier_ = wData_ & 3u;
    isr_ = nextIsr;
    apStart_ = nextStart;
    apDone_ = nextDone;
    apReady_ = nextReady;
    if (writing) {
      int argIndex = -1;
      unsigned half = 0;
      if (findArgWord(word, argIndex, half)) {
        uint64_t &a = args_[static_cast<unsigned>(argIndex)];
        for (unsigned b = 0; b < 4; ++b) {
          if ((wStrb_ >> b) & 1u) {
            const unsigned shift = half * 32 + b * 8;
            a = (a & ~(uint64_t{0xff} << shift)) | (uint64_t{(wData_ >> (b * 8)) & 0xffu} << shift);
          }
        }
      }
      awPending_ = wPending_ = false;
      ++writesApplied_;
    }
  }
  std::string error() const override { return error_; }

private:
  struct ExpectedRead {
    uint64_t addr;
    uint32_t data;
  };

  /// Whether `word` holds data of an argument: which one, and which 32-bit half.
  bool findArgWord(uint64_t word, int &argIndex, unsigned &half) const {
    for (unsigned i = 0; i < layout_.numArgs; ++i) {
      const uint64_t off = layout_.offset(i);
      for (unsigned h = 0; h < layout_.dataWords(i); ++h) {
        if (word == off + 4 * h) {
          argIndex = static_cast<int>(i);
          half = h;
          return true;
        }
      }
    }
    return false;
  }

  uint32_t readValue(uint64_t addr, bool idleIn) const {
    const uint64_t word = addr & ~uint64_t{3};
    switch (word) {
    case AxiLiteMaster::kControl:
      return (apStart_ ? 1u : 0u) | (apDone_ ? 2u : 0u) | (idleIn ? 4u : 0u) |
             (apReady_ ? 8u : 0u) | (autoRestart_ ? 0x80u : 0u);
    case kGie:
      return gie_ ? 1u : 0u;
    case kIer:
      return ier_;
    case kIsr:
      return isr_;
    default:
      break;
    }
    int argIndex = -1;
    unsigned half = 0;
    if (findArgWord(word, argIndex, half))
      return static_cast<uint32_t>(args_[static_cast<unsigned>(argIndex)] >> (32 * half));
    return 0;
  }

  void compareOutputs() {
    if (kernel_.apStart.readBool() != apStart_)
      error_ = std::string("ap_start_o is ") + (apStart_ ? "0" : "1") + ", the model says " +
               (apStart_ ? "1" : "0");
    else if (interrupt_.readBool() != interruptLine())
      error_ = std::string("interrupt is ") + (interruptLine() ? "0" : "1") + ", the model says " +
               (interruptLine() ? "1" : "0") + " (GIE " + std::to_string(gie_) + " IER " +
               std::to_string(ier_) + " ISR " + std::to_string(isr_) + ")";
    else {
      const Bits args = kernel_.args.read();
      for (unsigned i = 0; i < layout_.numArgs; ++i) {
        const uint64_t actual = args.sliceU64(i * 64, 64);
        if (actual != args_[i]) {
          error_ = "args_o argument " + std::to_string(i) + ": expected " + hex(args_[i]) +
                   ", actual " + hex(actual);
          return;
        }
      }
    }
  }

  AxiLitePins axi_;
  KernelPins kernel_;
  SignalRef interrupt_;
  ArgLayout layout_;
  uint64_t addrMask_;
  bool apStart_ = false, apDone_ = false, apReady_ = false, autoRestart_ = false, gie_ = false;
  unsigned ier_ = 0, isr_ = 0;
  std::vector<uint64_t> args_;
  bool awPending_ = false, wPending_ = false;
  uint64_t awAddr_ = 0;
  uint32_t wData_ = 0;
  unsigned wStrb_ = 0;
  std::deque<ExpectedRead> expectedReads_;
  uint64_t readsChecked_ = 0, writesApplied_ = 0;
  std::string error_;
};

/// Fails the test unless `actual` has `expected` in the bits of `mask`.
template <class H>
void expectBits(H &h, const std::string &what, uint32_t actual, uint32_t mask, uint32_t expected) {
  if ((actual & mask) != (expected & mask))
    h.fail(what + ": expected " + hex(expected & mask) + " under mask " + hex(mask) + ", read " +
           hex(actual));
}

template <class Model> void runConfig(const TestOptions &options, const Params &params) {
  Harness<Model> h(options, [](Model &m) { return ClockReset{&m.clk_i, &m.rst_ni}; });
  auto &m = h.dut();
  const unsigned addrWidth = static_cast<unsigned>(params["AddrWidth"]);
  const ArgLayout layout{static_cast<unsigned>(params["NumArgs"]),
                         static_cast<uint32_t>(params["ArgIs64"]) |
                             uint64_t(static_cast<uint32_t>(params.get("ArgIs64Hi", 0))) << 32};
  const uint64_t seed = options.seed;

  AxiLitePins axi = ST_AXI_LITE_PINS(m, s_axi_control_, addrWidth);
  KernelPins kernelPins{SignalRef(m.ap_start_o, 1), SignalRef(m.ap_done_i, 1),
                        SignalRef(m.ap_idle_i, 1), SignalRef(m.ap_ready_i, 1),
                        SignalRef(m.args_o, layout.numArgs * 64)};
  // Verilator renames the port `interrupt` (a common C++ word) to __SYM__interrupt.
  SignalRef interruptPin(m.__SYM__interrupt, 1);

  AxiLiteMaster host("host", axi, seed * 7 + 1);
  SoftKernel kernel(kernelPins, seed * 11 + 2);
  ControlRegisterModel model(axi, kernelPins, interruptPin, layout, addrWidth);
  uint64_t notOkay = 0;
  host.onComplete([&](const AxiLiteTransaction &t) { notOkay += t.resp != AxiLiteMaster::kOkay; });
  h.add(host);
  h.add(kernel);
  h.add(model);
  h.reset();
  std::mt19937_64 rng(seed);
  auto random32 = [&] { return static_cast<uint32_t>(rng()); };

  // --- Reset values: idle kernel, nothing started, interrupts off, arguments 0.
  expectBits(h, "control after reset", host.read32(h, AxiLiteMaster::kControl), 0xffffffff,
             AxiLiteMaster::kApIdle);
  for (uint64_t reg : {kGie, kIer, kIsr})
    expectBits(h, "register " + hex(reg) + " after reset", host.read32(h, reg), 0xffffffff, 0);

  // --- Arguments: every data word written with random values and read back; reserved words
  // read 0 whatever is written to them; then partial (WSTRB) writes; args_o follows.
  std::vector<uint64_t> written(layout.numArgs, 0);
  for (unsigned i = 0; i < layout.numArgs; ++i) {
    for (unsigned w = 0; w < layout.dataWords(i); ++w) {
      const uint32_t v = random32();
      host.write32(h, layout.offset(i) + 4 * w, v);
      written[i] = (written[i] & ~(uint64_t{0xffffffff} << (32 * w))) | (uint64_t{v} << (32 * w));
    }
    host.write32(h, layout.offset(i) + 4 * layout.dataWords(i), random32()); // reserved
  }
  auto checkArgs = [&](const char *phase) {
    const Bits argsNow = kernelPins.args.read();
    for (unsigned i = 0; i < layout.numArgs; ++i) {
      for (unsigned w = 0; w <= layout.dataWords(i); ++w) {
        const uint64_t addr = layout.offset(i) + 4 * w;
        const uint32_t expected =
            w < layout.dataWords(i) ? static_cast<uint32_t>(written[i] >> (32 * w)) : 0;
        expectBits(h, std::string(phase) + ": argument " + std::to_string(i) + " word " + hex(addr),
                   host.read32(h, addr), 0xffffffff, expected);
      }
      if (argsNow.sliceU64(i * 64, 64) != written[i])
        h.fail(std::string(phase) + ": args_o argument " + std::to_string(i) + " expected " +
               hex(written[i]) + ", actual " + hex(argsNow.sliceU64(i * 64, 64)));
    }
  };
  checkArgs("full writes");
  for (unsigned n = 0; n < 6 * layout.numArgs; ++n) {
    const unsigned i = static_cast<unsigned>(rng() % layout.numArgs);
    const unsigned w = static_cast<unsigned>(rng() % layout.dataWords(i));
    const uint32_t v = random32();
    const uint8_t strb = static_cast<uint8_t>(rng() & 0xF);
    host.write32(h, layout.offset(i) + 4 * w, v, strb);
    for (unsigned b = 0; b < 4; ++b)
      if ((strb >> b) & 1u) {
        const unsigned shift = 32 * w + 8 * b;
        written[i] =
            (written[i] & ~(uint64_t{0xff} << shift)) | (uint64_t{(v >> (8 * b)) & 0xffu} << shift);
      }
  }
  checkArgs("partial writes");

  // --- start -> ready -> done -> idle, polled like a host: ap_start reads 1 until the kernel's
  // ap_ready, ap_done reads 1 once and is cleared by that read, ap_idle is back to 1.
  kernel.setLatency(30, 40, 20);
  host.startKernel(h);
  expectBits(h, "control just after ap_start", host.read32(h, AxiLiteMaster::kControl),
             AxiLiteMaster::kApStart | AxiLiteMaster::kApDone | AxiLiteMaster::kApIdle,
             AxiLiteMaster::kApStart);
  if (kernel.argsAtLastStart() != kernelPins.args.read())
    h.fail("the kernel saw other arguments at ap_start than were written");
  unsigned readySeen = 0;
  for (;;) {
    const uint64_t readiesBefore = kernel.readies();
    const uint32_t control = host.read32(h, AxiLiteMaster::kControl);
    if (kernel.readies() == 0 && readiesBefore == 0)
      expectBits(h, "control before ap_ready", control, AxiLiteMaster::kApStart,
                 AxiLiteMaster::kApStart);
    readySeen += (control & AxiLiteMaster::kApReady) ? 1 : 0;
    if (control & AxiLiteMaster::kApDone) {
      expectBits(h, "control at ap_done", control, AxiLiteMaster::kApStart | AxiLiteMaster::kApIdle,
                 AxiLiteMaster::kApIdle);
      break;
    }
    if (h.cycle() > 100000)
      h.fail("ap_done never read back");
  }
  if (readySeen != 1)
    h.fail("ap_ready read as 1 in " + std::to_string(readySeen) + " polls, expected exactly 1");
  expectBits(h, "control after reading ap_done", host.read32(h, AxiLiteMaster::kControl), 0xff,
             AxiLiteMaster::kApIdle);
  if (kernel.runs() != 1)
    h.fail("kernel ran " + std::to_string(kernel.runs()) + " times, expected 1");
  // The same through the host helpers, with a short kernel.
  kernel.setLatency(0, 3, 2);
  host.startKernel(h);
  host.waitDone(h);
  if (kernel.runs() != 2)
    h.fail("kernel ran " + std::to_string(kernel.runs()) + " times, expected 2");

  // --- auto_restart: one host start runs the kernel again and again until auto_restart is
  // cleared; then it finishes its current run and stays idle.
  kernel.setLatency(2, 10, 5);
  const uint64_t runsBefore = kernel.runs();
  host.write32(h, AxiLiteMaster::kControl, AxiLiteMaster::kAutoRestart | AxiLiteMaster::kApStart);
  h.runUntil([&] { return kernel.runs() >= runsBefore + 4; }, 2000);
  expectBits(h, "control while auto-restarting", host.read32(h, AxiLiteMaster::kControl),
             AxiLiteMaster::kAutoRestart | AxiLiteMaster::kApStart,
             AxiLiteMaster::kAutoRestart | AxiLiteMaster::kApStart);
  host.write32(h, AxiLiteMaster::kControl, 0);
  h.runUntil([&] { return !kernel.busy() && !model.apStart(); }, 2000);
  const uint64_t runsAfterStop = kernel.runs();
  for (int i = 0; i < 200; ++i)
    h.step();
  if (kernel.runs() != runsAfterStop)
    h.fail("kernel restarted after auto_restart was cleared");
  host.read32(h, AxiLiteMaster::kControl); // clears ap_done/ap_ready
  expectBits(h, "control after stopping auto_restart", host.read32(h, AxiLiteMaster::kControl),
             0xff, AxiLiteMaster::kApIdle);

  // --- Interrupts: ISR bits set on events enabled in IER; interrupt = GIE & |(IER & ISR); a write
  // of 1 toggles an ISR bit; a write with WSTRB[0] low changes nothing.
  auto expectInterrupt = [&](bool want, const char *when) {
    if (interruptPin.readBool() != want)
      h.fail(std::string("interrupt ") + (want ? "0" : "1") + " " + when + ", expected " +
             (want ? "1" : "0"));
  };
  host.write32(h, kIer, 1);
  host.write32(h, kGie, 1);
  expectInterrupt(false, "with interrupts enabled before any run");
  host.startKernel(h);
  h.runUntil([&] { return interruptPin.readBool(); }, 2000);
  expectBits(h, "control when the interrupt rose", host.read32(h, AxiLiteMaster::kControl),
             AxiLiteMaster::kApDone, AxiLiteMaster::kApDone); // and consumes ap_done
  expectBits(h, "ISR after a run with IER=done", host.read32(h, kIsr), 0x3, 0x1);
  host.write32(h, kIsr, 1);
  expectInterrupt(false, "after toggling ISR[0] off");
  expectBits(h, "ISR after toggling bit 0", host.read32(h, kIsr), 0x3, 0x0);
  host.write32(h, kIsr, 2);
  expectBits(h, "ISR after toggling bit 1 on", host.read32(h, kIsr), 0x3, 0x2);
  expectInterrupt(false, "with ISR[1] set but IER[1] clear");
  host.write32(h, kIer, 3);
  expectInterrupt(true, "with ISR[1] and IER[1] set");
  host.write32(h, kGie, 0);
  expectInterrupt(false, "with GIE clear");
  host.write32(h, kIsr, 3, 0x0);
  expectBits(h, "ISR after a write with WSTRB 0", host.read32(h, kIsr), 0x3, 0x2);
  host.write32(h, kIsr, 2);
  host.write32(h, kGie, 1);
  host.startKernel(h);
  host.waitDone(h);
  expectBits(h, "ISR after a run with IER=done|ready", host.read32(h, kIsr), 0x3, 0x3);
  expectInterrupt(true, "after a run with IER=done|ready");
  host.write32(h, kIsr, 3);
  expectInterrupt(false, "after clearing ISR");
  host.read32(h, AxiLiteMaster::kControl);

  // --- Random mix: register transactions of every kind with the kernel running whenever a
  // write starts it, first back to back, then with slow handshakes.
  kernel.setLatency(0, 16, 8);
  const uint64_t span = uint64_t{1} << addrWidth;
  auto randomAddr = [&]() -> uint64_t {
    const unsigned kind = static_cast<unsigned>(rng() % 10);
    if (kind < 3)
      return 4 * (rng() % 4); // control, GIE, IER, ISR
    if (kind < 8)
      return kFirstArg + 4 * (rng() % ((layout.end() - kFirstArg) / 4)); // arguments
    return rng() % span;                                                 // anything, unaligned
  };
  const uint64_t transactions = options.tokens;
  for (unsigned phase = 0; phase < 2; ++phase) {
    AxiLiteTiming timing;
    if (phase == 0) {
      timing.maxAddrDelay = timing.maxDataDelay = 0;
      timing.responseReadyProbability = 1.0;
    } else {
      timing.maxAddrDelay = timing.maxDataDelay = 6;
      timing.responseReadyProbability = 0.3;
    }
    host.setTiming(timing);
    const uint64_t n = transactions / 2 + (phase == 1 ? transactions % 2 : 0);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t addr = randomAddr();
      if (rng() & 1)
        host.queueRead(addr);
      else
        host.queueWrite(addr, random32(), static_cast<uint8_t>(rng() & 0xF));
    }
    h.runUntil([&] { return host.idle(); }, n * 100 + 1000);
  }
  if (notOkay != 0)
    h.fail(std::to_string(notOkay) + " responses other than OKAY");

  std::printf("%llu reads checked, %llu writes applied, %llu kernel runs, %llu cycles\n",
              static_cast<unsigned long long>(model.readsChecked()),
              static_cast<unsigned long long>(model.writesApplied()),
              static_cast<unsigned long long>(kernel.runs()),
              static_cast<unsigned long long>(h.cycle()));
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
