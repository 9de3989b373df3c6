// Compile report: JSON and Markdown views of a compiled dataflow graph.
#include "gen/report.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "model/kernel_templates.h"

namespace st::gen {

nlohmann::json reportJson(const plan::GraphPlan &plan) {
  const ir::DataflowGraph &df = plan.dataflow;
  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json converters = nlohmann::json::array();
  int64_t converterBits = 0;
  for (ir::NodeId n : df.topologicalOrder()) {
    const ir::DataflowNode &node = df.node(n);
    nlohmann::json j{{"name", node.name},
                     {"kind", ir::toString(node.kind)},
                     {"module", node.module},
                     {"fusion_group", node.fusionGroup},
                     {"group", "fusion group " + std::to_string(node.fusionGroup)}};
    nlohmann::json params = nlohmann::json::object();
    for (const auto &p : node.params)
      params[p.name] = p.text ? nlohmann::json(*p.text) : nlohmann::json(p.value);
    j["params"] = params;
    nlohmann::json ports = nlohmann::json::array();
    for (const auto &p : node.inputs)
      ports.push_back({{"name", p.name}, {"direction", "in"}, {"itensor", p.type.toString()}});
    for (const auto &p : node.outputs)
      ports.push_back({{"name", p.name}, {"direction", "out"}, {"itensor", p.type.toString()}});
    j["ports"] = ports;
    if (node.kind == ir::NodeKind::Converter) {
      const int64_t elems = node.attributes.at("buffer_elements");
      const int64_t bits = elems * model::layoutConverterTemplate().decode(node).elementBits;
      converterBits += 2 * bits;
      converters.push_back({{"name", node.name},
                            {"from", node.inputs[0].type.toString()},
                            {"to", node.outputs[0].type.toString()},
                            {"buffer_elements", elems},
                            {"phases", node.attributes.at("phases")},
                            {"ping_pong_bits", 2 * bits}});
    }
    nodes.push_back(j);
  }
  nlohmann::json streams = nlohmann::json::array();
  int64_t fifoBits = 0, searchedBits = 0;
  size_t index = 0;
  for (ir::StreamId s : df.streams()) {
    const int64_t searched =
        index < plan.searchedMinDepths.size() ? plan.searchedMinDepths[index] : 0;
    ++index;
    const ir::Stream &st = df.stream(s);
    const int64_t bits = df.tokenBits(st);
    fifoBits += bits * st.fifoDepth;
    streams.push_back({{"name", st.name},
                       {"from", df.node(st.src.node).name + "." + df.srcPort(st).name},
                       {"to", df.node(st.dst.node).name + "." + df.dstPort(st).name},
                       {"producer", df.node(st.src.node).name},
                       {"consumer", df.node(st.dst.node).name},
                       {"itensor", df.srcPort(st).type.toString()},
                       {"tokens", df.srcPort(st).type.numTokens()},
                       {"token_bits", bits},
                       {"fifo_depth", st.fifoDepth},
                       {"searched_min_depth", searched}});
    searchedBits += std::max<int64_t>(searched, 0) * df.tokenBits(st);
  }
  nlohmann::json report = {{"design", plan.designName},
                           {"device", plan.device.name},
                           {"part", plan.device.part},
                           {"kernel_clock_mhz", plan.device.kernelClockMhz},
                           {"fusion_groups", plan.fusionGroups},
                           {"fifo_mode", plan.fifoMode},
                           {"lp_schedule_cycles", plan.lpScheduleCycles},
                           {"nodes", nodes},
                           {"streams", streams},
                           {"converters", converters},
                           {"converter_bits", converterBits},
                           {"fifo_bits", fifoBits},
                           {"searched_min_fifo_bits", searchedBits},
                           {"deep_fifo_cycles", plan.deepFifoCycles}};
  // The kernel's predicted cycles (start pulse to ap_done) per testbench memory; sim prints the
  // one matching its options beside the measured kernel_cycles.
  report["kernel_cycle_prediction"] = nlohmann::json::array();
  // A design whose depths were forced into a deadlock (--fifo-depth) has none: kernel_cycles is
  // null and "deadlock" says where the timing graph stops.
  for (const plan::KernelCyclePrediction &k : plan.kernelCycles) {
    nlohmann::json entry = {{"memory", k.memory},
                            {"latency", k.timing.readLatency},
                            {"jitter", k.timing.readLatencyJitter},
                            {"ready_probability", k.timing.readyProbability},
                            {"kernel_cycles", nullptr}};
    if (k.cycles)
      entry["kernel_cycles"] = *k.cycles;
    else
      entry["deadlock"] = k.deadlock;
    report["kernel_cycle_prediction"].push_back(entry);
  }
  // Resource estimate of the whole top (GraphPlan::resources) beside the device budget.
  const passes::DeviceConstraints &dev = plan.device;
  addResourceEstimate(plan.resources, report);
  report["resources_available"] = {{"lut", dev.availableLut},
                                   {"ff", dev.availableFf},
                                   {"bram36", dev.availableBram36},
                                   {"dsp", dev.availableDsp},
                                   {"uram", dev.availableUram}};
  return report;
}

void addResourceEstimate(const plan::DesignResources &res, nlohmann::json &report) {
  auto kinds = [](const model::ResourceEstimate &e) {
    return nlohmann::json{
        {"lut", e.lut}, {"ff", e.ff}, {"bram36", e.bram36}, {"dsp", e.dsp}, {"uram", e.uram}};
  };
  report["resource_estimate"] = kinds(res.total);
  report["resource_estimate_fifos"] = kinds(res.fifos);
  std::map<std::string, std::pair<int64_t, model::ResourceEstimate>> byModule;
  for (const plan::DesignResources::Part &part : res.parts) {
    auto &[instances, sum] = byModule[part.module];
    ++instances;
    sum += part.estimate;
  }
  nlohmann::json modules = nlohmann::json::object();
  for (const auto &[module, entry] : byModule) {
    modules[module] = kinds(entry.second);
    modules[module]["instances"] = entry.first;
  }
  report["resource_estimate_by_module"] = modules;
}

std::string reportMarkdown(const nlohmann::json &r) {
  std::ostringstream os;
  os << "# " << r["design"].get<std::string>() << "\n\n"
     << "Device " << r["device"].get<std::string>() << " (" << r["part"].get<std::string>()
     << "), kernel clock " << r["kernel_clock_mhz"].get<int64_t>() << " MHz, "
     << r["fusion_groups"].get<int64_t>() << " fusion group(s).\n\n"
     << "FIFOs sized in mode " << r["fifo_mode"].get<std::string>()
     << "; the LP's schedule (nominal DMAs) takes " << r["lp_schedule_cycles"].get<int64_t>()
     << " cycles.\n\nPredicted kernel cycles (start pulse to ap_done, what `streamtensor sim` "
        "reports as kernel_cycles):";
  for (const auto &k : r.value("kernel_cycle_prediction", nlohmann::json::array()))
    os << " "
       << (k["kernel_cycles"].is_null() ? std::string("none (deadlocks at these depths)")
                                        : std::to_string(k["kernel_cycles"].get<int64_t>()))
       << " under the " << k["memory"].get<std::string>() << " HBM (latency "
       << k["latency"].get<double>() << ", jitter " << k["jitter"].get<double>() << ", ready "
       << k["ready_probability"].get<double>() << ");";
  os << "\n\n## Nodes\n\n"
     << "| node | kind | module | group | ports |\n|---|---|---|---|---|\n";
  for (const auto &n : r["nodes"]) {
    std::string ports;
    for (const auto &p : n["ports"])
      ports += (ports.empty() ? "" : "<br>") + p["direction"].get<std::string>() + " " +
               p["name"].get<std::string>() + ": `" + p["itensor"].get<std::string>() + "`";
    os << "| " << n["name"].get<std::string>() << " | " << n["kind"].get<std::string>() << " | "
       << n["module"].get<std::string>() << " | " << n["fusion_group"].get<int64_t>() << " | "
       << ports << " |\n";
  }
  const bool rtl = r.contains("rtl_search");
  os << "\n## Streams\n\nFIFO depth: the LP's. Searched minimum: the smallest depth that keeps "
     << "the cycles within 2 % of very deep FIFOs in the cycle-level timing simulation (bisection, "
     << "every other FIFO at its LP depth).";
  if (rtl)
    os << " RTL minimum: the same search in Verilator on the generated RTL (`streamtensor sim "
       << "--fifo-search`); -1: even the LP depth misses.";
  os << "\n\n| stream | from | to | itensor | tokens | bits | FIFO depth | searched minimum |"
     << (rtl ? " RTL minimum |" : "") << "\n|---|---|---|---|---|---|---|---|"
     << (rtl ? "---|" : "") << "\n";
  for (const auto &s : r["streams"]) {
    os << "| " << s["name"].get<std::string>() << " | " << s["from"].get<std::string>() << " | "
       << s["to"].get<std::string>() << " | `" << s["itensor"].get<std::string>() << "` | "
       << s["tokens"].get<int64_t>() << " | " << s["token_bits"].get<int64_t>() << " | "
       << s["fifo_depth"].get<int64_t>() << " | " << s["searched_min_depth"].get<int64_t>() << " |";
    if (rtl)
      os << " " << s.value("rtl_searched_min_depth", int64_t{-1}) << " |";
    os << "\n";
  }
  if (rtl) {
    const auto &x = r["rtl_search"];
    os << "\nRTL (Verilator, seed " << x["seed"].get<uint64_t>() << ", " << x["trials"]
       << " runs): " << x["cycles_lp"].get<uint64_t>() << " cycles with the LP depths, "
       << x["cycles_deep"].get<uint64_t>() << " with very deep FIFOs (budget "
       << x["budget_cycles"].get<uint64_t>() << "); FIFO bits: LP " << x["lp_fifo_bits"]
       << ", RTL-searched minima " << x["searched_min_fifo_bits"] << ".\n";
  }
  os << "\n## Converters\n\n";
  if (r["converters"].empty())
    os << "None: every producer streams in its consumers' order.\n";
  else {
    os << "| converter | from | to | buffer elements | phases | ping-pong bits |\n"
       << "|---|---|---|---|---|---|\n";
    for (const auto &c : r["converters"])
      os << "| " << c["name"].get<std::string>() << " | `" << c["from"].get<std::string>()
         << "` | `" << c["to"].get<std::string>() << "` | " << c["buffer_elements"].get<int64_t>()
         << " | " << c["phases"].get<int64_t>() << " | " << c["ping_pong_bits"].get<int64_t>()
         << " |\n";
  }
  os << "\nOn-chip memory: converters " << r["converter_bits"].get<int64_t>() << " bits, FIFOs "
     << r["fifo_bits"].get<int64_t>()
     << " bits (searched minima: " << r["searched_min_fifo_bits"].get<int64_t>()
     << " bits; deep FIFOs take " << r["deep_fifo_cycles"].get<int64_t>()
     << " cycles in the timing simulation).\n";
  if (r.contains("resource_estimate")) {
    os << "\n## Resources\n\nEstimate of the whole top from the templates' resource models "
       << "(kernels, converters, forks, DMA streams, one FIFO per stream, control slave), against "
       << "the device's resources_available:\n\n| resource | estimate | available | share |\n"
       << "|---|---|---|---|\n";
    for (const char *k : {"lut", "ff", "bram36", "uram", "dsp"}) {
      const double est = r["resource_estimate"][k].get<double>();
      const double avail = r["resources_available"][k].get<double>();
      char share[32];
      std::snprintf(share, sizeof share, "%.2f %%", avail > 0 ? 100.0 * est / avail : 0.0);
      os << "| " << k << " | " << r["resource_estimate"][k].dump() << " | "
         << r["resources_available"][k].dump() << " | " << share << " |\n";
    }
  }
  return os.str();
}

} // namespace st::gen
