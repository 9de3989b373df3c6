// `streamtensor sim` on an LLM design directory (see llm_sim.h).
#include "cli/llm_sim.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "cli/design_check.h"
#include "cli/sim_observability.h"
#include "cli/subprocess.h"
#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/model_config.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "llm/accelerator_options_json.h"
#include "llm/golden_trace.h"
#include "llm/run_check.h"
#include "llm/run_layout.h"
#include "llm/step_prediction.h"
#include "plan/llm_plan.h"
#include "plan/run_regions.h"
#include "support/error.h"

namespace st::cli {

namespace {

namespace fs = std::filesystem;
constexpr const char *kCommand = "streamtensor sim";

nlohmann::json readJson(const fs::path &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path.string(), "file", "a file written by 'streamtensor compile'");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw Error(path.string(), "JSON", std::string("valid JSON (") + e.what() + ")");
  }
}

/// The vocabulary size of the design's model: design.json's vocab_size, or (a design compiled
/// before that field) the model directory's config.json.
int64_t vocabSizeOf(const nlohmann::json &design) {
  if (design.contains("vocab_size"))
    return design.at("vocab_size").get<int64_t>();
  return frontend::readModelConfig(design.at("model_dir").get<std::string>()).vocabSize;
}

/// The steps of a run: the design decodes steps first .. total - 1, its prompt ids being those
/// of steps first .. promptEnd - 1; the golden model decodes every step from 0.
struct RunSteps {
  int64_t first = 0;     ///< S: --kv-prefill (0: a fresh decode)
  int64_t promptEnd = 0; ///< max(prompt length, S + 1)
  int64_t total = 0;     ///< T = promptEnd + tokens - 1
  int64_t designPrompt() const { return promptEnd - first; }
  int64_t designSteps() const { return total - first; }
};

RunSteps runStepsOf(const LlmSimOptions &o) {
  RunSteps r;
  r.first = o.kvPrefill;
  r.promptEnd = std::max(static_cast<int64_t>(o.prompt.size()), o.kvPrefill + 1);
  r.total = r.promptEnd + o.newTokens - 1;
  return r;
}

/// Rejects a run the design cannot take, before the testbench is built: an empty prompt, a
/// prompt id outside [0, vocab_size), a negative --kv-prefill or more steps (prompt, or prefill
/// + 1, + tokens - 1) than the design's max_context positions of KV cache.
void checkRunFits(const fs::path &designFile, const nlohmann::json &design,
                  const LlmSimOptions &o) {
  if (o.prompt.empty())
    throw Error("--prompt-ids", "(empty)", "at least one prompt token id");
  const int64_t vocab = vocabSizeOf(design);
  for (size_t i = 0; i < o.prompt.size(); ++i)
    if (o.prompt[i] < 0 || o.prompt[i] >= vocab)
      throw Error("--prompt-ids",
                  "id " + std::to_string(o.prompt[i]) + " (position " + std::to_string(i) + ")",
                  "a token id in [0, " + std::to_string(vocab) + ") (vocab_size of " +
                      designFile.string() + ")");
  if (o.newTokens < 1)
    throw Error("--tokens", std::to_string(o.newTokens), "at least 1");
  if (o.kvPrefill < 0)
    throw Error("--kv-prefill", std::to_string(o.kvPrefill), "a position >= 0");
  const int64_t maxContext = design.at("max_context").get<int64_t>();
  const RunSteps steps = runStepsOf(o);
  if (steps.total > maxContext) {
    const std::string start = o.kvPrefill == 0
                                  ? "prompt length " + std::to_string(o.prompt.size())
                                  : "max(prompt length " + std::to_string(o.prompt.size()) +
                                        ", kv-prefill " + std::to_string(o.kvPrefill) + " + 1)";
    const int64_t most = maxContext - steps.promptEnd + 1;
    throw Error("--tokens", std::to_string(o.newTokens),
                start + " + tokens - 1 <= max_context " + std::to_string(maxContext) + " of " +
                    designFile.string() +
                    (most >= 1 ? ", i.e. at most " + std::to_string(most) + " tokens"
                               : ", i.e. a kv-prefill below " + std::to_string(maxContext)));
  }
}

