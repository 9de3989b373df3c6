// Command-line parsing shared by every Verilator test binary.
#include "test_options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace st::tb {

static void usage(const char *prog) {
  std::fprintf(stderr,
               "usage: %s [--config NAME] [--seed N] [--trace FILE.fst] [--tokens N]\n"
               "          [--watchdog CYCLES] [--max-cycles N]\n",
               prog);
  std::exit(2);
}

TestOptions parseTestOptions(int argc, char **argv) {
  TestOptions o;
  if (const char *env = std::getenv("ST_SEED"))
    o.seed = std::strtoull(env, nullptr, 0);
  if (const char *env = std::getenv("ST_TRACE"))
    o.tracePath = env;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        usage(argv[0]);
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--seed"))
      o.seed = std::strtoull(value(), nullptr, 0);
    else if (!std::strcmp(argv[i], "--trace"))
      o.tracePath = value();
    else if (!std::strcmp(argv[i], "--config"))
      o.config = value();
    else if (!std::strcmp(argv[i], "--tokens"))
      o.tokens = std::strtoull(value(), nullptr, 0);
    else if (!std::strcmp(argv[i], "--watchdog"))
      o.watchdogCycles = std::strtoull(value(), nullptr, 0);
    else if (!std::strcmp(argv[i], "--max-cycles"))
      o.maxCycles = std::strtoull(value(), nullptr, 0);
    else if (std::strncmp(argv[i], "+verilator", 10) == 0)
      continue; // Verilator's own runtime options
    else
      usage(argv[0]);
  }
  return o;
}

} // namespace st::tb
