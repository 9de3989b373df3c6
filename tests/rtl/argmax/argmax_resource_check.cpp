// Prints the Yosys resource counts of one st_argmax synthesis beside st::model::argmaxResources
// at the same parameters (tb/synth_compare.h). Fails when a ratio leaves [0.5, 2] (the model is
// then wrong, not merely imprecise); the aim is within 25 %.
// Usage: argmax_resource_check <report.json> Lanes=.. ElemBits=.. MaxLen=..
#include "model/argmax_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  const auto params = st::tb::parseParamArgs(argc, argv, 2);
  st::model::ArgmaxParams p;
  p.lanes = params.at("Lanes");
  p.elemBits = params.at("ElemBits");
  p.maxLen = params.at("MaxLen");
  return st::tb::compareSynthWithEstimate(argv[1], st::model::argmaxResources(p), 2.0);
}
