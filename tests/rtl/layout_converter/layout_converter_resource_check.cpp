// Prints the Yosys resource counts of one st_layout_converter synthesis (the JSON report that
// tools/rtl_synth_check.py writes) beside st::model::layoutConverterResources for the same
// parameters and the program of the --from/--to itensors (the tables synthesis folded), with the
// ratio synthesized / estimated, and the table-blind worst-case estimate. Fails only when the
// report is missing or unreadable: the comparison is a measurement, not a gate.
//   layout_converter_resource_check <report.json> --from <itensor> --to <itensor> Name=Value ...
#include "ir/converter_buffer.h"
#include "model/converter_model.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <synth report.json> Name=Value ...\n", argv[0]);
    return 2;
  }
  std::map<std::string, long long> values;
  std::string from, to;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--from" || arg == "--to") && i + 1 < argc) {
      (arg == "--from" ? from : to) = argv[++i];
      continue;
    }
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "bad parameter '%s'\n", argv[i]);
      return 2;
    }
    values[arg.substr(0, eq)] = std::atoll(arg.c_str() + eq + 1);
  }
  st::ir::ConverterLimits l;
  l.elementBits = values.at("ElemBits");
  l.maxProducerElements = values.at("MaxProdElems");
  l.maxConsumerElements = values.at("MaxConsElems");
  l.maxBufferElements = values.at("MaxBufferElems");
  l.maxProducerTokens = values.at("MaxProdTokens");
  l.maxConsumerTokens = values.at("MaxConsTokens");
  if (from.empty() || to.empty()) {
    std::fprintf(stderr, "--from and --to are required\n");
    return 2;
  }
  const st::ir::ITensorType producer = st::ir::parseITensorType(from);
  const st::ir::ITensorType consumer = st::ir::parseITensorType(to);
  const st::ir::ConverterProgram program = st::ir::buildConverterProgram(
      producer, consumer, st::ir::inferConverterBuffer(producer, consumer));
  const st::model::ResourceEstimate estimate = st::model::layoutConverterResources(l, &program);
  const st::model::ResourceEstimate blind = st::model::layoutConverterResources(l);

  std::ifstream in(argv[1]);
  if (!in) {
    std::printf("FAIL: cannot read %s (run the synth test first)\n", argv[1]);
    return 1;
  }
  const nlohmann::json report = nlohmann::json::parse(in);
  const auto &totals = report.at("totals");
  auto row = [](const char *name, double synthesized, double estimated) {
    std::printf("  %-6s synthesized %8.1f  model %8.1f  ratio %5.2f\n", name, synthesized,
                estimated, estimated > 0 ? synthesized / estimated : 0.0);
  };
  std::printf("st_layout_converter resources, Yosys synth_xilinx -family xcup vs "
              "layoutConverterResources:\n");
  row("LUT", totals.at("LUT").get<double>(), double(estimate.lut));
  row("FF", totals.at("FF").get<double>(), double(estimate.ff));
  row("DSP", totals.at("DSP").get<double>(), double(estimate.dsp));
  row("BRAM36", totals.at("BRAM36").get<double>(), estimate.bram36);
  row("URAM", totals.at("URAM").get<double>(), double(estimate.uram));
  std::printf("  without the tables (any lane may address any word): LUT %lld, FF %lld, "
              "BRAM36 %.1f\n",
              static_cast<long long>(blind.lut), static_cast<long long>(blind.ff), blind.bram36);
  std::printf("PASS\n");
  return 0;
}
