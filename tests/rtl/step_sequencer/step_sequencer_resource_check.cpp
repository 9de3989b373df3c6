// Prints the Yosys resource counts of one st_step_sequencer synthesis beside
// st::model::stepSequencerResources at the same parameters (tb/synth_compare.h). Fails when a
// ratio leaves [0.5, 2] (the model is then wrong, not merely imprecise).
// Usage: step_sequencer_resource_check <report.json> Layers=.. Subs=.. StepBits=.. RomBits=..
//        Gated=.. GateBits=..
#include "model/step_sequencer_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  const auto params = st::tb::parseParamArgs(argc, argv, 2);
  st::model::StepSequencerParams p;
  p.layers = params.at("Layers");
  p.subs = params.at("Subs");
  p.gated = params.at("Gated") != 0;
  st::model::StepSequencerWidths w;
  w.stepBits = params.at("StepBits");
  w.romBits = params.at("RomBits");
  w.gateBits = params.at("GateBits");
  return st::tb::compareSynthWithEstimate(argv[1], st::model::stepSequencerResources(p, w), 2.0);
}
