// `streamtensor sim <design-dir>`: builds the design's generated Verilator testbench (once; CMake
// and ccache make later runs quick) and runs it: the HBM model is loaded with the seeded inputs,
// the kernel is started through its control registers like a host would, and every output is
// compared bit for bit with the compiler's reference executor. Prints a summary, or with --json
// the testbench's one JSON object ({"bit_exact", "cycles", "deadlock", ...}). With --fifo-search
// it builds the design's search build (search/, written by `compile --fifo-search`) instead and
// runs the RTL FIFO-depth search in it (docs/fifo-sizing.md): the results go to
// search/fifo_search.json and into report.json/report.md beside the LP depths.
//
// Every run prints the stall report (gen/stall_report.h: per stream transfers, cycles stalled
// and starved, FIFO high-water marks; on a deadlock the blocked kernels and streams the
// watchdog named) and writes it to <design>/sim/stall_report.{json,md}, and its picture to
// stall_report.svg (cli/pictures.h: streams coloured by stall and starve). With --trace it builds
// the traced testbench (tb/build-trace, Verilator --trace-fst; the default build has no
// tracing) and writes <design>/sim/trace.fst and a GTKWave save file trace.gtkw beside it
// (gen/stream_probes.h). docs/observability.md.
//
// Before anything is built the design directory is checked (cli/design_check.h: manifests,
// data files, RTL files) and so are --trace's outputs (no user file is overwritten). An LLM
// design (compile <model-dir>) runs through cli/llm_sim.h instead.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "cli/design_check.h"
#include "cli/llm_sim.h"
#include "cli/output_directory.h"
#include "cli/sim_observability.h"
#include "cli/subprocess.h"
#include "gen/report.h"
#include "support/error.h"

