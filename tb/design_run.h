// DesignRun: the body of every generated design testbench. The generated main() only binds the
// Verilated top's AXI ports (their names differ per design); everything else is here: it reads
// the design manifest (tb/design.json, written by the compiler: one HBM buffer per DMA with its
// address and data file), loads the input buffers into the HBM model,
// programs the pointers through the AXI4-Lite host model at the offsets of the generated
// include/<design>_kernel.h (the host program's header), starts the kernel, waits for ap_done
// (or reports a deadlock), compares every output buffer byte for byte with the compiler's
// reference executor, writes what the design produced next to the expected files, and prints
// one JSON line: {"bit_exact", "cycles", "deadlock", "mismatches", "streams", ...}. "cycles"
// is the host's view, from its ap_start write to the poll that saw ap_done; "kernel_cycles" the
// kernel's own span from the start pulse to ap_done (tb/kernel_span.h), what the compiler
// predicts (report.json "predicted_kernel_cycles").
//
// When the manifest lists the top's streams (gen/stream_probes.h; the model verilated with
// tb/probes.vlt), a StreamProfiler records the stall report ("streams": per stream transfers,
// cycles stalled on ready and starved on valid, FIFO high-water mark) from ap_start to ap_done,
// and a Watchdog (--watchdog CYCLES, default 20000; 0: off) ends a run in which no stream moves
// for that long: "deadlock": true and "watchdog": {"blocked_writers", "waiting_readers",
// "full_fifos", "wait_cycle", "summary", "message"} name the blocked kernels and streams. A run
// that reaches --timeout instead has the same diagnosis, taken then, as "blocked_at_timeout".
//
// HBM timing is randomized per run from the seed (read/write latency jitter, random ready on
// every channel: tb/hbm_model.h), so each run is also a run under random backpressure at the
// outputs.
//
// A FIFO-depth search build (out/search/, `streamtensor compile --fifo-search`) also binds the
// FIFOs' run-time depths; with --fifo-search <file> it runs the search of searchFifoDepths in
// one process, every run from a fresh model with the same seed, and prints its JSON instead.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "axi_lite_master.h"
#include "harness.h"
#include "hbm_model.h"
#include "kernel_span.h"
#include "stream_profile.h"
#include "watchdog.h"

