// Cycle-exact model of st_step_sequencer (see step_sequencer_model.h).
#include "model/step_sequencer_model.h"

#include <algorithm>

#include "support/int_math.h"

namespace st::model {

namespace {

StepCommand firstCommand(const StepSequencerParams &p, int64_t numSteps, int64_t startStep) {
  StepCommand c;
  c.step = stepSequencerBeginStep(p, startStep);
  c.last = (p.layers == 1 && p.subs == 1 && numSteps == c.step + 1);
  return c;
}

StepCommand following(const StepSequencerParams &p, int64_t numSteps, const StepCommand &c) {
  StepCommand n = c;
  if (++n.sub == p.subs) {
    n.sub = 0;
    if (++n.layer == p.layers) {
      n.layer = 0;
      ++n.step;
    }
  }
  n.romIndex = n.layer * p.subs + n.sub;
  n.last = n.step == numSteps - 1 && n.layer == p.layers - 1 && n.sub == p.subs - 1;
  return n;
}

} // namespace

int64_t stepSequencerBeginStep(const StepSequencerParams &p, int64_t startStep) {
  return std::max(p.firstStep, startStep);
}

std::vector<StepCommand> stepSequencerCommands(const StepSequencerParams &p, int64_t numSteps,
                                               int64_t startStep) {
  std::vector<StepCommand> commands;
  if (numSteps <= stepSequencerBeginStep(p, startStep))
    return commands;
  commands.push_back(firstCommand(p, numSteps, startStep));
  while (!commands.back().last)
    commands.push_back(following(p, numSteps, commands.back()));
  return commands;
}

int64_t stepSequencerGateThreshold(const StepSequencerParams &p, int64_t step, int64_t layer,
                                   int64_t startStep) {
  return (step - startStep) * p.layers + layer + p.gateOffset;
}

KernelTiming stepSequencerTiming(const StepSequencerParams &p, int64_t numSteps,
                                 int64_t startStep) {
  const int64_t begin = stepSequencerBeginStep(p, startStep);
  const int64_t commands = numSteps > begin ? (numSteps - begin) * p.layers * p.subs : 0;
  KernelTiming t;
  t.firstOutputDelay = commands ? 2 : 0;
  t.ii = 1;
  t.totalLatency = commands ? commands + 1 : 0;
  t.outputTokens = commands;
  t.inputTokens = {1};
  t.inputTokensNeeded = {[](int64_t) { return int64_t(1); }};
  return t;
}

ResourceEstimate stepSequencerResources(const StepSequencerParams &p,
                                        const StepSequencerWidths &w) {
  const int64_t words = p.layers * p.subs;
  const int64_t layerBits = bitsFor(p.layers), subBits = bitsFor(p.subs);
  const int64_t idxBits = bitsFor(words);
  const int64_t threshBits = p.gated ? w.gateBits + 1 : 0;
  ResourceEstimate r;
  const int64_t romLuts = w.romBits * ((words + 63) / 64);
  const int64_t counterLuts = w.stepBits + layerBits + subBits + idxBits + threshBits;
  // t == T-1, S > FirstStep and the gate compare, 3 bits per LUT6 (the adders sit on the carry
  // chain); the first step max(FirstStep, S) is a StepBits-wide mux.
  const int64_t compareLuts = 2 * ((w.stepBits + 2) / 3) + (threshBits + 2) / 3;
  r.lut = romLuts + counterLuts + compareLuts + w.stepBits + 6;
  // Next-command counters, T, the threshold, the command register, pending/valid/done.
  r.ff = (w.stepBits + layerBits + subBits + idxBits) + w.stepBits + threshBits +
         (w.stepBits + layerBits + subBits + w.romBits + 1) + 3;
  return r;
}

StepSequencerCycleModel::Outputs StepSequencerCycleModel::outputs() const {
  Outputs o;
  o.startReady = !pending_ && !valid_;
  o.valid = valid_;
  o.done = done_;
  o.command = out_;
  return o;
}

int64_t StepSequencerCycleModel::pendingThreshold() const {
  return stepSequencerGateThreshold(params_, next_.step, next_.layer, startStep_);
}

void StepSequencerCycleModel::clock(bool startValid, int64_t numSteps, int64_t startStep,
                                    int64_t gateCount, bool ready) {
  const Outputs o = outputs();
  const bool fire = valid_ && ready;
  const bool start = startValid && o.startReady;
  const bool gateOk = !params_.gated || pendingThreshold() <= gateCount;
  const bool load = pending_ && (!valid_ || ready) && gateOk;
  done_ = fire && out_.last;
  if (start) {
    numSteps_ = numSteps;
    startStep_ = startStep;
    const int64_t begin = stepSequencerBeginStep(params_, startStep);
    pending_ = numSteps > begin;
    done_ = numSteps <= begin;
    next_ = firstCommand(params_, numSteps, startStep);
  } else if (load) {
    out_ = next_;
    pending_ = !next_.last;
    if (pending_)
      next_ = following(params_, numSteps_, next_);
  }
  if (load)
    valid_ = true;
  else if (fire)
    valid_ = false;
}

} // namespace st::model
