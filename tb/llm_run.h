// LlmRun: the body of the generated testbench of an LLM accelerator (docs/accelerator.md §4). The
// generated main() binds the Verilated top's AXI ports; this file does the rest, like a host
// program: it loads the HBM image (tb/llm_run.json, written by `streamtensor compile`: the channel
// files and their addresses, the arguments, the run buffers) into the HBM model, writes
// the prompt ids (one u32 per 64-byte row), programs n_prompt, n_steps, first_step and every
// pointer through AXI4-Lite at the offsets of the generated kernel header
// (include/<design>_kernel.h, the host program's; main() passes them in), starts the kernel and
// waits for ap_done: at most --timeout cycles, after which the run is a timeout ("timeout": true)
// unless the watchdog found a deadlock first. It records the cycle at which each decode step ends
// (the last write beat of that step's logits row) and each generated token leaves (its write beat),
// then dumps the regions the compiler checks (tokens, KV caches, debug taps) as <name>.bin into
// --output-dir and prints one JSON line: {"cycles", "step_end_cycles", "token_cycles", "deadlock",
// "timeout", "hbm_bytes_read", "hbm_bytes_written", "dumped"}. The bit-exact check against the
// golden model is the compiler's (`streamtensor sim`), which knows the model.
//
// A run may resume at step S (--first-step S, `sim --kv-prefill`): --preload names a file of
// regions written into the HBM model before the start (the golden KV rows of positions < S),
// the prompt ids are those of steps S .. S+P-1, and n_steps = S + P + new tokens - 1.
//
// HBM timing is randomized from the seed (latency jitter, random ready on every channel:
// tb/hbm_model.h, the same HBM model as a graph design's run).
//
// Like a graph design's run (tb/design_run.h, docs/observability.md), when the manifest lists
// the top's streams (tb/probes.vlt makes their signals readable) a StreamProfiler records the
// stall report ("streams", "profiled_cycles") from ap_start to ap_done, and a Watchdog
// (--watchdog CYCLES, default 20000; 0: off) ends a run in which no stream moves for that long:
// "deadlock": true and "watchdog" names the blocked kernels and streams. A run that reaches
// --timeout with streams still moving is not a deadlock: "timeout": true, with the diagnosis
// taken then as "blocked_at_timeout" and the steps it finished in "step_end_cycles". A stream's
// "tokens" in the report are one run's tokens x its runs per step x the steps of this run (KV cache
// reads, prompt ids and generated ids move fewer: docs/observability.md).
#pragma once

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "axi_lite_master.h"
#include "design_run.h"
#include "harness.h"
#include "hbm_model.h"
#include "stream_profile.h"
#include "watchdog.h"