/// The testbench's last JSON line.
nlohmann::json lastJsonLine(const std::string &out) {
  std::string last;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] == '{')
      last = line;
  return nlohmann::json::parse(last);
}

/// The golden model's run of steps 0 .. T-1 and the design's HBM layout to check it in.
struct GoldenRun {
  llm::GoldenTrace trace;
  llm::RunLayout layout;
};

GoldenRun runGolden(const fs::path &dir, const nlohmann::json &design, const LlmSimOptions &o) {
  const std::string modelDir = design.at("model_dir").get<std::string>();
  const bool randomWeights = design.value("random_weights", false);
  const frontend::LoadedModel model =
      frontend::loadModel(modelDir, randomWeights ? frontend::WeightSource::Random
                                                  : frontend::WeightSource::Checkpoint);
  const numerics::Precision precision =
      frontend::parsePrecision(design.at("precision").get<std::string>(), "design.json precision");
  const frontend::Calibration calibration =
      frontend::calibrate(model.program, model.weights,
                          frontend::calibrationSetOf(modelDir, model.program.vocabSize,
                                                     model.program.maxPositions, randomWeights));
  frontend::QuantizedModel q =
      frontend::quantizeModel(model.program, model.weights, precision, calibration);
  // The design's attention numerics: one pass in its tiles, or two passes (checked by
  // checkLlmDesignDirectory).
  frontend::applyAttentionTiles(q, design.value("attention_tile_positions", int64_t(0)));
  const plan::HbmImagePlan plan = gen::readHbmManifest((dir / "hbm" / "manifest.json").string());
  const std::vector<llm::TapSpec> taps = llm::defaultRunTaps(model.program);
  const RunSteps steps = runStepsOf(o);
  GoldenRun g{llm::runGoldenTrace(model.program, q, o.prompt,
                                  steps.total - static_cast<int64_t>(o.prompt.size()) + 1,
                                  plan.maxContext, taps),
              plan::runLayoutOf(plan, model.program, q, taps)};
  return g;
}

/// What the golden model says about the run, checked against the testbench's dump.
struct GoldenCheck {
  std::vector<int64_t> golden;
  std::vector<int64_t> tokens;
  std::optional<llm::RunMismatch> mismatch;
};

GoldenCheck checkAgainstGolden(const GoldenRun &g, const nlohmann::json &manifest,
                               const LlmSimOptions &o, const fs::path &dumpDir) {
  const RunSteps steps = runStepsOf(o);
  GoldenCheck c;
  // The design's k-th generated id is the argmax of step promptEnd - 1 + k.
  const int64_t skipped = steps.promptEnd - static_cast<int64_t>(g.trace.prompt.size());
  c.golden.assign(g.trace.generated.begin() + skipped, g.trace.generated.end());
  llm::RegionMemory memory;
  for (const auto &r : manifest.at("dump")) {
    const fs::path file = dumpDir / (r.at("name").get<std::string>() + ".bin");
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    memory.write(r.at("address").get<uint64_t>(), bytes);
  }
  for (int64_t k = 0; k < o.newTokens; ++k) {
    const std::vector<uint8_t> id =
        memory.read(g.layout.tokensAddress + static_cast<uint64_t>(k) * g.layout.tokensStride, 4);
    c.tokens.push_back(int64_t{id[0]} | int64_t{id[1]} << 8 | int64_t{id[2]} << 16 |
                       int64_t{id[3]} << 24);
  }
  c.mismatch = llm::firstMismatch(g.trace, g.layout, memory.reader(), steps.first);
  return c;
}

/// Writes the --preload file of a run resuming at step S: the golden KV rows of positions
/// 0 .. S-1 of every cache and layer (llm::kvPrefillRegions), as the testbench reads them.
void writePreloadFile(const fs::path &file, const GoldenRun &g, int64_t firstStep) {
  std::ofstream out(file, std::ios::binary);
  auto u64 = [&](uint64_t v) {
    for (int b = 0; b < 8; ++b)
      out.put(static_cast<char>(v >> (8 * b)));
  };
  for (const llm::CheckedRegion &r : llm::kvPrefillRegions(g.layout, g.trace, firstStep)) {
    u64(r.address);
    u64(r.bytes.size());
    out.write(reinterpret_cast<const char *>(r.bytes.data()),
              static_cast<std::streamsize>(r.bytes.size()));
  }
  if (!out)
    throw Error(file.string(), "file", "a writable file for the KV prefill");
}

