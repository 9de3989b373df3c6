// DesignCheck (see design_check.h): the manifest readers and the checks of a design directory
// that `streamtensor sim` runs before it builds the testbench.
#include "cli/design_check.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gen/hbm_image.h"
#include "support/error.h"

namespace st::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char *kLlmDesignFormat = "streamtensor-llm-design-1";
constexpr const char *kLlmRunFormat = "streamtensor-llm-run-1";
constexpr const char *kRecompile = " (compile the design again)";

std::string readText(const fs::path &path, const std::string &what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error(path.string(), "file", what + ", got no such file" + kRecompile);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in)
    throw Error(path.string(), "file", what + " (cannot read it)");
  return text.str();
}

json parseJson(const std::string &text, const std::string &file) {
  try {
    return json::parse(text);
  } catch (const json::exception &e) {
    throw Error(file, "JSON", std::string("valid JSON (") + e.what() + ")");
  }
}

/// Typed access to the fields of one manifest, every failure an st::Error naming `file`.
struct Fields {
  std::string file;

  const json &at(const json &object, const std::string &key, const std::string &where) const {
    if (!object.is_object())
      throw Error(file, where.empty() ? "(top level)" : where, "an object, got " + kind(object));
    const auto it = object.find(key);
    if (it == object.end())
      throw Error(file, where + key, "a value (it is missing)");
    return *it;
  }
  std::string text(const json &object, const std::string &key, const std::string &where) const {
    const json &v = at(object, key, where);
    if (!v.is_string())
      throw Error(file, where + key, "a string, got " + kind(v));
    return v.get<std::string>();
  }
  int64_t integer(const json &object, const std::string &key, const std::string &where,
                  int64_t min) const {
    const json &v = at(object, key, where);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
      throw Error(file, where + key, "an integer, got " + kind(v));
    const int64_t x = v.get<int64_t>();
    if (x < min)
      throw Error(file, where + key,
                  "an integer >= " + std::to_string(min) + ", got " + std::to_string(x));
    return x;
  }
  bool boolean(const json &object, const std::string &key, const std::string &where) const {
    const json &v = at(object, key, where);
    if (!v.is_boolean())
      throw Error(file, where + key, "true or false, got " + kind(v));
    return v.get<bool>();
  }
  const json &array(const json &object, const std::string &key, const std::string &where) const {
    const json &v = at(object, key, where);
    if (!v.is_array())
      throw Error(file, where + key, "an array, got " + kind(v));
    return v;
  }
  /// A short description of a value for messages (never the whole of a large value).
  static std::string kind(const json &v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    return s.size() > 40 ? v.type_name() : s;
  }
};

/// An existing regular file of exactly `bytes` bytes.
void requireSizedFile(const fs::path &path, int64_t bytes, const std::string &what,
                      const std::string &named) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw Error(path.string(), "file", what + " (" + named + "), got no such file" + kRecompile);
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size != static_cast<uintmax_t>(bytes))
    throw Error(path.string(), "size",
                std::to_string(bytes) + " bytes (" + named + "), got " +
                    (ec ? ec.message() : std::to_string(size)) +
                    (size < static_cast<uintmax_t>(bytes) ? " (truncated)" : "") + kRecompile);
}

/// rtl/filelist.f and its files, the top among them, and every absolute `.mem` path the top
/// names (the $readmemh tables the compiler wrote beside the design).
void checkRtl(const fs::path &rtlDir, const std::string &top) {
  const fs::path filelist = rtlDir / "filelist.f";
  std::istringstream lines(
      readText(filelist, "the RTL file list written by 'streamtensor compile'"));
  bool haveTop = false;
  int lineNumber = 0;
  for (std::string line; std::getline(lines, line);) {
    ++lineNumber;
    if (line.empty() || line[0] == '#' || line.rfind("//", 0) == 0)
      continue;
    const fs::path file = fs::path(line).is_absolute() ? fs::path(line) : rtlDir / line;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw Error(filelist.string(), "line " + std::to_string(lineNumber),
                  "an existing RTL file, got '" + line + "' (missing)" + kRecompile);
    haveTop = haveTop || fs::path(line).filename() == top + ".sv";
  }
  if (!haveTop)
    throw Error(filelist.string(), "top", "the top module's file " + top + ".sv in the list");
  const fs::path topFile = rtlDir / (top + ".sv");
  const std::string text = readText(topFile, "the design's top");
  static const std::regex table("\"(/[^\"\\n]*\\.mem)\"");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), table);
       it != std::sregex_iterator(); ++it) {
    const std::string path = (*it)[1].str();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw Error(topFile.string(), "$readmemh table",
                  "an existing file, got '" + path +
                      "' (missing; a design directory that was moved must be compiled again at "
                      "its new place)");
  }
}

