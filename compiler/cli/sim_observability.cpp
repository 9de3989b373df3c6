// Stall report and waveform view of a `streamtensor sim` run (see sim_observability.h).
#include "cli/sim_observability.h"

#include <fstream>
#include <iostream>
#include <vector>

#include "cli/pictures.h"
#include "gen/stall_report.h"
#include "gen/stream_probes.h"
#include "support/error.h"

namespace st::cli {

namespace fs = std::filesystem;

std::string writeStallReport(const fs::path &simDir, const nlohmann::json &result) {
  if (!result.contains("streams"))
    return "";
  const nlohmann::json stall = gen::stallReportJson(result);
  const std::string markdown = gen::stallReportMarkdown(stall);
  fs::create_directories(simDir);
  std::ofstream(simDir / "stall_report.json") << stall.dump(2) << "\n";
  std::ofstream(simDir / "stall_report.md") << markdown;
  // The picture is drawn from the JSON just written (so any report can be drawn again).
  const std::string note = writeStallPicture(simDir, simDir.parent_path());
  if (!note.empty())
    std::cerr << "streamtensor sim: note: " << note << "\n";
  return markdown;
}

std::string writeWaveformView(const fs::path &manifestPath, const std::string &top,
                              const fs::path &tracePath) {
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(std::ifstream(manifestPath));
  } catch (const nlohmann::json::exception &e) {
    throw Error(manifestPath.string(), "JSON", std::string("valid JSON (") + e.what() + ")");
  }
  const std::vector<gen::StreamProbe> probes = gen::streamProbesFromJson(
      manifest.value("streams", nlohmann::json::array()), manifestPath.string());
  fs::path save = tracePath;
  save.replace_extension(".gtkw");
  std::ofstream(save) << gen::gtkwaveSaveFile(probes, "dut." + top, tracePath.string(),
                                              save.string());
  return "waveform: gtkwave " + tracePath.string() + " " + save.string() + "\n";
}

} // namespace st::cli
