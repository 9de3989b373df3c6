// Writing a generated text file (RTL, scripts, reports, manifests) in one call, with the one
// error every writer gives when the file cannot be written.
#pragma once

#include <filesystem>
#include <string>

namespace st {

/// Writes `text` to `path` (replacing it). Throws st::Error naming the path when the file
/// cannot be written.
void writeTextFile(const std::filesystem::path &path, const std::string &text);

} // namespace st
