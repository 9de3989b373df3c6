// OutputDirectory (see output_directory.h): the refusal rules, the staging directory and the
// atomic swap of a finished output directory into place.
#include "cli/output_directory.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <pwd.h>
#include <regex>
#include <set>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace st::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char *kTool = "streamtensor";
/// In a staging directory while it is written: the writing process, so that a later run can
/// remove the staging directory of a run that was killed (its process gone).
constexpr const char *kStagingMarker = ".streamtensor-staging";

const char *kindName(OutputKind kind) {
  return kind == OutputKind::Design ? "design" : "hbm-image";
}

/// What a user calls a directory of this kind.
std::string kindDescription(OutputKind kind) {
  return kind == OutputKind::Design ? "a design directory written by 'streamtensor compile'"
                                    : "an HBM image directory written by 'streamtensor hbm-image'";
}

/// The JSON object in `file`, or null when it is missing or not JSON.
nlohmann::json readJsonOrNull(const fs::path &file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return nullptr;
  std::ifstream in(file);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

/// An absolute, lexically normal path without a trailing separator ("out/" -> "/cwd/out").
fs::path normalized(const fs::path &p) {
  fs::path n = fs::absolute(p).lexically_normal();
  if (n.filename().empty() && n.has_parent_path() && n != n.root_path())
    n = n.parent_path();
  return n;
}

/// True when `ancestor` is `p` or one of its parent directories (both canonical).
bool containsOrIs(const fs::path &ancestor, const fs::path &p) {
  auto a = ancestor.begin(), b = p.begin();
  for (; a != ancestor.end(); ++a, ++b)
    if (b == p.end() || *a != *b)
      return false;
  return true;
}

/// The canonical form of `p` when it exists, else nothing.
std::optional<fs::path> canonicalIfExists(const std::string &p) {
  if (p.empty())
    return std::nullopt;
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  if (ec)
    return std::nullopt;
  return c;
}

/// The directories that are never replaced, with how to name them in a message: the current
/// directory, the home directory ($HOME and the password database's) and the root.
std::vector<std::pair<fs::path, std::string>> protectedDirectories() {
  std::vector<std::pair<fs::path, std::string>> dirs;
  dirs.emplace_back(fs::path("/"), "the root directory");
  std::error_code ec;
  if (auto cwd = canonicalIfExists(fs::current_path(ec).string()))
    dirs.emplace_back(*cwd, "the current directory");
  if (const char *home = std::getenv("HOME"))
    if (auto h = canonicalIfExists(home))
      dirs.emplace_back(*h, "the home directory");
  if (const passwd *pw = ::getpwuid(::getuid()))
    if (pw->pw_dir)
      if (auto h = canonicalIfExists(pw->pw_dir))
        dirs.emplace_back(*h, "the home directory");
  return dirs;
}

std::string fileTypeName(fs::file_type t) {
  switch (t) {
  case fs::file_type::regular:
    return "an existing regular file";
  case fs::file_type::symlink:
    return "a symbolic link";
  case fs::file_type::block:
    return "a block device";
  case fs::file_type::character:
    return "a character device";
  case fs::file_type::fifo:
    return "a named pipe";
  case fs::file_type::socket:
    return "a socket";
  default:
    return "an existing file that is not a directory";
  }
}

std::string listed(const std::vector<std::string> &names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 5; ++i)
    s += (i ? ", " : "") + names[i];
  if (names.size() > 5)
    s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

/// Top-level entries of designs and images written before the marker existed.
bool legacyEntry(OutputKind kind, const std::string &name) {
  static const std::set<std::string> design = {
      "rtl",  "tb",     "hbm",         "include",   "vitis",       "vivado",
      "host", "search", "report.json", "report.md", "design.json", "dataflow.txt"};
  if (kind == OutputKind::Design)
    return design.count(name) > 0;
  static const std::regex image(R"(manifest\.json|hbm_pc[0-9]+\.bin|rope_.*\.mem)");
  return std::regex_match(name, image);
}

/// The error for a request refused at `request.path`.
Error refused(const OutputRequest &request, const std::string &got, bool forceHelps) {
  const std::string expected =
      request.kind == OutputKind::Design
          ? "a new or empty directory, or a design directory streamtensor wrote"
          : "a new or empty directory, or an HBM image directory streamtensor wrote";
  return Error(request.path, request.option,
               expected + ", got " + got + "; nothing was changed (choose another path" +
                   (forceHelps ? ", or pass --force to replace it)" : ")"));
}

/// Every top-level name in `dir`, sorted.
std::vector<std::string> entriesOf(const fs::path &dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

/// Removes the staging directories beside `target` left by runs that were killed: named
/// `<target name>.partial-*`, holding the staging marker of a process of this host that no
/// longer exists. Anything else with such a name is left alone.
void removeStaleStaging(const fs::path &target) {
  const std::string prefix = target.filename().string() + ".partial-";
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(target.parent_path(), ec)) {
    if (e.path().filename().string().rfind(prefix, 0) != 0)
      continue;
    const nlohmann::json marker = readJsonOrNull(e.path() / kStagingMarker);
    if (!marker.is_object() || marker.value("tool", "") != kTool ||
        marker.value("host", "") != hostName() || !marker.contains("pid") ||
        !marker["pid"].is_number_integer())
      continue;
    const pid_t pid = static_cast<pid_t>(marker["pid"].get<int64_t>());
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
      fs::remove_all(e.path(), ec);
  }
}

/// renameat2(2) with `flags`; false with errno when the call or the flag is unsupported.
bool renameWithFlags(const fs::path &from, const fs::path &to, unsigned flags) {
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) == 0;
}

} // namespace