/// The testbench sources `sim` builds.
void checkTestbenchSources(const fs::path &tb) {
  for (const char *name : {"CMakeLists.txt", "tb_main.cpp"})
    readText(tb / name,
             std::string("the testbench's ") + name + " written by 'streamtensor compile'");
}

/// `<design>/sim`, where sim writes its results, is a directory if it exists.
void checkSimDirectory(const fs::path &dir) {
  std::error_code ec;
  const fs::path sim = dir / "sim";
  if (fs::exists(fs::symlink_status(sim, ec)) && !fs::is_directory(sim, ec))
    throw Error(sim.string(), "sim",
                "a directory for the run's results (streamtensor sim writes there), got a file; "
                "nothing was changed");
}

} // namespace

LlmDesignManifest parseLlmDesignManifest(const std::string &text, const std::string &file) {
  const json j = parseJson(text, file);
  const Fields f{file};
  if (!j.is_object())
    throw Error(file, "(top level)", "a JSON object, got " + Fields::kind(j));
  if (f.text(j, "format", "") != kLlmDesignFormat)
    throw Error(file, "format",
                std::string("\"") + kLlmDesignFormat + "\", got " + Fields::kind(j.at("format")));
  LlmDesignManifest d;
  d.top = f.text(j, "top", "");
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_$]*");
  if (!std::regex_match(d.top, identifier))
    throw Error(file, "top", "a SystemVerilog module name, got '" + d.top + "'");
  d.modelDir = f.text(j, "model_dir", "");
  d.precision = f.text(j, "precision", "");
  if (d.precision != "w4a8" && d.precision != "w8a8" && d.precision != "w8a16")
    throw Error(file, "precision", "w4a8, w8a8 or w8a16, got '" + d.precision + "'");
  d.maxContext = f.integer(j, "max_context", "", 1);
  if (j.contains("vocab_size"))
    d.vocabSize = f.integer(j, "vocab_size", "", 1);
  if (j.contains("attention_tile_positions"))
    d.attentionTilePositions = f.integer(j, "attention_tile_positions", "", 0);
  const json &args = f.array(j, "args", "");
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string where = "args[" + std::to_string(i) + "].";
    LlmDesignArg a;
    a.name = f.text(args[i], "name", where);
    a.offset = f.integer(args[i], "offset", where, 0);
    a.pointer = f.boolean(args[i], "pointer", where);
    if (args[i].contains("buffer")) {
      a.buffer = f.text(args[i], "buffer", where);
      a.address = f.integer(args[i], "address", where, 0);
    }
    d.args.push_back(std::move(a));
  }
  return d;
}

LlmDesignManifest readLlmDesignManifest(const fs::path &path) {
  return parseLlmDesignManifest(readText(path, "the design.json 'streamtensor compile' writes"),
                                path.string());
}

GraphDesignManifest parseGraphDesignManifest(const std::string &text, const std::string &file) {
  const json j = parseJson(text, file);
  const Fields f{file};
  GraphDesignManifest m;
  m.top = f.text(j, "top", "");
  const json &buffers = f.array(j, "buffers", "");
  for (size_t i = 0; i < buffers.size(); ++i) {
    const std::string where = "buffers[" + std::to_string(i) + "].";
    GraphDesignBuffer b;
    b.name = f.text(buffers[i], "name", where);
    b.role = f.text(buffers[i], "role", where);
    if (b.role != "input" && b.role != "output" && b.role != "scratch")
      throw Error(file, where + "role", "input, output or scratch, got '" + b.role + "'");
    b.bytes = f.integer(buffers[i], "bytes", where, 0);
    b.file = f.text(buffers[i], "file", where);
    if (b.role != "scratch" && b.file.empty())
      throw Error(file, where + "file", "the data file of an " + b.role + " buffer");
    m.buffers.push_back(std::move(b));
  }
  return m;
}

