// Harness: owns a Verilated model, its clock and reset, the FST trace switch and the list of
// per-cycle Components. One Harness per simulation; every testbench (hand-written or generated)
// is built on it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "component.h"
#include "test_options.h"
#include "verilated.h"
#if VM_TRACE_FST
#include "verilated_fst_c.h"
#endif

namespace st::tb {

/// Thrown by the Harness and by tests when a check fails; runTest() prints it and returns 1.
class TestFailure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct ClockReset {
  CData *clk;
  CData *rstN; ///< active-low reset
};

template <class Model> class Harness {
public:
  /// `pins` says where the model's clock and active-low reset are.
  Harness(const TestOptions &options, std::function<ClockReset(Model &)> pins)
      : options_(options), context_(std::make_unique<VerilatedContext>()) {
    context_->randReset(2); // randomize initial register contents: catches missing resets
    context_->timeunit(-12);
    context_->timeprecision(-12);
    context_->randSeed(static_cast<int>(options.seed & 0x7fffffff));
    model_ = std::make_unique<Model>(context_.get(), "dut");
    pins_ = pins(*model_);
    *pins_.clk = 0;
    *pins_.rstN = 0;
    if (!options.tracePath.empty())
      openTrace(options.tracePath);
  }

  ~Harness() {
#if VM_TRACE_FST
    if (trace_)
      trace_->close();
#endif
    model_->final();
  }

  Model &dut() { return *model_; }
  uint64_t cycle() const { return cycle_; }
  const TestOptions &options() const { return options_; }

  void add(Component &component) { components_.push_back(&component); }

  /// Hold reset for `cycles` rising edges, then release it.
  void reset(unsigned cycles = 4) {
    *pins_.rstN = 0;
    for (unsigned i = 0; i < cycles; ++i) {
      for (auto *c : components_)
        c->reset();
      edge();
    }
    *pins_.rstN = 1;
  }

  /// One clock cycle: drive, settle, sample, rising edge, falling edge.
  void step() {
    for (auto *c : components_)
      c->drive(cycle_);
    model_->eval();
    for (auto *c : components_)
      c->sample(cycle_);
    for (auto *c : components_) {
      std::string e = c->error();
      if (!e.empty())
        fail(e);
    }
    edge();
    if (cycle_ > options_.maxCycles)
      fail("simulation exceeded --max-cycles " + std::to_string(options_.maxCycles));
  }

  /// Step until `done()` holds; fails after `limit` cycles.
  void runUntil(const std::function<bool()> &done, uint64_t limit) {
    uint64_t start = cycle_;
    while (!done()) {
      if (cycle_ - start >= limit)
        fail("condition not reached within " + std::to_string(limit) + " cycles");
      step();
    }
  }

  [[noreturn]] void fail(const std::string &message) {
#if VM_TRACE_FST
    if (trace_)
      trace_->flush();
#endif
    throw TestFailure("cycle " + std::to_string(cycle_) + ": " + message);
  }

private:
  /// Whether the model was verilated with --trace-fst (only then does it have trace()).
  template <class M, class = void> struct HasFstTrace : std::false_type {};
  template <class M>
  struct HasFstTrace<M, std::void_t<decltype(std::declval<M &>().trace(
                            static_cast<VerilatedFstC *>(nullptr), 0))>> : std::true_type {};

  void openTrace(const std::string &path) {
#if VM_TRACE_FST
    if constexpr (HasFstTrace<Model>::value) {
      context_->traceEverOn(true);
      trace_ = std::make_unique<VerilatedFstC>();
      model_->trace(trace_.get(), 99);
      trace_->open(path.c_str());
      return;
    }
#endif
    throw TestFailure("--trace " + path +
                      ": this model was built without FST tracing (verilate with --trace-fst)");
  }

  void dump() {
#if VM_TRACE_FST
    if (trace_)
      trace_->dump(context_->time());
#endif
  }

  void edge() {
    model_->eval();
    dump();
    context_->timeInc(kHalfPeriodPs);
    *pins_.clk = 1;
    model_->eval();
    dump();
    context_->timeInc(kHalfPeriodPs);
    *pins_.clk = 0;
    model_->eval();
    ++cycle_;
  }

  /// Waveform time: a 250 MHz kernel clock (4 ns period), the paper's and our default target.
  static constexpr uint64_t kHalfPeriodPs = 2000;

  TestOptions options_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
  ClockReset pins_{};
  std::vector<Component *> components_;
  uint64_t cycle_ = 0;
#if VM_TRACE_FST
  std::unique_ptr<VerilatedFstC> trace_;
#endif
};

/// Runs a test body: prints the binary, config and seed, catches TestFailure and prints
/// "PASS"/"FAIL: ..." Returns the process exit code.
int runTest(int argc, char **argv, const std::function<void(const TestOptions &)> &body);

} // namespace st::tb