std::optional<OutputKind> outputKindOf(const fs::path &dir) {
  const nlohmann::json marker = readJsonOrNull(dir / kOutputMarker);
  if (marker.is_object())
    if (marker.value("tool", "") == kTool) {
      const std::string kind = marker.value("kind", "");
      if (kind == kindName(OutputKind::Design))
        return OutputKind::Design;
      if (kind == kindName(OutputKind::HbmImage))
        return OutputKind::HbmImage;
    }
  // Written before the marker: the manifests name the tool's formats.
  const nlohmann::json llm = readJsonOrNull(dir / "design.json");
  if (llm.is_object() && llm.value("format", "") == "streamtensor-llm-design-1")
    return OutputKind::Design;
  const nlohmann::json graph = readJsonOrNull(dir / "tb" / "design.json");
  std::error_code ec;
  if (graph.is_object() && graph.contains("top") && graph["top"].is_string() &&
      graph.contains("buffers") && graph["buffers"].is_array() &&
      fs::is_regular_file(dir / "report.json", ec))
    return OutputKind::Design;
  const nlohmann::json image = readJsonOrNull(dir / "manifest.json");
  if (image.is_object() && image.value("format", "") == "streamtensor-hbm-image-1")
    return OutputKind::HbmImage;
  return std::nullopt;
}

std::vector<std::string> foreignEntries(const fs::path &dir, OutputKind kind) {
  std::set<std::string> written;
  bool haveList = false;
  const nlohmann::json marker = readJsonOrNull(dir / kOutputMarker);
  if (marker.is_object() && marker.contains("entries") && marker["entries"].is_array()) {
    haveList = true;
    for (const auto &e : marker["entries"])
      if (e.is_string())
        written.insert(e.get<std::string>());
  }
  std::vector<std::string> foreign;
  for (const fs::directory_entry &e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == kOutputMarker || name == kStagingMarker ||
        (kind == OutputKind::Design && name == "sim"))
      continue;
    if (haveList ? written.count(name) == 0 : !legacyEntry(kind, name))
      foreign.push_back(name);
  }
  std::sort(foreign.begin(), foreign.end());
  return foreign;
}

void checkOutputTarget(const OutputRequest &request) {
  if (request.path.empty())
    throw Error(request.command, request.option, "a directory path, got an empty one");
  const fs::path path = normalized(request.path);
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (!fs::exists(link))
    return; // a new directory
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_symlink(link) && !fs::exists(status))
    throw refused(request, "a symbolic link to a path that does not exist", false);
  const fs::path real = fs::canonical(path);
  for (const auto &[dir, name] : protectedDirectories())
    if (containsOrIs(real, dir))
      throw Error(request.path, request.option,
                  "a directory other than " + name + " (" + dir.string() +
                      ") or one that contains it, got " + real.string() +
                      "; such a directory is never replaced, even with --force");
  for (const std::string &input : request.inputs)
    if (auto in = canonicalIfExists(input))
      if (containsOrIs(real, *in))
        throw Error(request.path, request.option,
                    "a directory other than the input " + input +
                        " or one that contains it; the input is never replaced, even with "
                        "--force");
  if (!fs::is_directory(status))
    throw refused(request, fileTypeName(status.type()), false);
  if (fs::is_empty(real))
    return;
  const std::optional<OutputKind> kind = outputKindOf(real);
  if (request.force)
    return;
  if (!kind)
    throw refused(request,
                  "a directory that streamtensor did not write (it holds " +
                      listed(entriesOf(real)) + ")",
                  true);
  if (*kind != request.kind)
    throw refused(request, kindDescription(*kind), true);
  const std::vector<std::string> foreign = foreignEntries(real, *kind);
  if (!foreign.empty())
    throw refused(request,
                  kindDescription(*kind) + " that also holds entries streamtensor did not write (" +
                      listed(foreign) + ")",
                  true);
}

