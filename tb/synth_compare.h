// The one printer of "model estimate vs Yosys" used by every kernel's synth.<kernel>.*estimate /
// vs_model test: compareSynthWithEstimate prints a template's Yosys resource counts (the JSON
// report of tools/rtl_synth_check.py) beside the model's ResourceEstimate with the ratio
// estimate / Yosys, marking ratios outside the aim of 25 %. It records; it gates only
// when asked (maxFactor > 0: a ratio outside [1/maxFactor, maxFactor] means the model is wrong,
// not merely imprecise) and fails when the report cannot be read.
// parseParamArgs reads the Name=Value arguments the *_resource_check tools take.
#pragma once

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "model/kernel_timing.h"

namespace st::tb {

inline int compareSynthWithEstimate(const std::string &reportPath,
                                    const model::ResourceEstimate &estimate, double maxFactor = 0) {
  std::ifstream in(reportPath);
  if (!in) {
    std::printf("FAIL: cannot read synthesis report %s (run the synth test first)\n",
                reportPath.c_str());
    return 1;
  }
  const nlohmann::json report = nlohmann::json::parse(in);
  const auto &totals = report.at("totals");
  std::printf("resources of %s: model estimate vs Yosys synth_xilinx -family xcup\n",
              report.at("top").get<std::string>().c_str());
  if (report.contains("params"))
    for (const auto &param : report.at("params"))
      std::printf("  %s\n", param.get<std::string>().c_str());
  std::printf("  %-6s %10s %10s %8s\n", "", "estimate", "yosys", "ratio");
  bool ok = true;
  auto row = [&](const char *name, double estimated) {
    const double synthesized = totals.at(name).get<double>();
    if (synthesized > 0) {
      const double ratio = estimated / synthesized;
      const bool within25 = ratio >= 0.75 && ratio <= 1.25;
      std::printf("  %-6s %10g %10g %8.2f%s\n", name, estimated, synthesized, ratio,
                  within25 ? "" : "  (outside 25 %)");
      if (maxFactor > 0 && (ratio < 1 / maxFactor || ratio > maxFactor))
        ok = false;
    } else {
      std::printf("  %-6s %10g %10g %8s\n", name, estimated, synthesized, "-");
      if (maxFactor > 0 && estimated > 2)
        ok = false;
    }
  };
  row("LUT", double(estimate.lut));
  row("FF", double(estimate.ff));
  row("DSP", double(estimate.dsp));
  row("BRAM36", estimate.bram36);
  row("URAM", double(estimate.uram));
  if (!ok) {
    std::printf("FAIL: an estimate is off by more than %gx\n", maxFactor);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

/// The integer Name=Value pairs among argv[first..argc) (string values, in quotes, skipped).
inline std::map<std::string, long long> parseParamArgs(int argc, char **argv, int first) {
  std::map<std::string, long long> values;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq != std::string::npos && arg.find('"') == std::string::npos)
      values[arg.substr(0, eq)] = std::stoll(arg.substr(eq + 1));
  }
  return values;
}

} // namespace st::tb