LlmDesignManifest checkLlmDesignDirectory(const fs::path &dir) {
  const LlmDesignManifest d = readLlmDesignManifest(dir / "design.json");
  const std::string designFile = (dir / "design.json").string();
  const fs::path tb = dir / "tb";
  checkTestbenchSources(tb);

  // tb/llm_run.json: what the testbench loads; it must describe the same design.
  const std::string runFile = (tb / "llm_run.json").string();
  const json run =
      parseJson(readText(runFile, "the testbench manifest 'streamtensor compile' writes"), runFile);
  const Fields r{runFile};
  if (r.text(run, "format", "") != kLlmRunFormat)
    throw Error(runFile, "format", std::string("\"") + kLlmRunFormat + "\"");
  if (r.text(run, "top", "") != d.top)
    throw Error(runFile, "top", "'" + d.top + "' as in " + designFile);
  if (r.integer(run, "max_context", "", 1) != d.maxContext)
    throw Error(runFile, "max_context", std::to_string(d.maxContext) + " as in " + designFile);
  for (const json &e : r.array(run, "dump", "")) {
    const std::string name = r.text(e, "name", "dump[].");
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      throw Error(runFile, "dump[].name", "a file stem without '/', got '" + name + "'");
    r.integer(e, "address", "dump[].", 0);
    r.integer(e, "bytes", "dump[].", 0);
  }

  // hbm/manifest.json against design.json.
  const fs::path manifestPath = dir / "hbm" / "manifest.json";
  const plan::HbmImagePlan plan = gen::readHbmManifest(manifestPath.string());
  const std::string manifestFile = manifestPath.string();
  if (plan.precision != d.precision)
    throw Error(manifestFile, "precision",
                "'" + d.precision + "' as in " + designFile + ", got '" + plan.precision +
                    "' (the image belongs to another compile)");
  if (plan.maxContext != d.maxContext)
    throw Error(manifestFile, "max_context",
                std::to_string(d.maxContext) + " as in " + designFile + ", got " +
                    std::to_string(plan.maxContext) + " (the image belongs to another compile)");
  std::map<std::string, const plan::HbmBuffer *> buffers;
  for (const plan::HbmBuffer &b : plan.buffers)
    buffers[b.name] = &b;
  for (const LlmDesignArg &a : d.args) {
    if (a.buffer.empty())
      continue;
    const auto it = buffers.find(a.buffer);
    if (it == buffers.end())
      throw Error(manifestFile, "buffers",
                  "the buffer '" + a.buffer + "' of argument '" + a.name + "' in " + designFile +
                      " (the image belongs to another compile)");
    if (it->second->address != a.address)
      throw Error(manifestFile, "buffer '" + a.buffer + "' address",
                  std::to_string(a.address) + " as argument '" + a.name + "' in " + designFile +
                      ", got " + std::to_string(it->second->address) +
                      " (the image belongs to another compile)");
  }
  for (const json &a : r.array(run, "args", "")) {
    const std::string name = r.text(a, "name", "args[].");
    if (!a.contains("address"))
      continue;
    const int64_t address = r.integer(a, "address", "args[].", 0);
    bool found = false;
    for (const LlmDesignArg &da : d.args)
      if (da.name == name) {
        found = true;
        if (da.address != address)
          throw Error(runFile, "args '" + name + "' address",
                      std::to_string(da.address) + " as in " + designFile + ", got " +
                          std::to_string(address));
      }
    if (!found)
      throw Error(runFile, "args '" + name + "'", "an argument of " + designFile);
  }

  // The HBM image: every used channel's file, whole.
  for (size_t c = 0; c < plan.channelBytes.size(); ++c) {
    if (plan.channelBytes[c] <= 0)
      continue;
    char name[32];
    std::snprintf(name, sizeof name, "hbm_pc%02zu.bin", c);
    requireSizedFile(dir / "hbm" / name, plan.channelBytes[c],
                     "the HBM image of channel " + std::to_string(c),
                     "as " + manifestFile + " lists");
  }
  for (const json &e : r.array(run, "files", "")) {
    const std::string path = r.text(e, "path", "files[].");
    const int64_t address = r.integer(e, "address", "files[].", 0);
    const int64_t c = address / plan.device.pseudoChannelBytes;
    if (address % plan.device.pseudoChannelBytes != 0 ||
        c >= static_cast<int64_t>(plan.channelBytes.size()) ||
        plan.channelBytes[static_cast<size_t>(c)] <= 0)
      throw Error(runFile, "files '" + path + "' address",
                  "the start of a channel the image uses in " + manifestFile + ", got " +
                      std::to_string(address));
    requireSizedFile(tb / path, plan.channelBytes[static_cast<size_t>(c)],
                     "the HBM image of channel " + std::to_string(c), "as " + runFile + " lists");
  }
  checkRtl(dir / "rtl", d.top);
  checkSimDirectory(dir);
  return d;
}

GraphDesignManifest checkGraphDesignDirectory(const fs::path &dir, bool fifoSearch) {
  const fs::path base = fifoSearch ? dir / "search" : dir;
  const fs::path tb = base / "tb";
  const std::string written =
      fifoSearch ? "'streamtensor compile --fifo-search'" : "'streamtensor compile'";
  readText(tb / "CMakeLists.txt", "the testbench's CMakeLists.txt written by " + written);
  const std::string manifestFile = (tb / "design.json").string();
  const GraphDesignManifest m = parseGraphDesignManifest(
      readText(manifestFile, "the design manifest written by " + written), manifestFile);
  checkTestbenchSources(tb);
  for (const GraphDesignBuffer &b : m.buffers)
    if (!b.file.empty())
      requireSizedFile(tb / b.file, b.bytes, "the data of buffer '" + b.name + "'",
                       "as " + manifestFile + " lists");
  checkRtl(base / "rtl", m.top);
  checkSimDirectory(dir);
  return m;
}

} // namespace st::cli
