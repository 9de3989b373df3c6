// dataflow.svg and sim/stall_report.svg of a design directory (see pictures.h).
#include "cli/pictures.h"

#include <cstdlib>
#include <fstream>
#include <optional>

#include "cli/subprocess.h"
#include "gen/stall_picture.h"
#include "support/error.h"
#include "support/text_file.h"

namespace st::cli {

namespace fs = std::filesystem;

namespace {

nlohmann::json readJson(const fs::path &file) {
  std::ifstream in(file);
  if (!in)
    throw Error(file.string(), "file", "a readable JSON file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw Error(file.string(), "JSON", std::string("valid JSON (") + e.what() + ")");
  }
}

const nlohmann::json &member(const nlohmann::json &j, const char *key, const std::string &where,
                             const std::string &file) {
  if (!j.is_object() || !j.contains(key))
    throw Error(file, where.empty() ? key : where + "." + key, "a report key (it is missing)");
  return j[key];
}

/// Box kind of a report node: the graph report's "kind" or the LLM report's "role".
std::string kindOf(const nlohmann::json &node) {
  const std::string k = node.value("kind", node.value("role", std::string("kernel")));
  if (k == "read_dma" || k == "write_dma" || k == "weight stream" || k == "kv cache read" ||
      k == "kv append" || k == "debug tap" || k == "prompt read" || k == "token write")
    return "dma";
  if (k == "fork" || k == "converter" || k == "view")
    return k;
  if (k == "token source" || k == "layer loop" || k == "position source")
    return "control";
  return "kernel";
}

/// An itensor's text broken before iter_space and iter_map, so edge labels stay narrow.
std::string wrapped(std::string itensor) {
  for (const char *part : {" iter_space:", " iter_map:"}) {
    const size_t at = itensor.find(part);
    if (at != std::string::npos)
      itensor[at] = '\n';
  }
  return itensor;
}

std::string writeText(const fs::path &path, const std::string &text) {
  writeTextFile(path, text);
  return path.string();
}

} // namespace

gen::DataflowPicture dataflowPictureOfReport(const nlohmann::json &report,
                                             const std::string &file) {
  gen::DataflowPicture p;
  const std::string design = report.value("design", std::string("design"));
  p.title = design;
  if (report.contains("architecture"))
    p.title += " (" + report["architecture"].get<std::string>() + ", " +
               report.value("precision", std::string()) + ")";
  const nlohmann::json &nodes = member(report, "nodes", "", file);
  const nlohmann::json &streams = member(report, "streams", "", file);
  p.title += "\n" + std::to_string(nodes.size()) + " nodes, " + std::to_string(streams.size()) +
             " streams; edge labels: itensor type, FIFO depth";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = "nodes[" + std::to_string(i) + "]";
    gen::DataflowPicture::Node n;
    n.name = member(nodes[i], "name", where, file).get<std::string>();
    n.detail = nodes[i].value("module", std::string());
    n.group = member(nodes[i], "group", where, file).get<std::string>();
    n.kind = kindOf(nodes[i]);
    p.nodes.push_back(n);
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    const std::string where = "streams[" + std::to_string(i) + "]";
    const nlohmann::json &s = streams[i];
    gen::DataflowPicture::Edge e;
    e.from = member(s, "producer", where, file).get<std::string>();
    e.to = member(s, "consumer", where, file).get<std::string>();
    e.label = wrapped(member(s, "itensor", where, file).get<std::string>()) + "\nFIFO depth " +
              member(s, "fifo_depth", where, file).dump();
    p.edges.push_back(e);
  }
  const nlohmann::json &masters = member(report, "axi_masters", "", file);
  for (size_t i = 0; i < masters.size(); ++i) {
    const std::string where = "axi_masters[" + std::to_string(i) + "]";
    gen::DataflowPicture::HbmPort h;
    h.port = member(masters[i], "port", where, file).get<std::string>();
    h.node = member(masters[i], "node", where, file).get<std::string>();
    h.read = masters[i].value("read", true);
    h.channels = member(masters[i], "hbm_channels", where, file).get<std::vector<int64_t>>();
    p.hbmPorts.push_back(h);
  }
  return p;
}

std::string renderSvg(const fs::path &dot, const fs::path &svg) {
  const char *program = std::getenv("ST_GRAPHVIZ_DOT");
  const std::string tool = program && *program ? program : "dot";
  std::string out;
  if (runCapture("command -v " + shellQuote(tool) + " >/dev/null 2>&1", out) != 0)
    return "wrote " + dot.string() + "; no " + svg.filename().string() + ": Graphviz '" + tool +
           "' is not installed (apt-get install graphviz), render it with: dot -Tsvg " +
           dot.string() + " -o " + svg.string();
  fs::remove(svg);
  const int rc = runCapture(shellQuote(tool) + " -Tsvg " + shellQuote(dot.string()) + " -o " +
                                shellQuote(svg.string()) + " 2>&1",
                            out);
  if (rc != 0 || !fs::exists(svg))
    return "wrote " + dot.string() + "; '" + tool + " -Tsvg' failed (exit " + std::to_string(rc) +
           "): " + out;
  return "";
}

std::string writeDataflowPicture(const fs::path &designDir) {
  const fs::path report = designDir / "report.json";
  const gen::DataflowPicture p = dataflowPictureOfReport(readJson(report), report.string());
  const fs::path dot = designDir / "dataflow.dot";
  writeText(dot, gen::dataflowDot(p));
  return renderSvg(dot, designDir / "dataflow.svg");
}

std::string writeStallPicture(const fs::path &simDir, const fs::path &designDir) {
  const fs::path stallFile = simDir / "stall_report.json";
  const fs::path reportFile = designDir / "report.json";
  std::optional<gen::DataflowPicture> design;
  if (fs::exists(reportFile))
    design = dataflowPictureOfReport(readJson(reportFile), reportFile.string());
  const gen::DataflowPicture p =
      gen::stallPicture(readJson(stallFile), design ? &*design : nullptr, stallFile.string());
  const fs::path dot = simDir / "stall_report.dot";
  writeText(dot, gen::dataflowDot(p));
  return renderSvg(dot, simDir / "stall_report.svg");
}

} // namespace st::cli