StagedOutputDirectory::StagedOutputDirectory(OutputRequest request) : request_(std::move(request)) {
  checkOutputTarget(request_);
  const fs::path path = normalized(request_.path);
  std::error_code ec;
  // A symbolic link to a directory: the directory is replaced, the link kept.
  target_ = fs::is_symlink(fs::symlink_status(path, ec)) ? fs::canonical(path) : path;
  std::vector<fs::path> missing;
  for (fs::path p = target_.parent_path(); !fs::exists(p); p = p.parent_path())
    missing.push_back(p);
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    fs::create_directory(*it);
    createdParents_.push_back(*it);
  }
  removeStaleStaging(target_);
  const std::string base = target_.filename().string() + ".partial-" + std::to_string(::getpid());
  for (int n = 0;; ++n) {
    const fs::path candidate =
        target_.parent_path() / (n == 0 ? base : base + "-" + std::to_string(n));
    if (fs::create_directory(candidate, ec) && !ec) {
      staging_ = candidate;
      std::ofstream(staging_ / kStagingMarker)
          << nlohmann::json{{"tool", kTool}, {"pid", ::getpid()}, {"host", hostName()}}.dump()
          << "\n";
      break;
    }
    if (n == 100)
      throw Error(candidate.string(), "staging directory",
                  "a new directory beside " + target_.string() + " (" + ec.message() + ")");
  }
}

StagedOutputDirectory::~StagedOutputDirectory() {
  if (published_)
    return;
  std::error_code ec;
  if (!staging_.empty())
    fs::remove_all(staging_, ec);
  for (auto it = createdParents_.rbegin(); it != createdParents_.rend(); ++it)
    fs::remove(*it, ec); // only while still empty
}

std::string StagedOutputDirectory::publish() {
  checkOutputTarget(request_);
  std::error_code ec;
  fs::remove(staging_ / kStagingMarker, ec);
  nlohmann::json marker = {{"tool", kTool}, {"kind", kindName(request_.kind)}};
  marker["entries"] = entriesOf(staging_);
  {
    std::ofstream out(staging_ / kOutputMarker);
    out << marker.dump(2) << "\n";
    if (!out)
      throw Error((staging_ / kOutputMarker).string(), "file", "a writable marker file");
  }
  if (!fs::exists(fs::symlink_status(target_, ec))) {
    if (!renameWithFlags(staging_, target_, RENAME_NOREPLACE)) {
      if (errno != EINVAL && errno != ENOSYS)
        throw Error(target_.string(), request_.option,
                    std::string("a path the new directory can be renamed to (") +
                        std::strerror(errno) + ")");
      fs::rename(staging_, target_);
    }
    published_ = true;
    return "";
  }
  // Swap the new directory and the old one in one step; the old one then has the staging name.
  fs::path old = staging_;
  if (!renameWithFlags(staging_, target_, RENAME_EXCHANGE)) {
    if (errno != EINVAL && errno != ENOSYS)
      throw Error(target_.string(), request_.option,
                  std::string("a directory the new one can be swapped with (") +
                      std::strerror(errno) + "); the previous one is kept");
    // A file system without RENAME_EXCHANGE: move the old one aside, then the new one in.
    old = target_.string() + ".old-" + std::to_string(::getpid());
    fs::rename(target_, old);
    fs::rename(staging_, target_, ec);
    if (ec) {
      fs::rename(old, target_);
      throw Error(target_.string(), request_.option,
                  "a path the new directory can be renamed to (" + ec.message() +
                      "); the previous one is kept");
    }
  }
  published_ = true;
  fs::remove_all(old, ec);
  if (ec)
    return "could not remove the previous directory, now at " + old.string() + " (" + ec.message() +
           ")";
  return "";
}

void checkOutputFile(const fs::path &path, const std::string &option, const std::string &what,
                     const std::function<bool(const fs::path &)> &ownedByTool) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (!fs::exists(link))
    return;
  const fs::file_status status = fs::status(path, ec);
  const std::string expected = "a new file or " + what + " streamtensor wrote, got ";
  const std::string keep = "; nothing was changed (choose another path)";
  if (fs::is_symlink(link) && !fs::exists(status))
    throw Error(path.string(), option,
                expected + "a symbolic link to a path that does not exist" + keep);
  if (fs::is_directory(status))
    throw Error(path.string(), option, expected + "a directory" + keep);
  if (!fs::is_regular_file(status))
    throw Error(path.string(), option, expected + fileTypeName(status.type()) + keep);
  if (!ownedByTool(path))
    throw Error(path.string(), option,
                expected + "an existing file that is not " + what + " streamtensor wrote" + keep);
}

} // namespace st::cli
