// Shared by every fuzz harness of tests/fuzz: what counts as a finding, and a scratch file for
// readers that take a path. A reader given bad input must throw st::Error (one message naming
// the file, field and what was expected); any other exception escaping it is a finding and
// aborts, as a crash or a sanitizer report does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace st::fuzz {

/// Runs `read`; returns normally when it succeeds or throws st::Error, aborts (printing the
/// harness and the exception) on any other exception.
void expectOnlyStError(const char *harness, const std::function<void()> &read);

/// Writes the input to this process's scratch file (named `suffix`, e.g. "model.safetensors",
/// in a directory removed at exit) and returns its path, for readers that take a file.
const std::string &writeInputFile(const uint8_t *data, size_t size, const char *suffix);

} // namespace st::fuzz
