// The shared part of the fuzz harnesses (see fuzz_support.h).
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <new>
#include <unistd.h>

#include "support/error.h"

namespace st::fuzz {

namespace fs = std::filesystem;

namespace {

/// The scratch directory of this process, removed when the process exits normally.
struct ScratchDirectory {
  fs::path path;
  ScratchDirectory() {
    const char *tmp = std::getenv("TMPDIR");
    path = fs::path(tmp && *tmp ? tmp : "/tmp") / ("st_fuzz_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~ScratchDirectory() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path &scratch() {
  static ScratchDirectory dir;
  return dir.path;
}

} // namespace

void expectOnlyStError(const char *harness, const std::function<void()> &read) {
  try {
    read();
  } catch (const st::Error &) {
    // The promised outcome for bad input.
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr,
                 "%s: std::bad_alloc escaped the reader (a size taken from the input "
                 "was not checked)\n",
                 harness);
    std::abort();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: an exception other than st::Error escaped the reader: %s\n", harness,
                 e.what());
    std::abort();
  }
}

const std::string &writeInputFile(const uint8_t *data, size_t size, const char *suffix) {
  static std::map<std::string, std::string> paths;
  std::string &path = paths[suffix];
  if (path.empty())
    path = (scratch() / suffix).string();
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

} // namespace st::fuzz
