// Prints the Yosys resource counts of one st_token_source synthesis beside
// st::model::tokenSourceResources at the same parameters (tb/synth_compare.h). Fails when a
// ratio leaves [0.5, 2] (the model is then wrong, not merely imprecise).
// Usage: token_source_resource_check <report.json> IdBits=.. StepBits=..
#include "model/token_source_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  const auto params = st::tb::parseParamArgs(argc, argv, 2);
  return st::tb::compareSynthWithEstimate(
      argv[1], st::model::tokenSourceResources(params.at("IdBits"), params.at("StepBits")), 2.0);
}