namespace st::tb {

struct DesignBuffer {
  std::string name;
  bool isInput = true;
  uint64_t address = 0;
  uint64_t bytes = 0;
  unsigned argOffset = 0;
  std::string file; ///< input data, or the expected output
  std::string role; ///< "input", "output" or "scratch" (a spill/refill buffer: not compared)
};

struct DesignManifest {
  std::string top;
  double kernelClockMhz = 250;
  std::vector<DesignBuffer> buffers;
};

DesignManifest loadDesignManifest(const std::string &path);

/// One argument register of the kernel, from the generated <design>_kernel.h that the host
/// program also includes: the testbench programs the pointers at these offsets, not at the
/// manifest's.
struct ArgRegister {
  std::string name;
  unsigned offset = 0;
};
/// Sets each buffer's argOffset from `registers` (by name). Throws TestFailure when a buffer has
/// no register or the counts differ.
void applyArgRegisters(DesignManifest &manifest, const std::vector<ArgRegister> &registers);
std::vector<uint8_t> readBinaryFile(const std::string &path);
void writeBinaryFile(const std::string &path, const std::vector<uint8_t> &bytes);

/// Options of a design run beyond TestOptions.
struct DesignRunOptions {
  std::string manifest = "design.json";
  std::string outputDir = ".";
  HbmTiming hbm; ///< --latency, --jitter, --ready-probability
  uint64_t timeoutCycles = 2000000;
};

/// One FIFO of a FIFO-depth search build (manifest "fifos", in fifo_limit_<k> order).
struct SearchFifo {
  std::string name;
  uint64_t sizedDepth = 2;    ///< the compiler's depth: the limit of the sized run
  uint64_t physicalDepth = 2; ///< the instantiated depth: the limit of the deep run
  uint64_t tokenBits = 0;
};
std::vector<SearchFifo> loadSearchFifos(const std::string &manifestPath);

/// The FIFO-depth search of a search build (docs/fifo-sizing.md). `run(limits, timeout)` runs
/// the design once from reset with those FIFO limits and returns its JSON result; every run
/// uses the same seed. Runs every FIFO at its sized depth and at its physical depth, then, for
/// each FIFO with the others at their sized depth, bisects the smallest limit in
/// [2, sized depth] whose run is bit-exact and ends within `tolerance` of the deep run's
/// cycles (a run that exceeds that budget is stopped there: a deadlock ends as quickly).
/// Returns {"cycles_sized", "cycles_deep", "budget_cycles", "sized_ok", "trials", "fifos": [
/// {"name", "sized_depth", "searched_min_depth" (-1: even the sized depth misses), "token_bits"}],
/// "sized_fifo_bits", "searched_fifo_bits"}.
nlohmann::json
searchFifoDepths(const std::vector<SearchFifo> &fifos, double tolerance,
                 const std::function<nlohmann::json(const std::vector<uint64_t> &, uint64_t)> &run);

/// `dmaPins` returns the model's DMA ports in manifest order; the runner puts the HBM model
/// (tb/hbm_model.h) behind them and drives the rest.
/// `setLimits` (search builds only) drives the FIFOs' run-time depths; with it, the option
/// `--fifo-search <results.json>` runs searchFifoDepths instead of one run.
/// `argRegisters` come from the generated <design>_kernel.h (the host program's header).
template <class Model>
int runDesign(int argc, char **argv, const std::vector<ArgRegister> &argRegisters,
              const std::function<AxiLitePins(Model &)> &controlPins,
              const std::function<std::vector<AxiPins>(Model &)> &dmaPins,
              const std::function<void(Model &, const std::vector<uint64_t> &)> &setLimits = {}) {
  DesignRunOptions run;
  std::string searchOutput;
  double tolerance = 0.02;
  std::vector<char *> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--manifest")
      run.manifest = value();
    else if (a == "--output-dir")
      run.outputDir = value();
    else if (a == "--latency")
      run.hbm.readLatency = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--jitter")
      run.hbm.latencyJitter = static_cast<unsigned>(std::stoul(value()));
    else if (a == "--ready-probability")
      run.hbm.readyProbability = std::stod(value());
    else if (a == "--timeout")
      run.timeoutCycles = std::stoull(value());
    else if (a == "--fifo-search")
      searchOutput = value();
    else if (a == "--search-tolerance")
      tolerance = std::stod(value());
    else
      rest.push_back(argv[i]);
  }
  TestOptions options = parseTestOptions(static_cast<int>(rest.size()), rest.data());
  DesignManifest manifest = loadDesignManifest(run.manifest);
  std::vector<ProbedStream> probed;
  try {
    applyArgRegisters(manifest, argRegisters);
    probed = loadProbedStreams(nlohmann::json::parse(std::ifstream(run.manifest)), run.manifest);
  } catch (const TestFailure &e) {
    std::cout << nlohmann::json{{"top", manifest.top},
                                {"bit_exact", false},
                                {"deadlock", false},
                                {"error", e.what()}}
                     .dump()
              << std::endl;
    return 1;
  }
  std::vector<SearchFifo> fifos;
  if (setLimits)
    fifos = loadSearchFifos(run.manifest);

