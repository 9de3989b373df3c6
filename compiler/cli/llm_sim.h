// `streamtensor sim` on an LLM design directory (written by `streamtensor compile <model-dir>`):
// builds the generated testbench once, decodes the prompt in Verilator under random HBM timing,
// reruns the golden model on the same prompt and checks every generated token, every step's KV
// rows and debug taps bit for bit (llm/run_check), and prints tokens, cycles per token (prompt
// and generated steps apart) beside the prediction, HBM bytes and bandwidth. Like a graph
// design's run (docs/observability.md) it prints the stall report of the accelerator's streams
// and writes <design>/sim/stall_report.{json,md}; when no stream moves for --watchdog cycles the
// run stops and the JSON's "watchdog" names the blocked kernels and streams; --trace builds
// tb/build-trace and writes the FST and a GTKWave save file (trace.gtkw) beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace st::cli {

/// The default cycle budget of a run: this many times its predicted cycles, plus the slack.
constexpr uint64_t kBudgetFactor = 3;
constexpr uint64_t kBudgetSlack = 100000;

struct LlmSimOptions {
  std::string design;
  std::vector<int64_t> prompt;
  int64_t newTokens = 16;
  /// --kv-prefill P (0: off): the testbench starts at step P over the golden model's KV rows of
  /// positions 0 .. P-1; the design decodes the prompt ids of positions P .. (at least the golden
  /// token of position P) and then newTokens tokens.
  int64_t kvPrefill = 0;
  bool json = false;
  uint64_t seed = 1;
  std::string trace;         ///< non-empty: the FST to write (absolute), traced build
  uint64_t watchdog = 20000; ///< cycles without a stream handshake before a deadlock (0: off)
  unsigned latency = 24;
  unsigned jitter = 40;
  double readyProbability = 0.8;
  /// Cycles before the run counts as a timeout; 0: kBudgetFactor x the cycles report.json
  /// predicts for this run, plus kBudgetSlack.
  uint64_t timeout = 0;
  /// The Verilated model's C++ optimization (1 .. 3) and threads; 0: chosen by the run's
  /// predicted cycles (modelBuildFor).
  unsigned modelOpt = 0;
  unsigned modelThreads = 0;
};

/// True when `designDir` holds an LLM design: a top-level design.json (graph designs keep theirs
/// in tb/), whether or not it is intact.
bool isLlmDesign(const std::string &designDir);

/// Runs the simulation and the check; returns the exit code (0: bit-exact and done).
int runLlmSim(const LlmSimOptions &options);

} // namespace st::cli
