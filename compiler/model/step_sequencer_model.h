// Cycle-exact model of rtl_templates/control/st_step_sequencer.sv: the command order of one
// command port over (step, layer, sub-invocation), the KV-cache gate threshold, the KernelTiming
// of a run, and a clocked model of the registers that its Verilator test (tests/rtl/
// step_sequencer) compares with the RTL in every cycle.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>
#include <vector>

namespace st::model {

/// The template's parameters that shape its behaviour.
struct StepSequencerParams {
  int64_t layers = 1;     ///< Layers
  int64_t subs = 1;       ///< Subs
  int64_t firstStep = 0;  ///< FirstStep (0 or 1)
  bool gated = false;     ///< Gated
  int64_t gateOffset = 0; ///< GateOffset
};

/// One command token: step, layer, sub-invocation, the ROM index layer*subs + sub, last flag.
struct StepCommand {
  int64_t step = 0;
  int64_t layer = 0;
  int64_t sub = 0;
  int64_t romIndex = 0;
  bool last = false;
  bool operator==(const StepCommand &o) const {
    return step == o.step && layer == o.layer && sub == o.sub && romIndex == o.romIndex &&
           last == o.last;
  }
};

/// The first step that gets commands in a run starting at step `startStep` (first_step_i):
/// max(firstStep, startStep).
int64_t stepSequencerBeginStep(const StepSequencerParams &params, int64_t startStep);

/// Every command of a run of steps startStep .. numSteps - 1, in the order the sequencer emits
/// them.
std::vector<StepCommand> stepSequencerCommands(const StepSequencerParams &params, int64_t numSteps,
                                               int64_t startStep = 0);

/// The gate threshold of command (step, layer, *) in a run starting at `startStep`:
/// (step - startStep)*layers + layer + gateOffset.
int64_t stepSequencerGateThreshold(const StepSequencerParams &params, int64_t step, int64_t layer,
                                   int64_t startStep = 0);

/// A run of steps startStep .. numSteps - 1 with the gate open and the consumer always ready,
/// cycle 0 being the start handshake: the start latches the counters, the next cycle loads the
/// first command into the output register, so it leaves at D = 2, then one per cycle (ii = 1);
/// the last at L = commands + 1; done_o pulses at L + 1 (at 1 for an empty run). outputTokens
/// is the number of commands; the one input is the start token.
KernelTiming stepSequencerTiming(const StepSequencerParams &params, int64_t numSteps,
                                 int64_t startStep = 0);

/// Widths that set the sequencer's size (only for the resource estimate).
struct StepSequencerWidths {
  int64_t stepBits = 16; ///< StepBits
  int64_t romBits = 32;  ///< RomBits
  int64_t gateBits = 32; ///< GateBits
};

/// LUT/FF estimate: the LUT ROM (one LUT6 per RomBits bit per 64 words), the counters (t, l, s,
/// ROM index, gate threshold: an incrementer with a load each), the last-step and gate compares,
/// the registered command and the control bits.
ResourceEstimate stepSequencerResources(const StepSequencerParams &params,
                                        const StepSequencerWidths &widths);

/// The sequencer's registers, clocked once per cycle with the cycle's inputs. outputs() are the
/// values the RTL drives in the current cycle (all of them registers or functions of registers).
class StepSequencerCycleModel {
public:
  struct Outputs {
    bool startReady = true;
    bool valid = false;
    bool done = false;
    StepCommand command; ///< meaningful while valid
  };

  explicit StepSequencerCycleModel(StepSequencerParams params) : params_(params) {}

  Outputs outputs() const;
  /// Applies one rising edge with these input values (sampled just before the edge); the
  /// start takes numSteps (num_steps_i) and startStep (first_step_i).
  void clock(bool startValid, int64_t numSteps, int64_t startStep, int64_t gateCount, bool ready);
  /// The threshold of the next command not yet loaded (meaningful while one is pending).
  int64_t pendingThreshold() const;
  bool pending() const { return pending_; }

private:
  StepSequencerParams params_;
  bool pending_ = false;
  bool valid_ = false;
  bool done_ = false;
  int64_t numSteps_ = 0;
  int64_t startStep_ = 0;
  StepCommand next_;
  StepCommand out_;
};

} // namespace st::model
