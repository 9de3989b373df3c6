// Prints the Yosys resource counts of one st_linear synthesis beside st::model::linearResources
// for the same parameters (tb/synth_compare.h). Fails only when the report is missing: the
// comparison is a measurement (the aim is within 25 %), not a gate.
//   linear_resource_check <report.json> Name=Value ...
#include "model/linear_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <synth report.json> Name=Value ...\n", argv[0]);
    return 2;
  }
  const auto values = st::tb::parseParamArgs(argc, argv, 2);
  st::model::LinearParams p;
  p.k = values.at("K");
  p.nOut = values.at("NOut");
  p.rows = values.at("Rows");
  p.kLanes = values.at("KLanes");
  p.lanes = values.at("Lanes");
  p.weightBits = values.at("WBits");
  p.activationBits = values.at("ABits");
  p.groupSize = values.at("GroupSize");
  p.outputBits = values.at("OutBits");
  p.wordBits = values.at("WordBits");
  return st::tb::compareSynthWithEstimate(argv[1], st::model::linearResources(p));
}
