// Cycle-exact model of st_token_source (see token_source_model.h).
#include "model/token_source_model.h"

namespace st::model {

ArgmaxRoute tokenSourceArgmaxRoute(int64_t nPrompt, int64_t numSteps, int64_t step) {
  if (step + 1 < nPrompt)
    return ArgmaxRoute::Drop;
  if (step + 1 == numSteps)
    return ArgmaxRoute::GeneratedOnly;
  return ArgmaxRoute::TokenAndGenerated;
}

int64_t tokenSourceGeneratedTokens(int64_t nPrompt, int64_t numSteps) {
  return numSteps - nPrompt + 1;
}

ResourceEstimate tokenSourceResources(int64_t idBits, int64_t stepBits) {
  ResourceEstimate r;
  const int64_t counter = stepBits + 1;
  r.lut = idBits + 2 * counter + 5 * ((counter + 1) / 2) + 6;
  // n_prompt - 1 and num_steps - 1, the token counter and it - 1, the argmax counter and it + 1,
  // the two id registers, the valid and running flags and the five counter-test flags.
  r.ff = 6 * counter + 2 * idBits + 3 + 5;
  return r;
}

KernelTiming tokenSourceTiming() {
  KernelTiming t;
  t.firstOutputDelay = 1;
  t.ii = 1;
  t.totalLatency = 1;
  t.outputTokens = 1;
  t.inputTokens = {1};
  t.inputTokensNeeded = {[](int64_t k) { return k + 1; }};
  return t;
}

TokenSourceCycleModel::Outputs TokenSourceCycleModel::outputs(const Inputs &in) const {
  Outputs o;
  o.startReady = !running_;
  o.tokenValid = tokenValid_;
  o.genValid = genValid_;
  o.tokenData = tokenData_;
  o.genData = genData_;
  const bool tokenFree = !tokenValid_ || in.tokenReady;
  const bool genFree = !genValid_ || in.genReady;
  o.promptReady = running_ && tokens_ < nPrompt_ && tokenFree;
  if (running_ && argmaxes_ < numSteps_) {
    switch (tokenSourceArgmaxRoute(nPrompt_, numSteps_, argmaxes_)) {
    case ArgmaxRoute::Drop:
      o.argmaxReady = true;
      break;
    case ArgmaxRoute::GeneratedOnly:
      o.argmaxReady = genFree;
      break;
    case ArgmaxRoute::TokenAndGenerated:
      o.argmaxReady = genFree && tokenFree && tokens_ == argmaxes_ + 1;
      break;
    }
  }
  o.done = running_ && argmaxes_ == numSteps_ && !tokenValid_ && !genValid_;
  return o;
}

void TokenSourceCycleModel::clock(const Inputs &in) {
  const Outputs o = outputs(in);
  const bool start = in.startValid && o.startReady;
  const bool promptFire = in.promptValid && o.promptReady;
  const bool argmaxFire = in.argmaxValid && o.argmaxReady;
  const ArgmaxRoute route =
      argmaxFire ? tokenSourceArgmaxRoute(nPrompt_, numSteps_, argmaxes_) : ArgmaxRoute::Drop;
  const bool tokenLoad = promptFire || route == ArgmaxRoute::TokenAndGenerated;
  const bool genLoad = argmaxFire && route != ArgmaxRoute::Drop;

  if (start)
    running_ = true;
  else if (o.done)
    running_ = false;
  if (tokenLoad)
    tokenValid_ = true;
  else if (in.tokenReady)
    tokenValid_ = false;
  if (genLoad)
    genValid_ = true;
  else if (in.genReady)
    genValid_ = false;
  if (start) {
    nPrompt_ = in.nPrompt;
    numSteps_ = in.numSteps;
    tokens_ = argmaxes_ = 0;
  } else {
    tokens_ += tokenLoad ? 1 : 0;
    argmaxes_ += argmaxFire ? 1 : 0;
  }
  if (tokenLoad)
    tokenData_ = promptFire ? in.promptData : in.argmaxData;
  if (genLoad)
    genData_ = in.argmaxData;
}

} // namespace st::model