/// The step prediction of the run's steps S .. T-1 (llm/step_prediction.h): each step one timing
/// simulation of the design as compile lowered it, from design.json's accelerator options and the
/// model's shapes, under the testbench memory's default behaviour.
std::vector<int64_t> predictRunSteps(const fs::path &designFile, const nlohmann::json &design,
                                     const LlmSimOptions &o) {
  const llm::AcceleratorOptions options = llm::acceleratorOptionsFromJson(
      design.contains("accelerator") ? design.at("accelerator") : nlohmann::json(),
      designFile.string());
  const frontend::LoadedModel model = frontend::loadModel(design.at("model_dir").get<std::string>(),
                                                          frontend::WeightSource::ShapeOnly);
  const llm::AcceleratorGraph graph = plan::lowerLlmDesign(model.program, options);
  const RunSteps steps = runStepsOf(o);
  return plan::predictLlmSteps(graph, options,
                               llm::runSteps(steps.designPrompt(), o.newTokens, steps.first))
      .stepCycles;
}

/// The run's step prediction into `result`: predicted_step_cycles and predicted prompt /
/// generated cycles per token. Returns the text sim prints.
std::string addStepPrediction(const std::vector<int64_t> &runCycles, const LlmSimOptions &o,
                              nlohmann::json &result) {
  const RunSteps steps = runStepsOf(o);
  const llm::RunPrediction p = llm::predictRun(runCycles, steps.designPrompt(), o.newTokens);
  result["predicted_step_cycles"] = p.stepCycles;
  result["predicted_prompt_cycles_per_token"] = p.promptCyclesPerToken;
  result["predicted_cycles_per_token"] = p.generatedCyclesPerToken;
  const model::MemoryTiming hbm;
  std::ostringstream os;
  os << "  predicted (HBM latency " << hbm.readLatency << " + jitter " << hbm.readLatencyJitter
     << ", ready " << hbm.readyProbability << "): prompt " << p.promptCyclesPerToken
     << ", generated " << p.generatedCyclesPerToken;
  if (o.latency != hbm.readLatency || o.jitter != hbm.readLatencyJitter ||
      o.readyProbability != hbm.readyProbability)
    os << " (this run's HBM timing differs)";
  if (result.contains("generated_cycles_per_token") && p.generatedCyclesPerToken > 0)
    os << "; measured / predicted "
       << result["generated_cycles_per_token"].get<double>() / p.generatedCyclesPerToken;
  os << "\n";
  return os.str();
}

/// The run's cycle budget when --timeout is 0: kBudgetFactor x its predicted cycles, plus
/// kBudgetSlack for the AXI-Lite programming and the poll.
uint64_t runBudgetCycles(double predictedCycles) {
  return static_cast<uint64_t>(predictedCycles) * kBudgetFactor + kBudgetSlack;
}

/// A run predicted at this many cycles or more gets the optimized, multithreaded model by
/// default: a full-size model's few steps simulate for minutes, and -O2 with two threads ran a
/// GPT-2 Medium-shaped layer pair 1.8x faster (docs/decisions.md) for about two minutes more of
/// build. The tests' fixtures run far shorter and keep the quick -O1 build.
constexpr double kLongRunCycles = 1e6;

/// How the testbench's model is built: the options, or by the run's length. A design written
/// before its testbench took ST_TB_OPT builds at -O1 single-threaded whatever is asked (a note
/// says so), and the result reports that.
ModelBuild modelBuildFor(const fs::path &dir, const LlmSimOptions &o, double predictedCycles) {
  std::ifstream cmakeLists(dir / "tb" / "CMakeLists.txt");
  const std::string text((std::istreambuf_iterator<char>(cmakeLists)),
                         std::istreambuf_iterator<char>());
  if (text.find("ST_TB_OPT") == std::string::npos) {
    std::cerr << "streamtensor sim: note: " << (dir / "tb").string()
              << " was written by an older compile: its model builds at -O1 on one thread "
                 "(compile the design again for --model-opt and --model-threads)\n";
    return {};
  }
  const bool longRun = predictedCycles >= kLongRunCycles;
  ModelBuild m;
  m.opt = o.modelOpt > 0 ? o.modelOpt : longRun ? 2 : 1;
  m.threads = o.modelThreads > 0                                    ? o.modelThreads
              : longRun && std::thread::hardware_concurrency() >= 2 ? 2
                                                                    : 1;
  return m;
}