namespace st::cli {

namespace {

namespace fs = std::filesystem;

/// A graph design's default --timeout (its kernels take hundreds to thousands of cycles).
constexpr uint64_t kGraphTimeoutCycles = 2000000;

struct SimOptions {
  std::string design;
  bool json = false;
  uint64_t seed = 1;
  bool trace = false;
  std::string tracePath; ///< empty: <design>/sim/trace.fst
  uint64_t watchdog = 20000;
  unsigned latency = 24;
  unsigned jitter = 40;
  double readyProbability = 0.8;
  uint64_t timeout = 0; ///< 0: from the design's prediction (LLM) or 2,000,000 (graph)
  bool fifoSearch = false;
  std::string promptIds; ///< LLM designs: comma-separated prompt ids
  int64_t tokens = 16;   ///< LLM designs: tokens to generate
  int64_t kvPrefill = 0; ///< LLM designs: start decoding at this position (golden KV rows below)
  unsigned modelOpt = 0; ///< LLM designs: the model's C++ optimization (0: by the run's length)
  unsigned modelThreads = 0; ///< LLM designs: Verilator model threads (0: by the run's length)
};

/// Adds the RTL search results to the design's report.json and rewrites report.md from it.
void addSearchToReport(const fs::path &design, const nlohmann::json &search, uint64_t seed) {
  const fs::path reportPath = design / "report.json";
  nlohmann::json report = nlohmann::json::parse(std::ifstream(reportPath));
  std::map<std::string, int64_t> found;
  for (const auto &f : search.at("fifos"))
    found[f.at("name").get<std::string>()] = f.at("searched_min_depth").get<int64_t>();
  for (auto &s : report.at("streams")) {
    auto it = found.find(s.at("name").get<std::string>());
    if (it != found.end())
      s["rtl_searched_min_depth"] = it->second;
  }
  report["rtl_search"] = {{"seed", seed},
                          {"cycles_lp", search.at("cycles_sized")},
                          {"cycles_deep", search.at("cycles_deep")},
                          {"budget_cycles", search.at("budget_cycles")},
                          {"lp_within_budget", search.at("sized_ok")},
                          {"trials", search.at("trials")},
                          {"lp_fifo_bits", search.at("sized_fifo_bits")},
                          {"searched_min_fifo_bits", search.at("searched_fifo_bits")}};
  std::ofstream(reportPath) << report.dump(2) << "\n";
  std::ofstream(design / "report.md") << gen::reportMarkdown(report);
}

/// An LLM design's run (cli/llm_sim.h).
int runLlmDesignSim(const SimOptions &o) {
  LlmSimOptions l;
  l.design = o.design;
  std::istringstream ids(o.promptIds);
  try {
    for (std::string id; std::getline(ids, id, ',');)
      l.prompt.push_back(std::stoll(id));
  } catch (const std::exception &) {
    std::cerr << "streamtensor sim: error: --prompt-ids: '" << o.promptIds
              << "': expected comma-separated token ids\n";
    return kExitUsage;
  }
  l.newTokens = o.tokens;
  l.kvPrefill = o.kvPrefill;
  l.json = o.json;
  l.seed = o.seed;
  if (o.trace)
    l.trace = fs::absolute(o.tracePath.empty() ? fs::path(o.design) / "sim" / "trace.fst"
                                               : fs::path(o.tracePath))
                  .string();
  l.watchdog = o.watchdog;
  l.latency = o.latency;
  l.jitter = o.jitter;
  l.readyProbability = o.readyProbability;
  l.timeout = o.timeout;
  l.modelOpt = o.modelOpt;
  l.modelThreads = o.modelThreads;
  return runLlmSim(l);
}

/// A graph design's run (the design directory checked first).
int runGraphSim(const SimOptions &o) {
  const fs::path tb = fs::path(o.design) / (o.fifoSearch ? "search/tb" : "tb");
  const std::string top = checkGraphDesignDirectory(o.design, o.fifoSearch).top;
  // The traced model is a build of its own, so the default build stays without tracing.
  const bool trace = o.trace && !o.fifoSearch;
  const fs::path build = testbenchBuildDir(tb.string(), trace);
  const fs::path simDir = fs::path(o.design) / "sim";
  fs::path tracePath;
  if (trace) {
    tracePath = o.tracePath.empty() ? simDir / "trace.fst" : fs::path(o.tracePath);
    tracePath = fs::absolute(tracePath);
    checkTraceOutputs(tracePath);
    fs::create_directories(tracePath.parent_path());
  }
  std::string log;
  if (!buildTestbench(tb.string(), log, trace)) {
    std::cerr << log << "streamtensor sim: error: " << o.design
              << ": testbench build: expected the generated testbench to build (log above)\n";
    return 1;
  }
  std::ostringstream cmd;
  cmd << shellQuote((build / ("tb_" + top)).string()) << " --manifest "
      << shellQuote((tb / "design.json").string()) << " --output-dir " << shellQuote(tb.string())
      << " --seed " << o.seed << " --latency " << o.latency << " --jitter " << o.jitter
      << " --ready-probability " << o.readyProbability << " --timeout "
      << (o.timeout > 0 ? o.timeout : kGraphTimeoutCycles) << " --watchdog " << o.watchdog;
  if (trace)
    cmd << " --trace " << shellQuote(tracePath.string());
  const fs::path searchResult = fs::path(o.design) / "search" / "fifo_search.json";
  if (o.fifoSearch)
    cmd << " --fifo-search " << shellQuote(searchResult.string());
  std::string out;
  const int rc = runCapture(cmd.str() + " 2>&1", out);
  // The testbench's last line is its JSON object; earlier lines are its log.
  std::string last;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] == '{')
      last = line;
  nlohmann::json result;
  try {
    result = nlohmann::json::parse(last);
  } catch (const nlohmann::json::exception &) {
    std::cerr << out << "streamtensor sim: error: " << o.design
              << ": testbench output: expected a JSON result line (exit code " << rc << ")\n";
    return 1;
  }
  if (o.fifoSearch) {
    if (!result.contains("fifos")) {
      std::cerr << out << "streamtensor sim: error: " << o.design
                << ": FIFO search: expected the search's JSON result (exit code " << rc << ")\n";
      return 1;
    }
    addSearchToReport(o.design, result, o.seed);
    if (o.json) {
      std::cout << result.dump() << "\n";
    } else {
      std::cout << top << ": FIFO-depth search in RTL (seed " << o.seed << ", " << result["trials"]
                << " runs): LP depths " << result["cycles_sized"] << " cycles, deep "
                << result["cycles_deep"] << " cycles (budget " << result["budget_cycles"]
                << "); FIFO bits LP " << result["sized_fifo_bits"] << ", searched minima "
                << result["searched_fifo_bits"] << "\n";
      for (const auto &f : result["fifos"])
        std::cout << "  " << f["name"].get<std::string>() << ": LP depth " << f["sized_depth"]
                  << ", searched minimum " << f["searched_min_depth"] << "\n";
    }
    return rc == 0 ? 0 : 1;
  }
  // The kernel's predicted cycles under this run's memory, beside the measured ones.
  try {
    const nlohmann::json report =
        nlohmann::json::parse(std::ifstream(fs::path(o.design) / "report.json"));
    for (const auto &k : report.value("kernel_cycle_prediction", nlohmann::json::array()))
      if (k.at("latency").get<double>() == o.latency && k.at("jitter").get<double>() == o.jitter &&
          k.at("ready_probability").get<double>() == o.readyProbability &&
          !k.at("kernel_cycles").is_null()) {
        result["predicted_kernel_cycles"] = k.at("kernel_cycles");
        if (result.contains("kernel_cycles"))
          result["kernel_over_predicted"] =
              result["kernel_cycles"].get<double>() / k.at("kernel_cycles").get<double>();
      }
  } catch (const nlohmann::json::exception &) {
    // a report without predictions (an older design): nothing to print beside
  }
  // The stall report (designs compiled before the probes existed have none).
  const std::string stallMarkdown = writeStallReport(simDir, result);
  std::string waveform;
  if (trace) {
    // The waveform's save file: per producer node its streams and FIFO occupancies.
    waveform = writeWaveformView(tb / "design.json", top, tracePath);
  }
  if (o.json) {
    std::cout << result.dump() << "\n";
  } else {
    if (!stallMarkdown.empty())
      std::cout << stallMarkdown << "(also in " << (simDir / "stall_report.md").string() << ")\n\n";
    std::cout << top << ": " << (result.value("bit_exact", false) ? "bit-exact" : "MISMATCH")
              << ", " << result.value("cycles", uint64_t{0}) << " cycles"
              << (result.value("deadlock", false) ? ", DEADLOCK (ap_done never came)" : "")
              << ", HBM read " << result.value("hbm_bytes_read", uint64_t{0}) << " B, written "
              << result.value("hbm_bytes_written", uint64_t{0}) << " B (seed " << o.seed << ")\n";
    for (const auto &m : result.value("mismatches", nlohmann::json::array()))
      std::cout << "  first mismatch in " << m["buffer"].get<std::string>() << " at byte "
                << m["byte"] << ": expected " << m["expected"] << ", got " << m["actual"] << "\n";
    if (result.contains("error"))
      std::cout << "  error: " << result["error"].get<std::string>() << "\n";
    std::cout << waveform;
  }
  return rc == 0 ? 0 : 1;
}

