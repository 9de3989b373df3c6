// Stall picture from a stall report's JSON (see stall_picture.h).
#include "gen/stall_picture.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "support/error.h"

namespace st::gen {

std::string stallColor(double stalled, double starved) {
  stalled = std::clamp(stalled, 0.0, 1.0);
  starved = std::clamp(starved, 0.0, 1.0);
  // Grey (#8c8c8c) at rest; stalls add red and take green and blue, starving adds blue.
  const auto channel = [](double v) { return static_cast<int>(std::clamp(v, 0.0, 255.0) + 0.5); };
  const int r = channel(140 + 115 * stalled - 120 * starved);
  const int g = channel(140 - 120 * std::max(stalled, starved));
  const int b = channel(140 + 115 * starved - 120 * stalled);
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", r, g, b);
  return text;
}

namespace {

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f %%", 100 * fraction);
  return text;
}

/// The node of a report's "producer"/"consumer" ("node.port").
std::string nodeOf(const std::string &end) {
  const size_t dot = end.rfind('.');
  return dot == std::string::npos ? end : end.substr(0, dot);
}

} // namespace

DataflowPicture stallPicture(const nlohmann::json &report, const DataflowPicture *design,
                             const std::string &file) {
  if (!report.is_object() || !report.contains("streams") || !report["streams"].is_array())
    throw Error(file, "streams", "an array of per-stream statistics (a stall report)");
  const double cycles = static_cast<double>(report.value("profiled_cycles", uint64_t{0}));
  DataflowPicture p;
  const bool deadlock = report.value("deadlock", false);
  p.title = "Stall report: " + report.value("top", std::string("?")) + "\n" +
            std::to_string(report.value("profiled_cycles", uint64_t{0})) +
            " cycles from ap_start to " + (deadlock ? "the deadlock" : "ap_done") + ", seed " +
            std::to_string(report.value("seed", uint64_t{0}));
  std::set<std::string> waiting; // streams of the watchdog's wait-for cycle
  if (report.contains("watchdog"))
    for (const auto &w : report["watchdog"].value("wait_cycle", nlohmann::json::array()))
      waiting.insert(w.value("stream", std::string()));
  std::set<std::string> seen;
  auto addNode = [&](const std::string &name) {
    if (!seen.insert(name).second)
      return;
    DataflowPicture::Node n;
    n.name = name;
    if (design)
      for (const DataflowPicture::Node &known : design->nodes)
        if (known.name == name)
          n = known;
    p.nodes.push_back(n);
  };
  size_t index = 0;
  for (const auto &s : report["streams"]) {
    const std::string where = "streams[" + std::to_string(index++) + "]";
    for (const char *key : {"name", "producer", "consumer", "stalled_on_ready", "starved_on_valid",
                            "fifo_high_water", "fifo_depth"})
      if (!s.contains(key))
        throw Error(file, where + "." + key, "a stall-report field (the key is missing)");
    const std::string name = s["name"].get<std::string>();
    const double stalled = cycles > 0 ? s["stalled_on_ready"].get<double>() / cycles : 0;
    const double starved = cycles > 0 ? s["starved_on_valid"].get<double>() / cycles : 0;
    DataflowPicture::Edge e;
    e.from = nodeOf(s["producer"].get<std::string>());
    e.to = nodeOf(s["consumer"].get<std::string>());
    addNode(e.from);
    addNode(e.to);
    e.label = name + "\nstalled " + percent(stalled) + ", starved " + percent(starved) + "\nFIFO " +
              s["fifo_high_water"].dump() + " / " + s["fifo_depth"].dump();
    e.color = stallColor(stalled, starved);
    e.width = 1 + 5 * std::max(stalled, starved);
    if (waiting.count(name)) {
      e.bold = true;
      e.width = std::max(e.width, 4.0);
      e.label += "\nin the deadlock's wait-for cycle";
    }
    p.edges.push_back(e);
  }
  p.legend = {
      "Stream colour and width:",
      "red: share of the run's cycles stalled on ready (FIFO full: back-pressure)",
      "blue: share of the run's cycles starved on valid (FIFO empty: waiting on the producer)",
      "grey: neither; the pen grows with the larger share",
      "Label: stream, both shares, FIFO high-water mark / depth"};
  if (deadlock)
    p.legend.push_back("bold: the streams of the deadlock's wait-for cycle");
  return p;
}

} // namespace st::gen