/// The testbench's stream observations carried into sim's result: the stall report's
/// "streams" and "profiled_cycles", and on a deadlock the watchdog's diagnosis ("watchdog") or
/// the one taken at --timeout ("blocked_at_timeout").
void addObservations(nlohmann::json &result, const nlohmann::json &run) {
  for (const char *key : {"streams", "profiled_cycles", "watchdog", "blocked_at_timeout"})
    if (run.contains(key))
      result[key] = run.at(key);
}

} // namespace

bool isLlmDesign(const std::string &designDir) {
  // Graph designs keep their manifest in tb/; a top-level design.json, even a damaged one, is
  // an LLM design's (its check then names what is wrong).
  std::error_code ec;
  return fs::exists(fs::path(designDir) / "design.json", ec);
}

/// The testbench's command line for a run of the design's steps from `steps.first`.
std::string testbenchCommand(const fs::path &tb, const std::string &top, const fs::path &dump,
                             const std::string &promptIds, uint64_t budget, const RunSteps &steps,
                             const fs::path &preload, const LlmSimOptions &o) {
  const bool trace = !o.trace.empty();
  std::ostringstream cmd;
  cmd << shellQuote((fs::path(testbenchBuildDir(tb.string(), trace)) / ("tb_" + top)).string())
      << " --manifest " << shellQuote((tb / "llm_run.json").string()) << " --output-dir "
      << shellQuote(dump.string()) << " --prompt-ids " << promptIds << " --new-tokens "
      << o.newTokens << " --seed " << o.seed << " --latency " << o.latency << " --jitter "
      << o.jitter << " --ready-probability " << o.readyProbability << " --timeout " << budget
      << " --watchdog " << o.watchdog;
  if (steps.first > 0)
    cmd << " --first-step " << steps.first << " --preload " << shellQuote(preload.string());
  if (trace) {
    fs::create_directories(fs::path(o.trace).parent_path());
    cmd << " --trace " << shellQuote(o.trace);
  }
  return cmd.str();
}

/// The measured cycles per step into `result`: each step ends with the last beat of its logits
/// row (`ends`, one per design step when the run finished).
void addStepCycles(nlohmann::json &result, const std::vector<uint64_t> &ends, const RunSteps &steps,
                   bool timedOut) {
  // The design's steps: its prompt steps S .. promptEnd - 1, then the generated ones.
  const int64_t p = steps.designPrompt();
  const int64_t runSteps = steps.designSteps();
  if (timedOut)
    result["completed_steps"] = ends.size();
  if (static_cast<int64_t>(ends.size()) != runSteps)
    return;
  result["step_end_cycles"] = ends;
  result["prompt_cycles_per_token"] = static_cast<double>(ends[p - 1]) / static_cast<double>(p);
  if (runSteps > p)
    result["generated_cycles_per_token"] =
        static_cast<double>(ends[runSteps - 1] - ends[p - 1]) / static_cast<double>(runSteps - p);
  result["cycles_per_token"] =
      static_cast<double>(ends[runSteps - 1]) / static_cast<double>(runSteps);
}

/// What a run's human-readable summary prints beside `result` (sim's JSON).
struct RunSummary {
  bool exact = false, timedOut = false, deadlock = false;
  RunSteps steps;
  uint64_t budget = 0;
  size_t finishedSteps = 0;
  std::string predicted;     ///< addStepPrediction's lines
  std::string stallMarkdown; ///< the stall report (empty: none)
  fs::path stallPath;
  std::string waveform; ///< the waveform view's lines (empty: no trace)
  double mhz = 250;
};

