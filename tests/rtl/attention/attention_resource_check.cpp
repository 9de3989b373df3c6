// Prints the Yosys resource counts of one st_attention synthesis (the JSON report that
// tools/rtl_synth_check.py writes) beside st::model::attentionResources at the same parameters,
// with the ratio synthesized / model. Fails only when a ratio leaves [0.5, 2] (the model is
// then wrong, not merely imprecise); the aim is within 25 %.
// Usage: attention_resource_check <report.json> NumHeads=.. NumKvHeads=.. HeadDim=.. MaxContext=..
// Lanes=.. CacheLanes=.. [OutBits=.. BlockMajor=.. CacheRound=.. OnePass=.. TilePositions=..]
// (other Name=Value pairs are ignored)
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "model/attention_model.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <report.json> Name=Value...\n", argv[0]);
    return 2;
  }
  std::map<std::string, long long> params;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (eq != std::string::npos && arg.find('"') == std::string::npos)
      params[arg.substr(0, eq)] = std::stoll(arg.substr(eq + 1));
  }
  st::model::AttentionParams p;
  p.numHeads = params.at("NumHeads");
  p.numKvHeads = params.at("NumKvHeads");
  p.headDim = params.at("HeadDim");
  p.maxContext = params.at("MaxContext");
  p.lanes = params.at("Lanes");
  p.cacheLanes = params.at("CacheLanes");
  p.outBits = params.count("OutBits") ? params.at("OutBits") : 8;
  p.blockMajor = params.count("BlockMajor") && params.at("BlockMajor") != 0;
  p.cacheRound = params.count("CacheRound") ? params.at("CacheRound") : 1;
  p.onePass = params.count("OnePass") && params.at("OnePass") != 0;
  p.tilePositions = params.count("TilePositions") ? params.at("TilePositions") : 64;
  const st::model::ResourceEstimate model = st::model::attentionResources(p);

  std::ifstream file(argv[1]);
  if (!file) {
    std::printf("FAIL: cannot read %s (run the synthesis test first)\n", argv[1]);
    return 1;
  }
  const nlohmann::json totals = nlohmann::json::parse(file).at("totals");
  bool ok = true;
  std::printf("st_attention NumHeads=%lld NumKvHeads=%lld HeadDim=%lld MaxContext=%lld Lanes=%lld "
              "CacheLanes=%lld\n",
              params["NumHeads"], params["NumKvHeads"], params["HeadDim"], params["MaxContext"],
              params["Lanes"], params["CacheLanes"]);
  std::printf("  %-6s %10s %10s %8s\n", "", "yosys", "model", "ratio");
  auto row = [&](const char *name, double synthesized, double estimated) {
    const double ratio = estimated > 0 ? synthesized / estimated : (synthesized > 0 ? 99 : 1);
    std::printf("  %-6s %10g %10g %8.2f\n", name, synthesized, estimated, ratio);
    if (ratio < 0.5 || ratio > 2.0)
      ok = false;
  };
  row("LUT", totals.at("LUT").get<double>(), double(model.lut));
  row("FF", totals.at("FF").get<double>(), double(model.ff));
  row("DSP", totals.at("DSP").get<double>(), double(model.dsp));
  row("BRAM36", totals.at("BRAM36").get<double>(), model.bram36);
  row("URAM", totals.at("URAM").get<double>(), double(model.uram));
  std::printf(ok ? "PASS\n" : "FAIL: a ratio is outside [0.5, 2]\n");
  return ok ? 0 : 1;
}