namespace st::tb {

struct LlmRunManifest {
  std::string top;
  double kernelClockMhz = 250;
  struct File {
    std::string path;
    uint64_t address = 0;
  };
  std::vector<File> files; ///< the HBM image's channel files
  struct Arg {
    std::string name;
    unsigned offset = 0;
    bool pointer = true;
    uint64_t address = 0;
  };
  std::vector<Arg> args; ///< n_prompt, n_steps, first_step, a pointer per AXI master (pin order)
  uint64_t promptAddress = 0; ///< one u32 id per 64-byte row
  int64_t maxContext = 0;
  struct Region {
    std::string name;
    uint64_t address = 0, bytes = 0;
  };
  std::vector<Region> dump; ///< regions written to <output-dir>/<name>.bin after the run
  int stepPort = -1;        ///< the AXI master (pin index) writing one logits row per step
  int64_t stepWords = 0;    ///< bus words of that row (0: count WLAST beats)
  int tokenPort = -1;       ///< the AXI master writing the generated ids
  /// The top's streams ("streams"; empty for a design compiled without probes), "tokens" one
  /// run's, and per stream how often it runs per step ("runs_per_step").
  std::vector<ProbedStream> streams;
  std::vector<uint64_t> runsPerStep;
};

/// Reads tb/llm_run.json; paths are relative to its directory. Throws TestFailure.
LlmRunManifest loadLlmRunManifest(const std::string &path);

struct LlmRunOptions {
  std::string manifest = "llm_run.json";
  std::string outputDir = ".";
  std::vector<uint32_t> prompt;
  int64_t newTokens = 1;
  int64_t firstStep = 0; ///< --first-step: the run's first step S (the prompt's first position)
  std::string preload;   ///< --preload: regions written before the start (readPreloadFile)
  HbmTiming hbm;         ///< --latency, --jitter, --ready-probability
  uint64_t timeoutCycles = 20000000;
};

/// Parses the options above out of argv (--manifest, --output-dir, --prompt-ids 1,2,3,
/// --new-tokens N, --first-step S, --preload FILE, --latency, --jitter, --ready-probability,
/// --timeout) and returns the rest for parseTestOptions. Exits 2 with a message on a malformed
/// value.
std::vector<char *> parseLlmRunOptions(int argc, char **argv, LlmRunOptions &options);

/// A region of a --preload file: `bytes` at HBM `address`.
struct PreloadRegion {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};
/// Reads a --preload file: records of a u64 address, a u64 byte count (both little endian) and
/// the bytes, back to back (what `streamtensor sim --kv-prefill` writes). Throws TestFailure on a
/// truncated file.
std::vector<PreloadRegion> readPreloadFile(const std::string &path);

/// Records the cycle of every write beat with WLAST on one AXI master (a generated token ends
/// there), or with `beatsPerEvent` > 0 of every beatsPerEvent-th write beat (a step's logits
/// row ends there even when the DMA splits the row into two bursts at a 4 KB boundary).
class WriteBeatClock : public Component {
public:
  explicit WriteBeatClock(const AxiPins &pins, int64_t beatsPerEvent = 0)
      : pins_(pins), beatsPerEvent_(beatsPerEvent) {}
  void sample(uint64_t cycle) override {
    if (!pins_.wvalid.readBool() || !pins_.wready.readBool())
      return;
    if (beatsPerEvent_ > 0 ? ++beats_ % beatsPerEvent_ == 0 : pins_.wlast.readBool())
      cycles_.push_back(cycle);
  }
  void reset() override {
    cycles_.clear();
    beats_ = 0;
  }
  const std::vector<uint64_t> &cycles() const { return cycles_; }

private:
  AxiPins pins_;
  int64_t beatsPerEvent_ = 0;
  int64_t beats_ = 0;
  std::vector<uint64_t> cycles_;
};

/// Sets each argument's register offset from `registers` (the generated kernel header's, by
/// name): the manifest does not carry them. Throws TestFailure when the names or counts differ.
void applyLlmArgRegisters(LlmRunManifest &manifest, const std::vector<ArgRegister> &registers);

template <class Model>
int runLlm(int argc, char **argv, const std::vector<ArgRegister> &argRegisters,
           const std::function<AxiLitePins(Model &)> &controlPins,
           const std::function<std::vector<AxiPins>(Model &)> &masterPins) {
  LlmRunOptions run;
  std::vector<char *> rest = parseLlmRunOptions(argc, argv, run);
  const TestOptions options = parseTestOptions(static_cast<int>(rest.size()), rest.data());
  nlohmann::json result{{"seed", options.seed}};
  try {
    LlmRunManifest manifest = loadLlmRunManifest(run.manifest);
    applyLlmArgRegisters(manifest, argRegisters);
    result["top"] = manifest.top;
    const int64_t promptLength = static_cast<int64_t>(run.prompt.size());
    const int64_t runSteps = promptLength + run.newTokens - 1; // steps S .. S + runSteps - 1
    const int64_t steps = run.firstStep + runSteps;            // n_steps: counted from step 0
    if (promptLength < 1 || run.newTokens < 1 || run.firstStep < 0 || steps > manifest.maxContext)
      throw TestFailure("--first-step, --prompt-ids and --new-tokens: expected at least one id "
                        "each and at most " +
                        std::to_string(manifest.maxContext) +
                        " steps (first step + prompt + new tokens - 1, the design's max context)");
    Harness<Model> h(options, [](Model &m) { return ClockReset{&m.ap_clk, &m.ap_rst_n}; });
    AxiLiteMaster host("host", controlPins(h.dut()), options.seed * 7 + 1);
    const std::vector<AxiPins> pins = masterPins(h.dut());
    size_t pointers = 0;
    for (const auto &a : manifest.args)
      pointers += a.pointer;
    if (pins.size() != pointers)
      throw TestFailure("the manifest lists " + std::to_string(pointers) +
                        " pointers, the top has " + std::to_string(pins.size()) + " AXI masters");
    std::vector<std::string> portNames;
    for (const auto &a : manifest.args)
      if (a.pointer)
        portNames.push_back(a.name);
    HbmModel hbm(h, portNames, pins, options.seed,
                 hbmMemoryConfig(run.hbm, manifest.kernelClockMhz));
    h.add(host);
    std::unique_ptr<WriteBeatClock> stepClock, tokenClock;
    if (manifest.stepPort >= 0) {
      stepClock = std::make_unique<WriteBeatClock>(pins.at(manifest.stepPort), manifest.stepWords);
      h.add(*stepClock);
    }
    if (manifest.tokenPort >= 0) {
      tokenClock = std::make_unique<WriteBeatClock>(pins.at(manifest.tokenPort));
      h.add(*tokenClock);
    }
    for (const auto &f : manifest.files) {
      const std::vector<uint8_t> data = readBinaryFile(f.path);
      hbm.storage().write(f.address, data.data(), data.size());
    }
    if (!run.preload.empty())
      for (const PreloadRegion &r : readPreloadFile(run.preload))
        hbm.storage().write(r.address, r.bytes.data(), r.bytes.size());
    for (int64_t i = 0; i < promptLength; ++i) {
      uint8_t id[4];
      for (int b = 0; b < 4; ++b)
        id[b] = static_cast<uint8_t>(run.prompt[i] >> (8 * b));
      hbm.storage().write(manifest.promptAddress + 64 * static_cast<uint64_t>(i), id, 4);
    }
    h.reset();
    for (const auto &a : manifest.args) {
      const uint64_t value = a.pointer                ? a.address
                             : a.name == "n_prompt"   ? static_cast<uint64_t>(promptLength)
                             : a.name == "first_step" ? static_cast<uint64_t>(run.firstStep)
                                                      : static_cast<uint64_t>(steps);
      host.write32(h, a.offset, static_cast<uint32_t>(value));
      if (a.pointer)
        host.write32(h, a.offset + 4, static_cast<uint32_t>(value >> 32));
    }
    // The stall report and the watchdog over the top's streams (tokens scaled to this run).
    std::unique_ptr<StreamProfiler> profiler;
    std::unique_ptr<Watchdog> watchdog;
    if (!manifest.streams.empty()) {
      std::vector<ProbedStream> probed = manifest.streams;
      for (size_t i = 0; i < probed.size(); ++i)
        probed[i].tokens *= manifest.runsPerStep.at(i) * static_cast<uint64_t>(runSteps);
      profiler = std::make_unique<StreamProfiler>(
          probed, *h.dut().contextp(), std::string(h.dut().hierName()) + "." + manifest.top);
      h.add(*profiler);
      if (options.watchdogCycles > 0) {
        watchdog = progressWatchdog(*profiler, options.watchdogCycles);
        h.add(*watchdog);
      }
    }
    const uint64_t startCycle = h.cycle();
    if (profiler)
      profiler->start();
    host.startKernel(h);
    bool deadlock = false, timeout = false;
    try {
      host.waitDone(h, run.timeoutCycles);
    } catch (const TestFailure &e) {
      result["error"] = e.what();
      if (watchdog && !watchdog->error().empty()) {
        deadlock = true;
        result["watchdog"] = profiler->blocked();
        result["watchdog"]["message"] = watchdog->error();
      } else {
        // No ap_done within --timeout although streams kept moving (or the watchdog is off).
        timeout = true;
        if (profiler)
          result["blocked_at_timeout"] = profiler->blocked();
      }
    }
    result["cycles"] = h.cycle() - startCycle;
    result["deadlock"] = deadlock;
    result["timeout"] = timeout;
    if (profiler) {
      profiler->stop();
      result["streams"] = profiler->report();
      result["profiled_cycles"] = profiler->cycles();
    }
    auto relative = [&](const std::vector<uint64_t> &cycles) {
      std::vector<uint64_t> r;
      for (uint64_t c : cycles)
        r.push_back(c - startCycle);
      return r;
    };
    result["step_end_cycles"] = stepClock ? relative(stepClock->cycles()) : std::vector<uint64_t>{};
    result["token_cycles"] = tokenClock ? relative(tokenClock->cycles()) : std::vector<uint64_t>{};
    result["hbm_bytes_read"] = hbm.bytesRead();
    result["hbm_bytes_written"] = hbm.bytesWritten();
    for (const auto &r : manifest.dump) {
      std::vector<uint8_t> got(r.bytes);
      hbm.storage().read(r.address, got.data(), got.size());
      writeBinaryFile(run.outputDir + "/" + r.name + ".bin", got);
      result["dumped"].push_back(r.name);
    }
    std::cout << result.dump() << std::endl;
    return deadlock || timeout ? 1 : 0;
  } catch (const TestFailure &e) {
    result["error"] = e.what();
    result["deadlock"] = false;
    std::cout << result.dump() << std::endl;
    return 1;
  }
}

} // namespace st::tb