void printRunSummary(std::ostream &out, const nlohmann::json &result, const RunSummary &r,
                     const GoldenCheck &check, const nlohmann::json &run, uint64_t seed) {
  if (!r.stallMarkdown.empty())
    out << r.stallMarkdown << "(also in " << r.stallPath.string() << ")\n\n";
  const int64_t runSteps = r.steps.designSteps();
  out << result.at("top").get<std::string>() << ": "
      << (r.exact      ? "bit-exact"
          : r.timedOut ? "TIMEOUT"
          : r.deadlock ? "DEADLOCK"
                       : "MISMATCH")
      << " over " << runSteps << " steps";
  if (r.steps.first > 0)
    out << " from position " << r.steps.first << " (KV rows 0.." << r.steps.first - 1
        << " prefilled)";
  out << " (seed " << seed << ")\n  tokens: ";
  for (int64_t t : check.tokens)
    out << t << " ";
  out << "\n  golden: ";
  for (int64_t t : check.golden)
    out << t << " ";
  out << "\n";
  if (result.contains("cycles_per_token"))
    out << "  cycles per token: prompt " << result["prompt_cycles_per_token"] << ", generated "
        << result.value("generated_cycles_per_token", 0.0) << ", predicted "
        << result["predicted_cycles_per_token"] << "\n";
  out << r.predicted;
  out << "  HBM: " << result["hbm_bytes"] << " bytes in " << result["cycles"] << " cycles ("
      << result["hbm_gbytes_per_s"] << " GB/s at " << r.mhz << " MHz)\n";
  if (check.mismatch)
    out << "  first mismatch: " << check.mismatch->toString() << "\n";
  if (r.deadlock)
    out << "  DEADLOCK: ap_done never came (" << run.value("error", "") << ")\n";
  if (r.timedOut)
    out << "  TIMEOUT: no ap_done within " << r.budget << " cycles while streams kept moving; "
        << r.finishedSteps << " of " << runSteps
        << " steps finished (not a deadlock: rerun with a larger --timeout)\n";
  if (result.contains("watchdog"))
    out << "  watchdog: " << result["watchdog"].value("summary", std::string()) << "\n";
  out << r.waveform;
}