  // One run from a fresh model: reset, program, start, wait for ap_done (at most `timeout`
  // cycles), compare. Everything random is seeded from options.seed, so runs are comparable.
  auto runOnce = [&](const std::vector<uint64_t> &limits, uint64_t timeout) {
    nlohmann::json result{{"top", manifest.top}, {"seed", options.seed}};
    try {
      Harness<Model> h(options, [](Model &m) { return ClockReset{&m.ap_clk, &m.ap_rst_n}; });
      if (setLimits)
        setLimits(h.dut(), limits);
      AxiLiteMaster host("host", controlPins(h.dut()), options.seed * 7 + 1);
      std::vector<AxiPins> pins = dmaPins(h.dut());
      if (pins.size() != manifest.buffers.size())
        throw TestFailure("the manifest lists " + std::to_string(manifest.buffers.size()) +
                          " buffers, the top has " + std::to_string(pins.size()) + " DMA ports");
      std::vector<std::string> portNames;
      for (const DesignBuffer &b : manifest.buffers)
        portNames.push_back(b.name);
      HbmModel hbm(h, portNames, pins, options.seed,
                   hbmMemoryConfig(run.hbm, manifest.kernelClockMhz));
      h.add(host);
      // The stall report and the watchdog over the top's streams (sampled in this order).
      std::unique_ptr<StreamProfiler> profiler;
      std::unique_ptr<Watchdog> watchdog;
      std::unique_ptr<KernelSpan> span;
      if (!probed.empty()) {
        const std::string scope = std::string(h.dut().hierName()) + "." + manifest.top;
        profiler = std::make_unique<StreamProfiler>(probed, *h.dut().contextp(), scope);
        h.add(*profiler);
        span = std::make_unique<KernelSpan>(*h.dut().contextp(), scope);
        h.add(*span);
        if (options.watchdogCycles > 0) {
          watchdog = progressWatchdog(*profiler, options.watchdogCycles);
          h.add(*watchdog);
        }
      }
      for (const DesignBuffer &b : manifest.buffers)
        if (b.isInput) {
          std::vector<uint8_t> data = readBinaryFile(b.file);
          hbm.storage().write(b.address, data.data(), data.size());
        }
      h.reset();
      for (const DesignBuffer &b : manifest.buffers) {
        host.write32(h, b.argOffset, static_cast<uint32_t>(b.address));
        host.write32(h, b.argOffset + 4, static_cast<uint32_t>(b.address >> 32));
      }
      const uint64_t startCycle = h.cycle();
      if (profiler)
        profiler->start();
      host.startKernel(h);
      bool deadlock = false;
      std::string profileError;
      try {
        host.waitDone(h, timeout);
      } catch (const TestFailure &e) {
        if (profiler && !profiler->error().empty())
          profileError = e.what();
        else
          deadlock = true;
        if (watchdog && !watchdog->error().empty()) {
          result["watchdog"] = profiler->blocked();
          result["watchdog"]["message"] = watchdog->error();
        } else if (profiler && deadlock) {
          // No ap_done within --timeout although streams kept moving (or the watchdog is off).
          result["blocked_at_timeout"] = profiler->blocked();
        }
      }
      const uint64_t cycles = h.cycle() - startCycle;
      bool exact = !deadlock && profileError.empty();
      if (!profileError.empty())
        result["error"] = profileError;
      if (profiler) {
        profiler->stop();
        result["streams"] = profiler->report();
        result["profiled_cycles"] = profiler->cycles();
      }
      nlohmann::json mismatches = nlohmann::json::array();
      for (const DesignBuffer &b : manifest.buffers) {
        if (b.role != "output")
          continue;
        std::vector<uint8_t> got(b.bytes);
        hbm.storage().read(b.address, got.data(), got.size());
        if (searchOutput.empty())
          writeBinaryFile(run.outputDir + "/" + b.name + ".actual.bin", got);
        std::vector<uint8_t> want = readBinaryFile(b.file);
        for (size_t k = 0; k < want.size() && k < got.size(); ++k)
          if (want[k] != got[k]) {
            exact = false;
            mismatches.push_back(
                {{"buffer", b.name}, {"byte", k}, {"expected", want[k]}, {"actual", got[k]}});
            break;
          }
      }
      result["bit_exact"] = exact;
      result["deadlock"] = deadlock;
      result["cycles"] = cycles;
      if (span && span->cycles() >= 0)
        result["kernel_cycles"] = span->cycles();
      result["hbm_bytes_read"] = hbm.bytesRead();
      result["hbm_bytes_written"] = hbm.bytesWritten();
      result["mismatches"] = mismatches;
    } catch (const TestFailure &e) {
      result["bit_exact"] = false;
      result["deadlock"] = false;
      result["error"] = e.what();
    }
    return result;
  };

  if (!searchOutput.empty()) {
    if (!setLimits) {
      std::cerr << "--fifo-search: this testbench is not a FIFO-depth search build\n";
      return 2;
    }
    const nlohmann::json result = searchFifoDepths(fifos, tolerance, runOnce);
    std::ofstream(searchOutput) << result.dump(2) << "\n";
    std::cout << result.dump() << std::endl;
    return result.value("sized_ok", false) ? 0 : 1;
  }
  std::vector<uint64_t> sized;
  for (const SearchFifo &f : fifos)
    sized.push_back(f.sizedDepth);
  const nlohmann::json result = runOnce(sized, run.timeoutCycles);
  std::cout << result.dump() << std::endl;
  return result.value("bit_exact", false) ? 0 : 1;
}

} // namespace st::tb
