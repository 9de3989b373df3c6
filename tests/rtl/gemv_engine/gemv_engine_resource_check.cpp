// Prints the Yosys resource counts of one st_gemv_engine synthesis beside
// st::model::gemvEngineResources for the same parameters (tb/synth_compare.h), and fails when a
// ratio estimate / Yosys leaves [0.8, 1.25] (the aim of 25 %) or the report is missing.
//   gemv_engine_resource_check <report.json> Name=Value ...
#include "model/gemv_engine_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <synth report.json> Name=Value ...\n", argv[0]);
    return 2;
  }
  const auto values = st::tb::parseParamArgs(argc, argv, 2);
  st::model::GemvEngineShape s;
  s.channels = values.at("Channels");
  s.kLanes = values.at("KLanes");
  s.segLanes = values.at("SegLanes");
  s.lanes = values.at("Lanes");
  s.weightBits = values.at("WBits");
  s.activationBits = values.at("ABits");
  s.maxK = values.at("MaxK");
  s.outputBits = values.at("OutBits");
  s.numX = values.at("NumX");
  s.numY = values.at("NumY");
  s.packedPairs = values.count("PackedPairs") ? values.at("PackedPairs") : 0;
  return st::tb::compareSynthWithEstimate(argv[1], st::model::gemvEngineResources(s), 1.25);
}
