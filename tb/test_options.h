// TestOptions: the command line every Verilator test understands (--seed, --trace, --config,
// --tokens, --watchdog), parsed in one place so every test prints its seed the same way.
#pragma once

#include <cstdint>
#include <string>

namespace st::tb {

struct TestOptions {
  uint64_t seed = 1;          ///< RNG seed; printed at start so a failure can be replayed
  std::string tracePath;      ///< non-empty: write an FST waveform here
  std::string config;         ///< which parameter set of a multi-config test binary to run
  uint64_t tokens = 10000;    ///< tokens per stream, for tests that take a count
  uint64_t watchdogCycles = 20000; ///< cycles without any handshake before the watchdog fires
  uint64_t maxCycles = 50000000;   ///< hard limit on simulated cycles
};

/// Parses argv; exits with a usage message on an unknown option.
TestOptions parseTestOptions(int argc, char **argv);

} // namespace st::tb
