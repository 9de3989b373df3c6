// OutputDirectory: the one place that decides whether a command may write a directory at the
// path a user gave (`compile -o`, `hbm-image --out`) or a file (`sim --trace`), and that puts a
// new directory in place without ever losing the user's files (issue 19).
//
// A directory is written under a staging name beside the target (`<target>.partial-<pid>`),
// marked with `.streamtensor-output` (JSON: tool, kind, the top-level entries it wrote) and then
// swapped with the target in one rename (renameat2 RENAME_EXCHANGE); only then is the previous
// directory removed. A failure at any point leaves the previous directory as it was and removes
// the staging directory; one left by a run that was killed (it holds .streamtensor-staging with
// the pid of a process of this host that is gone) is removed by the next run for that target.
//
// What may be replaced: nothing (a new path), an empty directory, or a directory this tool wrote
// of the same kind (its marker, or for directories written before the marker existed, design.json
// / tb/design.json / manifest.json with the tool's format) holding no entries the tool did not
// write. Everything else is refused with one st::Error: a regular file or other non-directory,
// a non-empty foreign directory (`--force` overrides), and, even with --force, the current
// directory, `/`, the home directory, any directory that contains one of them, and any
// directory that is or contains one of the command's inputs.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace st::cli {

/// What a streamtensor output directory holds.
enum class OutputKind {
  Design,   ///< `compile`: a graph or LLM design directory
  HbmImage, ///< `hbm-image`: channel files, RoPE tables, manifest.json
};

/// The marker file at the top of every output directory.
inline constexpr const char *kOutputMarker = ".streamtensor-output";

/// A directory the command wants to write.
struct OutputRequest {
  std::string path;    ///< as the user gave it
  std::string option;  ///< the option that named it ("-o", "--out"), for errors
  std::string command; ///< "streamtensor compile", for messages
  OutputKind kind = OutputKind::Design;
  bool force = false;              ///< --force: a foreign directory may be replaced
  std::vector<std::string> inputs; ///< paths the command reads: never replaced
};

/// The kind of output directory a streamtensor command wrote at `dir`, or nothing when `dir`
/// is not one (no marker and no recognised manifest).
std::optional<OutputKind> outputKindOf(const std::filesystem::path &dir);

/// Top-level entries of `dir` that the tool did not write (with the marker: not in its entry
/// list; without: not among the names a design or image of that kind has), sorted. `sim`,
/// written later by `streamtensor sim`, counts as the tool's in a design directory.
std::vector<std::string> foreignEntries(const std::filesystem::path &dir, OutputKind kind);

/// Throws st::Error when the request may not write at its path (see the file comment); does
/// nothing to the file system.
void checkOutputTarget(const OutputRequest &request);

/// A directory being written: checks the target (checkOutputTarget), creates the staging
/// directory beside it (and any missing parents), and on publish() swaps it into place.
/// Destroyed without publish(), it removes the staging directory and the parents it created.
class StagedOutputDirectory {
public:
  explicit StagedOutputDirectory(OutputRequest request);
  ~StagedOutputDirectory();
  StagedOutputDirectory(const StagedOutputDirectory &) = delete;
  StagedOutputDirectory &operator=(const StagedOutputDirectory &) = delete;

  /// Where the command writes (empty, exists until publish()).
  const std::filesystem::path &staging() const { return staging_; }
  /// The absolute path the directory will have (generated files may refer to it).
  const std::filesystem::path &target() const { return target_; }

  /// Checks the target again (it may have changed while the command ran), writes the marker and
  /// puts the staging directory at the target; the previous directory, if any, is removed after
  /// the swap. Throws st::Error (the previous directory kept) when the target may no longer be
  /// replaced or a rename fails. Returns a warning to print when the previous directory could
  /// not be removed (the new one is in place), else an empty string.
  std::string publish();

private:
  OutputRequest request_;
  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::vector<std::filesystem::path> createdParents_; ///< outermost first
  bool published_ = false;
};

/// Throws st::Error unless `path` may be written as an output file: it does not exist, or it
/// is a regular file (or a symbolic link to one) that `ownedByTool` says the tool wrote.
/// Directories, other file types and files the predicate rejects are refused (`what` says
/// what the tool writes there, e.g. "an FST waveform").
void checkOutputFile(const std::filesystem::path &path, const std::string &option,
                     const std::string &what,
                     const std::function<bool(const std::filesystem::path &)> &ownedByTool);

} // namespace st::cli
