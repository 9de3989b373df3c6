// Cycle-exact model of rtl_templates/control/st_token_source.sv: which stream each step's id
// comes from and where each argmax id goes, the KernelTiming of its two paths, and a clocked
// model of its registers that its Verilator test (tests/rtl/token_source) compares with the RTL
// in every cycle.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>

namespace st::model {

/// Where the argmax id of step t goes in a run with nPrompt prompt ids and numSteps steps.
enum class ArgmaxRoute { Drop, TokenAndGenerated, GeneratedOnly };
ArgmaxRoute tokenSourceArgmaxRoute(int64_t nPrompt, int64_t numSteps, int64_t step);

/// Generated tokens of a run: numSteps - nPrompt + 1.
int64_t tokenSourceGeneratedTokens(int64_t nPrompt, int64_t numSteps);

/// Both paths (prompt -> token, argmax -> token / generated) are one output register: with
/// cycle 0 the input handshake, the output leaves at D = L = 1 when the consumer is ready;
/// ii = 1. The first prompt id can be taken one cycle after the start handshake, so in free
/// flow prompt id k leaves at cycle k + 2 after the start handshake.
KernelTiming tokenSourceTiming();

/// LUT/FF estimate: P, T, the two (StepBits+1)-bit counters with their incrementers, five
/// compares on them, the token register's prompt/argmax select, the two output registers.
ResourceEstimate tokenSourceResources(int64_t idBits, int64_t stepBits);

/// The token source's registers, clocked once per cycle with that cycle's inputs.
class TokenSourceCycleModel {
public:
  struct Inputs {
    bool startValid = false;
    int64_t nPrompt = 0, numSteps = 0;
    bool promptValid = false;
    uint64_t promptData = 0;
    bool argmaxValid = false;
    uint64_t argmaxData = 0;
    bool tokenReady = false, genReady = false;
  };
  struct Outputs {
    bool startReady = true, promptReady = false, argmaxReady = false;
    bool tokenValid = false, genValid = false, done = false;
    uint64_t tokenData = 0, genData = 0; ///< meaningful while the valid is high
  };

  /// The outputs in a cycle with these inputs (the readies pass token/gen ready through).
  Outputs outputs(const Inputs &in) const;
  /// Applies one rising edge with these inputs.
  void clock(const Inputs &in);
  bool running() const { return running_; }

private:
  bool running_ = false;
  int64_t nPrompt_ = 0, numSteps_ = 0, tokens_ = 0, argmaxes_ = 0;
  bool tokenValid_ = false, genValid_ = false;
  uint64_t tokenData_ = 0, genData_ = 0;
};

} // namespace st::model