int runSim(const SimOptions &o) {
  // sim writes into the design directory (sim/, tb/build): only into one compile wrote.
  if (outputKindOf(o.design) != OutputKind::Design) {
    std::cerr << "streamtensor sim: error: " << o.design
              << ": design directory: expected a directory written by 'streamtensor compile', got "
              << (fs::is_directory(o.design) ? "a directory without its marker, design.json or "
                                               "tb/design.json"
                                             : "no such directory")
              << "\n";
    return kExitUsage;
  }
  if (isLlmDesign(o.design))
    return runLlmDesignSim(o);
  if (o.kvPrefill > 0) {
    std::cerr << "streamtensor sim: error: --kv-prefill: " << o.kvPrefill
              << ": expected an LLM design (a graph design has no KV cache), got the graph "
                 "design "
              << o.design << "\n";
    return kExitUsage;
  }
  try {
    return runGraphSim(o);
  } catch (const Error &e) {
    std::cerr << "streamtensor sim: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception &e) {
    std::cerr << "streamtensor sim: error: " << o.design << ": " << e.what() << "\n";
    return 1;
  }
}

constexpr const char *kLlmGroup = "LLM designs (the most used first)";
constexpr const char *kRunGroup = "Output and observation";
constexpr const char *kHbmGroup = "HBM timing of the testbench memory";
constexpr const char *kBuildGroup = "Verilated model (LLM designs)";
constexpr const char *kGraphSimGroup = "Graph designs";

/// What `sim` does, with its examples.
constexpr const char *kSimHelp =
    "Builds <design>/tb (CMake + Verilator, once) and runs it: the inputs are loaded into the\n"
    "HBM model (random latency and ready on every pseudo-channel, seeded), the kernel is\n"
    "started through s_axi_control, and every output is compared bit for bit with the\n"
    "compiler's golden model (an LLM design: every token, KV-cache row, each step's logits and\n"
    "per-layer block output; the first differing tensor, step, layer and element is named).\n"
    "Exit code 0 only when bit-exact and done.\n"
    "Prints the stall report (per stream: transfers, cycles stalled on ready and starved on\n"
    "valid, FIFO high-water mark) and writes <design>/sim/stall_report.{json,md} and\n"
    "stall_report.svg (each stream coloured red by its stalled and blue by its starved share;\n"
    "Graphviz dot draws it); when no stream moves for --watchdog cycles it names the blocked\n"
    "kernels and streams.\n"
    "--trace builds a traced testbench (tb/build-trace) and writes sim/trace.fst and\n"
    "sim/trace.gtkw: gtkwave <design>/sim/trace.fst <design>/sim/trace.gtkw\n\n"
    "Examples:\n"
    "  # an LLM design: decode 16 tokens after a prompt of three\n"
    "  streamtensor compile tests/fixtures/llama_tiny_gqa --max-context 64 -o out/llama\n"
    "  streamtensor sim out/llama --prompt-ids 5,17,42 --tokens 16\n"
    "  # resume at position 40 over the golden model's KV rows 0..39, with waves\n"
    "  streamtensor sim out/llama --prompt-ids 5,17,42 --kv-prefill 40 --tokens 2 --trace\n"
    "  gtkwave out/llama/sim/trace.fst out/llama/sim/trace.gtkw\n"
    "  # a graph design\n"
    "  streamtensor compile tests/graph/chain.yaml -o out/chain\n"
    "  streamtensor sim out/chain --json\n"
    "  {\"bit_exact\":true,\"cycles\":116,\"deadlock\":false,...}\n\n"
    "With --fifo-search (after 'compile --fifo-search') it runs, in the search build, the\n"
    "design with every FIFO at its LP depth and very deep, and for each FIFO bisects the\n"
    "smallest depth (the others at their LP depth) keeping the cycles within 2 % of deep;\n"
    "the results go to search/fifo_search.json and into report.json/report.md.\n";