int runLlmSim(const LlmSimOptions &o) {
  try {
    const fs::path dir = o.design;
    // A damaged directory (a missing or truncated image file, manifests that disagree, a missing
    // RTL file) is one error here rather than a failed build or a wrong run later.
    checkLlmDesignDirectory(dir);
    if (!o.trace.empty())
      checkTraceOutputs(o.trace);
    const nlohmann::json design = readJson(dir / "design.json");
    const fs::path tb = dir / "tb";
    const nlohmann::json manifest = readJson(tb / "llm_run.json");
    checkRunFits(dir / "design.json", design, o);
    std::string log;
    const bool trace = !o.trace.empty();
    using Clock = std::chrono::steady_clock;
    auto secondsSince = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    const Clock::time_point buildStart = Clock::now();
    const std::vector<int64_t> runCycles = predictRunSteps(dir / "design.json", design, o);
    double predictedCycles = 0;
    for (int64_t c : runCycles)
      predictedCycles += static_cast<double>(c);
    const ModelBuild model = modelBuildFor(dir, o, predictedCycles);
    if (!buildTestbench(tb.string(), log, trace, model)) {
      std::cerr << log;
      throw Error(o.design, "testbench build", "the generated testbench to build (log above)");
    }
    const fs::path dump = dir / "sim" / "actual";
    fs::remove_all(dump);
    fs::create_directories(dump);
    const std::string top = design.at("top").get<std::string>();
    // The golden run first: a prefilled run needs its KV rows and the ids it resumes with.
    const double buildSeconds = secondsSince(buildStart);
    const RunSteps steps = runStepsOf(o);
    const Clock::time_point goldenStart = Clock::now();
    const GoldenRun golden = runGolden(dir, design, o);
    const double goldenSeconds = secondsSince(goldenStart);
    std::ostringstream ids;
    for (int64_t t = steps.first; t < steps.promptEnd; ++t)
      ids << (t > steps.first ? "," : "") << golden.trace.steps[static_cast<size_t>(t)].token;
    const fs::path preload = dir / "sim" / "kv_prefill.bin";
    fs::remove(preload);
    if (steps.first > 0)
      writePreloadFile(preload, golden, steps.first);
    const uint64_t budget = o.timeout > 0 ? o.timeout : runBudgetCycles(predictedCycles);
    std::string out;
    const Clock::time_point runStart = Clock::now();
    const int rc = runCapture(
        testbenchCommand(tb, top, dump, ids.str(), budget, steps, preload, o) + " 2>&1", out);
    const double runSeconds = secondsSince(runStart);
    nlohmann::json run;
    try {
      run = lastJsonLine(out);
    } catch (const nlohmann::json::exception &) {
      std::cerr << out;
      throw Error(o.design, "testbench output",
                  "a JSON result line (exit code " + std::to_string(rc) + ")");
    }
    const bool deadlock = run.value("deadlock", false);
    // Out of budget with streams still moving: not a deadlock, and the dumped state of the
    // unfinished steps is not compared (it would only show where the run stopped).
    const bool timedOut = run.value("timeout", false);
    nlohmann::json result;
    result["top"] = top;
    result["seed"] = o.seed;
    result["prompt"] = o.prompt;
    result["kv_prefill"] = steps.first;
    // Wall time: the testbench build (0 when up to date), the golden model's run (every step from
    // 0) and the Verilator run of the design's steps.
    result["wall_seconds"] = {
        {"testbench_build", buildSeconds}, {"golden", goldenSeconds}, {"simulation", runSeconds}};
    result["deadlock"] = deadlock;
    result["timeout"] = timedOut;
    result["budget_cycles"] = budget;
    result["model_opt"] = model.opt;
    result["model_threads"] = model.threads;
    if (run.contains("error"))
      result["error"] = run["error"];
    addObservations(result, run);
    GoldenCheck check;
    if (!timedOut)
      check = checkAgainstGolden(golden, manifest, o, dump);
    result["tokens"] = check.tokens;
    result["golden_tokens"] = check.golden;
    const bool exact = !deadlock && !timedOut && !run.contains("error") && !check.mismatch;
    result["bit_exact"] = exact;
    if (check.mismatch)
      result["first_mismatch"] = check.mismatch->toString();
    const std::vector<uint64_t> ends = run.value("step_end_cycles", std::vector<uint64_t>{});
    addStepCycles(result, ends, steps, timedOut);
    const std::string predicted = addStepPrediction(runCycles, o, result);
    const uint64_t cycles = run.value("cycles", uint64_t{0});
    const uint64_t bytes =
        run.value("hbm_bytes_read", uint64_t{0}) + run.value("hbm_bytes_written", uint64_t{0});
    const double mhz = manifest.value("kernel_clock_mhz", 250.0);
    result["cycles"] = cycles;
    result["hbm_bytes"] = bytes;
    result["hbm_gbytes_per_s"] =
        cycles ? static_cast<double>(bytes) / (static_cast<double>(cycles) / (mhz * 1e6)) / 1e9
               : 0.0;
    std::ofstream(dir / "sim" / "result.json") << result.dump(2) << "\n";
    // The stall report over the accelerator's streams, and the waveform's view.
    nlohmann::json stallInput = run;
    stallInput["top"] = top;
    stallInput["bit_exact"] = exact;
    const std::string stallMarkdown = writeStallReport(dir / "sim", stallInput);
    const std::string waveform =
        trace ? writeWaveformView(tb / "llm_run.json", top, o.trace) : std::string();
    if (o.json) {
      std::cout << result.dump() << "\n";
    } else {
      RunSummary summary;
      summary.exact = exact;
      summary.timedOut = timedOut;
      summary.deadlock = deadlock;
      summary.steps = steps;
      summary.budget = budget;
      summary.finishedSteps = ends.size();
      summary.predicted = predicted;
      summary.stallMarkdown = stallMarkdown;
      summary.stallPath = dir / "sim" / "stall_report.md";
      summary.waveform = waveform;
      summary.mhz = mhz;
      printRunSummary(std::cout, result, summary, check, run, o.seed);
    }
    return exact ? 0 : 1;
  } catch (const Error &e) {
    std::cerr << kCommand << ": error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception &e) {
    std::cerr << kCommand << ": error: " << o.design << ": " << e.what() << "\n";
    return 1;
  }
}

} // namespace st::cli
