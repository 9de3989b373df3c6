// Stall report: one simulation run's per-stream statistics as JSON and Markdown.
#include "gen/stall_report.h"

#include <sstream>

namespace st::gen {

nlohmann::json stallReportJson(const nlohmann::json &simResult) {
  nlohmann::json report;
  for (const char *key : {"top", "seed", "cycles", "bit_exact", "deadlock", "profiled_cycles",
                          "watchdog", "blocked_at_timeout", "error"})
    if (simResult.contains(key))
      report[key] = simResult.at(key);
  report["streams"] = simResult.value("streams", nlohmann::json::array());
  return report;
}

std::string stallReportMarkdown(const nlohmann::json &report) {
  std::ostringstream os;
  const uint64_t cycles = report.value("profiled_cycles", uint64_t{0});
  os << "# Stall report: " << report.value("top", std::string("?")) << "\n\n"
     << "Seed " << report.value("seed", uint64_t{0}) << ", " << cycles
     << " cycles from ap_start to "
     << (report.value("deadlock", false) ? "the deadlock" : "ap_done") << ", "
     << (report.value("bit_exact", false) ? "bit-exact" : "NOT bit-exact") << ".\n\n";
  if (report.contains("watchdog")) {
    os << "**Deadlock.** " << report["watchdog"].value("message", std::string()) << "\n\n";
    const nlohmann::json cycle = report["watchdog"].value("wait_cycle", nlohmann::json::array());
    if (!cycle.empty()) {
      os << "Wait-for cycle (each kernel waits for the next):\n\n";
      for (const auto &c : cycle)
        os << "1. " << c["kernel"].get<std::string>() << " waits for "
           << c["waits_for"].get<std::string>() << " (" << c["stream"].get<std::string>() << ", "
           << c["because"].get<std::string>() << ")\n";
      os << "\nEvery stream with a stalled handshake:\n\n";
    }
    for (const auto &w : report["watchdog"].value("blocked_writers", nlohmann::json::array()))
      os << "- kernel " << w["kernel"].get<std::string>() << " blocked writing stream "
         << w["stream"].get<std::string>() << " into kernel " << w["consumer"].get<std::string>()
         << " (FIFO " << w["fifo_count"] << "/" << w["fifo_depth"] << ")\n";
    for (const auto &r : report["watchdog"].value("waiting_readers", nlohmann::json::array()))
      os << "- kernel " << r["kernel"].get<std::string>() << " waiting on stream "
         << r["stream"].get<std::string>() << " from kernel " << r["producer"].get<std::string>()
         << " (FIFO empty, " << r["received"] << " of " << r["tokens"] << " tokens)\n";
    os << "\n";
  }
  if (report.contains("blocked_at_timeout"))
    os << "**No ap_done within --timeout.** At the timeout: "
       << report["blocked_at_timeout"].value("summary", std::string()) << "\n\n";
  os << "Per stream, on the producer side of its FIFO: *stalled* = cycles with valid && !ready "
        "(the FIFO was full: back-pressure from the consumer); on the consumer side: *starved* "
        "= cycles with ready && !valid (the FIFO was empty: waiting on the producer). "
        "*High-water* = the most tokens the FIFO held.\n\n"
     << "| stream | producer -> consumer | transfers / tokens | stalled on ready | starved on "
        "valid | FIFO high-water / depth |\n"
     << "|---|---|---|---|---|---|\n";
  for (const auto &s : report.value("streams", nlohmann::json::array())) {
    auto pct = [&](uint64_t v) {
      std::ostringstream p;
      p << v;
      if (cycles > 0)
        p << " (" << (100 * v + cycles / 2) / cycles << " %)";
      return p.str();
    };
    os << "| " << s["name"].get<std::string>() << " | " << s["producer"].get<std::string>()
       << " -> " << s["consumer"].get<std::string>() << " | " << s["transfers"] << " / "
       << s["tokens"] << " | " << pct(s["stalled_on_ready"].get<uint64_t>()) << " | "
       << pct(s["starved_on_valid"].get<uint64_t>()) << " | " << s["fifo_high_water"] << " / "
       << s["fifo_depth"] << (s["fifo_high_water"] == s["fifo_depth"] ? " (full)" : "") << " |\n";
  }
  return os.str();
}

} // namespace st::gen
