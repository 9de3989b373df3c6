// Subprocess helpers of the CLI (see subprocess.h).
#include "cli/subprocess.h"

#include <cstdio>
#include <filesystem>
#include <sys/wait.h>

namespace st::cli {

int runCapture(const std::string &command, std::string &out) {
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return -1;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
    out.append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string shellQuote(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string testbenchBuildDir(const std::string &tbDir, bool trace) {
  return (std::filesystem::path(tbDir) / (trace ? "build-trace" : "build")).string();
}

bool buildTestbench(const std::string &tbDir, std::string &log, bool trace,
                    const ModelBuild &model) {
  const std::filesystem::path build = testbenchBuildDir(tbDir, trace);
  const std::string configure =
      "cmake -S " + shellQuote(tbDir) + " -B " + shellQuote(build.string()) +
      (std::filesystem::exists(build / "CMakeCache.txt") ? "" : " -G Ninja") +
      (trace ? " -DST_TB_TRACE=ON" : "") + " -DST_TB_OPT=" + std::to_string(model.opt) +
      " -DST_TB_THREADS=" + std::to_string(model.threads) + " 2>&1";
  const std::string make = "cmake --build " + shellQuote(build.string()) + " --parallel 2>&1";
  return runCapture(configure, log) == 0 && runCapture(make, log) == 0;
}

} // namespace st::cli