void addLlmSimOptions(CLI::App &app, SimOptions &o) {
  app.add_option("--prompt-ids", o.promptIds, "Comma-separated prompt token ids")->group(kLlmGroup);
  app.add_option("--tokens", o.tokens, "Tokens to generate")->default_val(16)->group(kLlmGroup);
  app.add_option("--kv-prefill", o.kvPrefill,
                 "Start decoding at position P, with the golden model's KV rows of positions "
                 "0 .. P-1 written into HBM first (the golden model decodes the prompt, and "
                 "greedily beyond it, up to P): measures steps at a long context without "
                 "simulating every earlier step (0: off)")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber)
      ->group(kLlmGroup);
}

/// Adds --json, --trace (returned: it takes an optional path), --watchdog and --timeout.
CLI::Option *addRunOptions(CLI::App &app, SimOptions &o) {
  app.add_flag("--json", o.json, "Print one JSON object")->group(kRunGroup);
  CLI::Option *trace = app.add_option("--trace", o.tracePath,
                                      "Build the traced testbench and write an FST waveform "
                                      "(default <design>/sim/trace.fst) and a GTKWave save "
                                      "file beside it")
                           ->expected(0, 1)
                           ->group(kRunGroup);
  app.add_option("--watchdog", o.watchdog,
                 "Cycles without any stream handshake before the run is declared deadlocked "
                 "and the blocked kernels are named (0: off)")
      ->default_val(20000)
      ->group(kRunGroup);
  app.add_option("--timeout", o.timeout,
                 "Cycles after which a run that has not finished stops as a timeout (0: LLM "
                 "designs 3x the cycles report.json predicts for the run plus 100000, graph "
                 "designs 2000000)")
      ->default_val(0)
      ->group(kRunGroup);
  return trace;
}

void addHbmTimingOptions(CLI::App &app, SimOptions &o) {
  app.add_option("--seed", o.seed, "Seed of the HBM timing")->default_val(1)->group(kHbmGroup);
  app.add_option("--latency", o.latency, "HBM read latency in cycles")
      ->default_val(24)
      ->group(kHbmGroup);
  app.add_option("--jitter", o.jitter, "Extra random latency per burst, up to")
      ->default_val(40)
      ->group(kHbmGroup);
  app.add_option("--ready-probability", o.readyProbability,
                 "Chance per cycle that HBM is ready on each channel")
      ->default_val(0.8)
      ->group(kHbmGroup);
}

void addModelBuildOptions(CLI::App &app, SimOptions &o) {
  app.add_option("--model-opt", o.modelOpt,
                 "Optimization level of the Verilated model's C++, 1 .. 3 (0: 2 when the run "
                 "is predicted at 1,000,000 cycles or more, else 1: a long run pays for the "
                 "longer build)")
      ->default_val(0)
      ->check(CLI::Range(0, 3))
      ->group(kBuildGroup);
  app.add_option("--model-threads", o.modelThreads,
                 "Threads of the Verilated model, same results on any number (0: 2 for a run "
                 "predicted at 1,000,000 cycles or more on a machine with 2 or more cores, "
                 "else 1)")
      ->default_val(0)
      ->check(CLI::Range(0, 64))
      ->group(kBuildGroup);
}

} // namespace

void addSimCommands(std::vector<CliCommand> &registry) {
  registry.push_back(
      {"sim",
       "build and run a compiled design's Verilator testbench, bit-exact against the "
       "golden model",
       kSimHelp, [](CLI::App &app) -> CommandRunner {
         auto o = std::make_shared<SimOptions>();
         app.add_option("design", o->design, "Design directory written by 'compile'")->required();
         addLlmSimOptions(app, *o);
         CLI::Option *traceOption = addRunOptions(app, *o);
         addHbmTimingOptions(app, *o);
         addModelBuildOptions(app, *o);
         app.add_flag("--fifo-search", o->fifoSearch,
                      "Run the RTL FIFO-depth search in search/ (compile --fifo-search); adds "
                      "its results to report.json/md")
             ->group(kGraphSimGroup);
         return [o, traceOption]() {
           o->trace = traceOption->count() > 0;
           return runSim(*o);
         };
       }});
}

} // namespace st::cli
