// Prints the Yosys resource counts of one st_softmax synthesis beside
// st::model::softmaxResources at the same parameters (tb/synth_compare.h). Fails when a ratio
// leaves [0.5, 2] (the model is then wrong, not merely imprecise); the aim is 25 %.
// Usage: softmax_resource_check <report.json> Lanes=.. InBits=.. MaxLen=.. (other Name=Value pairs
// are ignored)
#include "model/softmax_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  const auto params = st::tb::parseParamArgs(argc, argv, 2);
  st::model::SoftmaxParams p;
  p.lanes = params.at("Lanes");
  p.inBits = params.at("InBits");
  p.maxLen = params.at("MaxLen");
  return st::tb::compareSynthWithEstimate(argv[1], st::model::softmaxResources(p), 2.0);
}
