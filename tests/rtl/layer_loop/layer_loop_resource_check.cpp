// Prints the Yosys resource counts of one st_layer_loop synthesis beside
// st::model::layerLoopResources at the same parameters (tb/synth_compare.h). Fails when a ratio
// leaves [0.5, 2] (the model is then wrong, not merely imprecise).
// Usage: layer_loop_resource_check <report.json> Width=.. VecTokens=.. Layers=.. [LoopDepth=..]
#include "model/layer_loop_model.h"
#include "synth_compare.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  const auto params = st::tb::parseParamArgs(argc, argv, 2);
  st::model::LayerLoopParams p;
  p.vecTokens = params.at("VecTokens");
  p.layers = params.at("Layers");
  const long long depth = params.count("LoopDepth") ? params.at("LoopDepth") : p.vecTokens;
  return st::tb::compareSynthWithEstimate(
      argv[1], st::model::layerLoopResources(p, params.at("Width"), depth), 2.0);
}
