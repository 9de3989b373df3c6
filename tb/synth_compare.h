// compareSynthWithEstimate: prints a template's Yosys resource counts (the JSON report of
// tools/rtl_synth_check.py) beside the model's ResourceEstimate with the ratio estimate/Yosys.
// It only records and prints (the aim is within 25 %, reported, not asserted); it fails only
// when the report cannot be read. Used by the synth.<kernel>.estimate tests.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/kernel_timing.h"

namespace st::tb {

inline int compareSynthWithEstimate(const std::string &reportPath,
                                    const model::ResourceEstimate &estimate) {
  std::ifstream in(reportPath);
  if (!in) {
    std::printf("FAIL: cannot read synthesis report %s\n", reportPath.c_str());
    return 1;
  }
  const nlohmann::json report = nlohmann::json::parse(in);
  const auto &totals = report.at("totals");
  std::printf("resources of %s: model estimate vs Yosys synth_xilinx -family xcup\n",
              report.at("top").get<std::string>().c_str());
  std::printf("  %-6s %10s %10s %8s\n", "", "estimate", "yosys", "ratio");
  auto row = [&](const char *name, double estimated) {
    const double synthesized = totals.at(name).get<double>();
    if (synthesized > 0)
      std::printf("  %-6s %10g %10g %8.2f\n", name, estimated, synthesized,
                  estimated / synthesized);
    else
      std::printf("  %-6s %10g %10g %8s\n", name, estimated, synthesized, "-");
  };
  row("LUT", double(estimate.lut));
  row("FF", double(estimate.ff));
  row("DSP", double(estimate.dsp));
  row("BRAM36", estimate.bram36);
  row("URAM", double(estimate.uram));
  std::printf("PASS\n");
  return 0;
}

} // namespace st::tb
