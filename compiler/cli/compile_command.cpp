// `streamtensor compile <graph.yaml> -o <dir>`: reads a graph, runs the pass pipeline (verifier
// after each pass; --dump-after <pass> prints the dataflow IR), and writes the design directory.
// The directory is written beside the target and swapped into place only when everything
// succeeded (cli/output_directory.h), so a failed compile leaves nothing half-written behind,
// and an existing path is replaced only when it is a design directory this tool wrote.
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "cli/output_directory.h"
#include "cli/pictures.h"
#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/graph_yaml.h"
#include "frontend/quantized_model.h"
#include "gen/design_writer.h"
#include "gen/llm_design.h"
#include "llm/design_defaults.h"
#include "llm/prediction_work.h"
#include "passes/pass_pipeline.h"
#include "plan/attention_tile_choice.h"
#include "plan/engine_fifo_choice.h"
#include "plan/graph_plan.h"
#include "plan/hbm_capacity.h"
#include "plan/kv_step_choice.h"
#include "plan/llm_plan.h"
#include "support/error.h"
#include "support/parallel.h"
#include "support/phase_log.h"

namespace st::cli {

namespace {

namespace fs = std::filesystem;

/// The summary line's kernel-cycle figure: the prediction under sim's default HBM, or that the
/// design deadlocks at its (forced) FIFO depths.
std::string kernelCyclesNote(const passes::CompileState &state) {
  if (state.kernelCycles.empty())
    return "no kernel cycle prediction";
  const passes::KernelCycles &k = state.kernelCycles.front().prediction;
  if (!k.cycles)
    return "deadlocks at these FIFO depths, no kernel cycle prediction";
  return "predicted kernel cycles " + std::to_string(*k.cycles) + " under sim's default HBM";
}

struct CompileOptions {
  std::string input;
  std::string output;
  std::string dumpAfter;
  std::string device = std::string(ST_SOURCE_DIR) + "/constraints/u55c.yaml";
  int64_t defaultTile = 4;
  int64_t memoryBudget = 0;
  uint64_t dataSeed = 1;
  std::string fifoMode = "lp";
  std::vector<std::string> fifoDepths;
  bool fifoSearch = false;
  // A model directory (the LLM accelerator):
  std::string precision = "w4a8";
  int64_t maxContext = 0; ///< 0: min(max_position_embeddings, llm::kDefaultMaxContext)
  int64_t maxLanes = 8;
  std::string engine = "gemv";
  bool floorplan = false;                     ///< plan the SLR floorplan (--floorplan)
  double slrBudget = plan::kDefaultSlrBudget; ///< share of each SLR the floorplan may fill
  double sllBudget = plan::kDefaultSllBudget; ///< share of each boundary's SLLs it may cross with
  int64_t attentionKvStep = -1;   ///< -1: chooseAttentionParallelism within llm::kResourceShare
  int64_t attentionHeadSplit = 0; ///< 0: 1, or chooseAttentionParallelism's (implies kv step 1)
  int64_t attentionReadStep = -1; ///< -1: chooseAttentionParallelism's (0 with --attention-kv-step)
  /// "position", "block", or empty: block-major wherever it applies (llm::kvBlockMajorApplies).
  std::string attentionWalk;
  int64_t attentionTile = -1; ///< -1: chosen; 0: two passes; >= 2: one pass in such tiles
  /// >= 2: positions striped over this many slices (llm::kvPositionStripingOf); 0: not; -1:
  /// chooseAttentionParallelism's.
  int64_t attentionPositionSlices = -1;
  int64_t enginePackedPairs = -1; ///< -1: chooseAttentionParallelism's (0 with --attention-kv-step)
  int64_t engineFifoWords = 0;    ///< 0: plan::chooseEngineFifoWords among 4,096 and 8,192
  bool randomWeights = false;
  bool quiet = false;
  std::string timings;
  std::string target;
  bool force = false;
};

/// Writes the phases' wall and CPU times and peak RSS (--timings).
void writeTimings(const std::string &path, const PhaseLog &log) {
  nlohmann::json j;
  j["total_seconds"] = log.totalSeconds();
  j["cpu_seconds"] = processCpuSeconds();
  j["peak_rss_bytes"] = peakRssBytes();
  // A phase beside the main sequence has no CPU time of its own (phase_log.h).
  for (const PhaseRecord &p : log.phases())
    j["phases"].push_back(
        {{"name", p.name},
         {"seconds", p.seconds},
         {"cpu_seconds", p.beside ? nlohmann::json() : nlohmann::json(p.cpuSeconds)},
         {"beside", p.beside},
         {"peak_rss_bytes", p.peakRssBytes}});
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out)
    throw Error(path, "--timings", "a writable file");
}

/// dataflow.dot and dataflow.svg of the staged design; a note (no Graphviz) names the final
/// directory, not the staging one.
void drawDataflow(const fs::path &staging, const fs::path &target) {
  std::string note = writeDataflowPicture(staging);
  if (note.empty())
    return;
  for (size_t at; (at = note.find(staging.string())) != std::string::npos;)
    note.replace(at, staging.string().size(), target.string());
  std::cerr << "streamtensor compile: note: " << note << "\n";
}

/// --fifo-depth STREAM=DEPTH options.
std::map<std::string, int64_t> parseFifoDepths(const std::vector<std::string> &options) {
  std::map<std::string, int64_t> depths;
  for (const std::string &f : options) {
    const size_t eq = f.rfind('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--fifo-depth", "'" + f + "'", "STREAM=DEPTH");
    try {
      depths[f.substr(0, eq)] = std::stoll(f.substr(eq + 1));
    } catch (const std::exception &) {
      throw Error("--fifo-depth", "'" + f + "'", "an integer depth after '='");
    }
    if (depths[f.substr(0, eq)] < 1)
      throw Error("--fifo-depth", "'" + f + "'", "a depth >= 1");
  }
  return depths;
}

/// The accelerator's attention parallelism: the command line's where it gives it, else compile's
/// choice (plan/kv_step_choice), which simulates the step of its two position stripings side by
/// side into `steps` where both fit (TinyLlama-1.1B, Qwen2.5-0.5B). It runs first, on all the
/// budget's threads: the other choices depend on it.
void chooseParallelism(const CompileOptions &o, const ir::DecodeProgram &program,
                       const model::ResourceEstimate &budget, llm::StepCache &steps,
                       llm::AcceleratorOptions &accelerator) {
  {
    if (o.attentionKvStep >= 0 || o.attentionHeadSplit > 0) {
      accelerator.attentionKvStep = o.attentionKvStep >= 0 ? o.attentionKvStep : 1;
      accelerator.attentionHeadSplit = std::max<int64_t>(o.attentionHeadSplit, 1);
      accelerator.attentionReadStep = std::max<int64_t>(o.attentionReadStep, 0);
      accelerator.enginePackedPairs = std::max<int64_t>(o.enginePackedPairs, 0);
      accelerator.attentionBlockMajor =
          o.attentionWalk == "block" ||
          (o.attentionWalk.empty() && plan::attentionBlockMajorApplies(program, accelerator));
    } else {
      const plan::AttentionParallelism chosen =
          plan::chooseAttentionParallelism(program, accelerator, budget, &steps);
      chosen.applyTo(accelerator);
      // The command line's read step, packed pairs and walk override the choice; the choice's
      // position striping stands only without any of them.
      if (o.attentionReadStep >= 0)
        accelerator.attentionReadStep = o.attentionReadStep;
      if (o.enginePackedPairs >= 0)
        accelerator.enginePackedPairs = o.enginePackedPairs;
      accelerator.attentionBlockMajor =
          o.attentionWalk == "block" || (o.attentionWalk.empty() && chosen.blockMajor &&
                                         plan::attentionBlockMajorApplies(program, accelerator));
      if (o.attentionPositionSlices >= 0 || o.attentionReadStep >= 0 || !o.attentionWalk.empty() ||
          chosen.positionSlices < 2)
        accelerator.attentionPositionSlices = 0;
    }
    if (o.attentionPositionSlices >= 2) {
      // Positions striped: attention at one kv head per token, block-major (kvPositionStripingOf).
      accelerator.attentionPositionSlices = o.attentionPositionSlices;
      accelerator.attentionKvStep = 1;
      accelerator.attentionHeadSplit = 1;
      accelerator.attentionReadStep = 0;
      accelerator.attentionBlockMajor = true;
    }
    if (o.attentionTile >= 0)
      accelerator.attentionTilePositions = o.attentionTile;
  }
}

/// The attention tile and the engine FIFO depth: the command line's where it gives them, else
/// compile's choices (plan/attention_tile_choice, plan/engine_fifo_choice), which simulate the
/// step of each weighed candidate into `steps`.
void chooseTileAndFifo(const CompileOptions &o, const ir::DecodeProgram &program,
                       const model::ResourceEstimate &budget, PhaseLog &log, llm::StepCache &steps,
                       llm::AcceleratorOptions &accelerator) {
  if (o.attentionTile < 0) {
    // A step simulation per candidate (two passes, tiles of 64, 128 and 256 positions) where
    // one pass applies.
    BesidePhase phase(&log, "attention pass");
    accelerator.attentionTilePositions = plan::chooseAttentionTile(
        program, accelerator, plan::kAttentionTileCandidates, budget, &steps);
  }
  if (o.engineFifoWords == 0) {
    // A step simulation per candidate depth.
    BesidePhase phase(&log, "engine FIFO depth");
    accelerator.engineFifoWords = plan::chooseEngineFifoWords(
        program, accelerator, plan::kEngineFifoCandidates, budget, {}, &steps);
  }
}

/// The plan options of compile's LLM design: its name (the model directory's and the
/// precision's), the device, the accelerator options and where its tables go.
plan::LlmPlanOptions llmPlanOptions(const CompileOptions &o, const std::string &finalDir,
                                    const llm::AcceleratorOptions &accelerator) {
  plan::LlmPlanOptions po;
  po.designName = fs::path(o.input).lexically_normal().filename().string();
  if (po.designName.empty())
    po.designName = fs::path(o.input).lexically_normal().parent_path().filename().string();
  po.designName += "_" + frontend::precisionName(accelerator.precision);
  po.devicePath = o.device;
  po.accelerator = accelerator;
  po.tablePrefix = fs::absolute(fs::path(finalDir) / "rtl" / "tables").string() + "/";
  po.floorplan = o.floorplan;
  po.slrBudget = o.slrBudget;
  po.sllBudget = o.sllBudget;
  return po;
}

/// compile's emitting item: calibrates and quantizes `model`, then, once the choices and the
/// lowering are done (`choices`), plans the design and writes its HBM image while the step
/// prediction runs, then (`prediction`) its RTL and reports.
void emitLlmDesign(const CompileOptions &o, const std::string &finalDir, const fs::path &staging,
                   PhaseLog &log, frontend::LoadedModel &model, std::future<void> choices,
                   std::future<void> prediction,
                   const std::optional<llm::AcceleratorGraph> &lowered,
                   const llm::AcceleratorOptions &accelerator,
                   const plan::LlmStepPrediction &predicted) {
  log.begin("calibration");
  const frontend::Calibration calibration =
      frontend::calibrate(model.program, model.weights,
                          frontend::calibrationSetOf(o.input, model.program.vocabSize,
                                                     model.program.maxPositions, o.randomWeights));
  log.begin("quantization");
  frontend::QuantizedModel quantized =
      frontend::quantizeModel(model.program, model.weights, accelerator.precision, calibration);
  // The design is made from the program and the quantized model alone: a checkpoint's fp32
  // weights go, so the HBM image and the rest run beside the quantized model only (peak RSS;
  // random weights are streamed and were never held).
  model.weights = frontend::WeightStore();
  log.begin("waiting for the choices");
  {
    const BudgetYield idle; // the choices may take this thread's place meanwhile
    choices.wait();
  }
  choices.get();
  // The golden model computes attention as the design does (one pass in its tiles, or two).
  frontend::applyAttentionTiles(quantized, accelerator.attentionTilePositions);
  log.begin("planning");
  const plan::LlmPlan design =
      plan::planLlmDesign(model, quantized, *lowered, llmPlanOptions(o, finalDir, accelerator));
  log.begin("HBM image");
  gen::writeLlmHbmImage(design, staging.string());
  log.begin("waiting for the prediction");
  {
    const BudgetYield idle;
    prediction.wait();
  }
  prediction.get();
  log.begin("RTL + reports");
  gen::LlmWriteOptions w;
  w.sourceDir = ST_SOURCE_DIR;
  w.modelDir = o.input;
  w.finalDir = fs::absolute(finalDir).string();
  w.randomWeights = o.randomWeights;
  gen::writeLlmDesign(design, predicted, w, staging.string());
  log.end();
}

/// The design's max context, checked before any weight is read (config.json alone): the HBM
/// capacity at that context from the model's shapes (plan/hbm_capacity.h), then the model's
/// max_position_embeddings. Throws st::Error naming what does not fit.
int64_t checkedMaxContext(const CompileOptions &o, numerics::Precision precision) {
  const frontend::LoadedModel shapes =
      frontend::loadModel(o.input, frontend::WeightSource::ShapeOnly);
  // Default: the model's whole context, at most llm::kDefaultMaxContext rows of KV cache.
  const int64_t maxContext =
      o.maxContext > 0 ? o.maxContext : llm::defaultMaxContext(shapes.program);
  plan::checkHbmCapacity(plan::hbmCapacityNeed(shapes.program, precision),
                         plan::loadHbmDevice(o.device), maxContext);
  if (maxContext < 2 || maxContext > shapes.program.maxPositions)
    throw Error("--max-context", std::to_string(maxContext),
                "2 .. " + std::to_string(shapes.program.maxPositions) +
                    " (the model's max_position_embeddings)");
  return maxContext;
}

/// The LLM accelerator of a Hugging Face model directory (docs/accelerator.md,
/// docs/architecture.md): load -> calibrate -> quantize (choose, lower, size and predict beside)
/// -> plan -> emit.
void compileModel(const CompileOptions &o, const std::string &finalDir, const fs::path &staging,
                  PhaseLog &log) {
  const numerics::Precision precision = frontend::parsePrecision(o.precision, "--precision");
  const int64_t maxContext = checkedMaxContext(o, precision);
  log.begin("reading weights");
  frontend::LoadedModel model =
      frontend::loadModel(o.input, o.randomWeights ? frontend::WeightSource::Random
                                                   : frontend::WeightSource::Checkpoint);
  // plan: the top's interface, kernel bindings and HBM plan need the quantized model; the
  // design choices, lowering, FIFO sizing and step prediction read only the program's shapes, so
  // they run beside calibration and quantization: two items of one parallelFor, so that both
  // take their threads out of the one budget (support/parallel.h). The attention parallelism,
  // which the other choices depend on, is chosen first on all threads. The other item
  // calibrates, quantizes, then plans the design and writes its HBM image beside the prediction.
  llm::AcceleratorOptions accelerator;
  accelerator.precision = precision;
  accelerator.maxContext = maxContext;
  accelerator.maxLanes = o.maxLanes;
  accelerator.engine = llm::parseLinearEngine(o.engine, "--engine");
  accelerator.forcedDepths = parseFifoDepths(o.fifoDepths);
  if (o.engineFifoWords > 0)
    accelerator.engineFifoWords = o.engineFifoWords;
  const passes::DeviceConstraints device = passes::loadDeviceConstraints(o.device);
  // What the design choices and the step prediction simulate (report.json step_prediction.work).
  const llm::PredictionWork workBefore = llm::predictionWork();
  // The steps the choices simulate, so that the prediction of the kept design reuses them.
  llm::StepCache steps;
  const model::ResourceEstimate budget = llm::designBudget(device);
  log.begin("attention parallelism");
  chooseParallelism(o, model.program, budget, steps, accelerator);
  std::optional<llm::AcceleratorGraph> lowered;
  plan::LlmStepPrediction predicted;
  std::promise<void> loweredReady;   // set once `lowered` and `accelerator` are final
  std::promise<void> predictedReady; // set once `predicted` is
  // Item 0 is the beside work, so that on a single thread (support/parallel.h runs the items in
  // order) it is done before the emitting item waits for it.
  parallelFor(2, [&](size_t item) {
    if (item == 0) {
      std::promise<void> *pending = &loweredReady;
      try {
        // Beside the calibration: the design choices (a step simulation per weighed
        // candidate), the lowering and the step prediction.
        chooseTileAndFifo(o, model.program, budget, log, steps, accelerator);
        {
          BesidePhase phase(&log, "lowering + FIFO LP");
          lowered = plan::lowerLlmDesign(model.program, accelerator);
        }
        loweredReady.set_value();
        pending = &predictedReady;
        BesidePhase phase(&log, "step prediction");
        predicted = plan::predictLlmSteps(*lowered, accelerator, &steps);
        predicted.work = llm::predictionWork().since(workBefore);
      } catch (...) {
        pending->set_exception(std::current_exception());
        throw;
      }
      predictedReady.set_value();
      return;
    }
    emitLlmDesign(o, finalDir, staging, log, model, loweredReady.get_future(),
                  predictedReady.get_future(), lowered, accelerator, predicted);
  });
}

int runCompile(const CompileOptions &o) {
  try {
    if (!o.target.empty() && o.target != "u55c")
      throw Error("--target", "'" + o.target + "'", "u55c (the only device with constraints)");
    OutputRequest request;
    request.path = o.output;
    request.option = "-o";
    request.command = "streamtensor compile";
    request.kind = OutputKind::Design;
    request.force = o.force;
    request.inputs = {o.input, o.device};
    if (fs::is_directory(o.input)) {
      StagedOutputDirectory out(request);
      PhaseLog log(&std::cerr, o.quiet);
      compileModel(o, out.target().string(), out.staging(), log);
      {
        PhaseScope phase(&log, "dataflow picture");
        drawDataflow(out.staging(), out.target());
      }
      const std::string warning = out.publish();
      if (!warning.empty())
        std::cerr << "streamtensor compile: warning: " << warning << "\n";
      if (!o.quiet)
        std::cerr << "streamtensor compile: wrote " << o.output << " in " << log.totalSeconds()
                  << " s\n";
      if (!o.timings.empty())
        writeTimings(o.timings, log);
      return 0;
    }
    checkOutputTarget(request); // before the passes run: a refused -o costs nothing
    frontend::GraphSpec spec = frontend::loadGraphYaml(o.input);
    passes::CompileState state;
    state.graph = &spec.graph;
    state.tilings = spec.tilings;
    state.forcedLayouts = spec.layouts;
    state.device = passes::loadDeviceConstraints(o.device);
    state.options.defaultTileSize = o.defaultTile;
    if (o.memoryBudget > 0)
      state.options.memoryBudgetBits = o.memoryBudget;
    state.options.fifoMode = passes::parseFifoSizingMode(o.fifoMode, "--fifo-mode");
    state.options.forcedDepths = parseFifoDepths(o.fifoDepths);
    passes::runPassPipeline(state, o.dumpAfter, std::cout);

    StagedOutputDirectory out(request);
    const plan::GraphPlan design = plan::planGraphDesign(
        state, spec.name, (fs::absolute(out.target()) / "rtl" / "tables").string() + "/");
    gen::DesignWriteOptions w;
    w.sourceDir = ST_SOURCE_DIR;
    w.dataSeed = o.dataSeed;
    w.fifoSearch = o.fifoSearch;
    gen::writeDesign(design, w, out.staging().string());
    drawDataflow(out.staging(), out.target());
    const std::string warning = out.publish();
    if (!warning.empty())
      std::cerr << "streamtensor compile: warning: " << warning << "\n";
    if (!o.quiet)
      std::cerr << "streamtensor compile: wrote " << o.output << " ("
                << state.dataflow.nodes().size() << " nodes, " << state.dataflow.streams().size()
                << " streams; FIFOs by " << o.fifoMode << " in " << state.fifoSolveSeconds << " s; "
                << kernelCyclesNote(state) << ")\n";
    return 0;
  } catch (const Error &e) {
    std::cerr << "streamtensor compile: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const fs::filesystem_error &e) {
    std::cerr << "streamtensor compile: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    // Anything else (a model's parameter check, a JSON or YAML library error) still ends in
    // one message; the staging directory is gone with the StagedOutputDirectory.
    std::cerr << "streamtensor compile: error: " << o.input << ": " << e.what() << "\n";
    return 1;
  }
}

constexpr const char *kModelGroup = "Model directory (a Hugging Face checkpoint or configs/*)";
constexpr const char *kEngineGroup =
    "Engine and attention knobs (model directory; defaults chosen by prediction)";
constexpr const char *kGraphGroup = "Graph (YAML)";
constexpr const char *kOutputGroup = "Output";

/// What `compile` does with each input, its examples and what it writes.
constexpr const char *kCompileHelp =
    "A model directory (a Hugging Face checkpoint: config.json, safetensors, optional\n"
    "calibration.json; or a directory of configs/ with --random-weights) becomes the LLM\n"
    "accelerator of docs/accelerator.md: the design directory holds rtl/ (the top and the\n"
    "templates it uses), tb/ (the Verilator testbench), hbm/ (the HBM image and its\n"
    "manifest.json), report.md and report.json (leading with the predicted step at context 64\n"
    "and at the max context beside its HBM bound), dataflow.svg and design.json (what 'sim'\n"
    "reads). A config key the compiler does not implement is an error naming it\n"
    "(docs/frontend.md).\n\n"
    "A graph (YAML, docs/graph-yaml.md) is tiled op by op; every stream gets its itensor,\n"
    "layout converters, forks and DMAs are inserted, kernels are fused under the device's\n"
    "on-chip memory budget and the FIFOs sized by a linear program. The design directory holds\n"
    "report.json, report.md, dataflow.txt (the dataflow IR), dataflow.svg, rtl/ and tb/ (the\n"
    "Verilator testbench with seeded inputs and the reference executor's outputs). The\n"
    "verifier runs after every pass. With --fifo-search it also writes search/, a test build\n"
    "whose FIFOs are deep and limited at run time ('sim <dir> --fifo-search',\n"
    "docs/fifo-sizing.md). Passes (for --dump-after): lower-to-dataflow, insert-converters,\n"
    "insert-forks, fuse, size-fifos.\n\n"
    "Both write, for AMD's tools (docs/vivado.md): include/<design>_kernel.h (the register map\n"
    "the testbench and the host share), vitis/ (package_kernel.tcl, link.cfg, Makefile),\n"
    "vivado/ (build.tcl) and host/ (the XRT host program).\n\n"
    "Examples:\n"
    "  # full-size GPT-2 Medium from its config alone, seeded random weights, context 1024\n"
    "  streamtensor compile configs/gpt2-medium --random-weights -o out/gpt2m\n"
    "  # a checkpoint directory at W8A16 with a KV cache of 64 positions\n"
    "  streamtensor compile tests/fixtures/gemma3_tiny --precision w8a16 --max-context 64 \\\n"
    "      -o out/gemma3\n"
    "  # a graph, printing the IR after one pass\n"
    "  streamtensor compile tests/graph/diamond.yaml -o out/diamond --dump-after "
    "insert-converters\n\n"
    "-o is written beside its final place and swapped in when complete. An existing -o is\n"
    "replaced only when it is empty or a design directory streamtensor wrote (its marker\n"
    "file .streamtensor-output) holding nothing else; a file, or a directory with your own\n"
    "files, is refused with nothing changed. --force replaces a foreign directory, but never\n"
    "the current, home or root directory, one containing them, or the input.\n";

void addModelOptions(CLI::App &app, CompileOptions &o) {
  app.add_option("--precision", o.precision, "w4a8, w8a8 or w8a16")
      ->default_val("w4a8")
      ->group(kModelGroup);
  app.add_flag("--random-weights", o.randomWeights,
               "Read only config.json and use the seeded random weights of 'eval "
               "--random-weights' (e.g. configs/*)")
      ->group(kModelGroup);
  app.add_option("--max-context", o.maxContext,
                 "Rows of the KV cache (prompt + generated tokens); default: "
                 "max_position_embeddings, at most 4096")
      ->group(kModelGroup);
  app.add_option("--timings", o.timings, "Write each phase's wall time and peak RSS as JSON here")
      ->group(kModelGroup);
}

void addEngineOptions(CLI::App &app, CompileOptions &o) {
  app.add_option("--engine", o.engine,
                 "gemv (every linear on one GEMV engine fed by all HBM pseudo-channels, "
                 "docs/gemv-engine.md) or per-op (one st_linear and weight DMA each: the v1 "
                 "design)")
      ->default_val("gemv")
      ->group(kEngineGroup);
  app.add_option("--max-lanes", o.maxLanes, "Most codes per vector token of a stage")
      ->default_val(8)
      ->check(CLI::PositiveNumber)
      ->group(kEngineGroup);
  app.add_option("--attention-kv-step", o.attentionKvStep,
                 "Gemv engine: kv heads attention reads per cache token (a divisor of the kv "
                 "heads; its rows striped over that many pseudo-channels, docs/accelerator.md "
                 "§6); 0: the unstriped cache; default: the most that keep the design within "
                 "70 % of each resource")
      ->check(CLI::NonNegativeNumber)
      ->group(kEngineGroup);
  app.add_option("--attention-head-split", o.attentionHeadSplit,
                 "Gemv engine: cache tokens per kv head, for a head wider than two bus words "
                 "(Gemma 3: 256 codes in four 64-byte parts): its parts per token striped over "
                 "as many pseudo-channels (kv step 1, implied); default: 1, or as "
                 "--attention-kv-step's default chooses")
      ->check(CLI::PositiveNumber)
      ->group(kEngineGroup);
  app.add_option("--attention-read-step", o.attentionReadStep,
                 "Gemv engine: kv heads per cache token the KV DMAs read (a divisor of the kv "
                 "heads whose token is a whole number of attention's; striped over that many "
                 "pseudo-channels and split for attention, so that a pass runs at attention's "
                 "token a cycle); 0: attention's own token; default: the widest that fits, as "
                 "--attention-kv-step's")
      ->check(CLI::NonNegativeNumber)
      ->group(kEngineGroup);
  app.add_option("--attention-walk", o.attentionWalk,
                 "Gemv engine: the order attention walks its cache in: block (each block of kv "
                 "heads per token in turn, its value pass beside the next block's score pass, "
                 "the cache laid out block-major; needs a cache striped over >= 2 slices, >= 2 "
                 "blocks, reads of attention's own token) or position (every block per "
                 "position, the score pass before the value pass); default: block wherever it "
                 "applies")
      ->check(CLI::IsMember({"position", "block"}))
      ->group(kEngineGroup);
  app.add_option("--attention-tile", o.attentionTile,
                 "Gemv engine: attention in one pass, K and V of a position read together, the "
                 "value walk a tile of this many positions behind the score walk, each tile "
                 "merged into accumulators rescaled as its heads' maxima grow (a power of two, "
                 "2 .. the max context; needs the block-major walk over cache tokens of whole "
                 "kv heads, docs/numerics.md §6); 0: two passes (scores, then values); default: "
                 "one pass in tiles of 64, 128 or 256 (at least a merge's head dim + 12) where "
                 "it applies and the step predicted at context 512 is shorter, else two passes")
      ->check(CLI::NonNegativeNumber)
      ->group(kEngineGroup);
  app.add_option("--attention-position-slices", o.attentionPositionSlices,
                 "Gemv engine: stripe the cache's positions over this many pseudo-channels (2, "
                 "4, 8 or 16; kv heads of at most 64 codes, at least two): attention takes one "
                 "kv head per token, block-major, and a block's pass reads that many positions "
                 "a cycle (docs/accelerator.md §7); replaces --attention-kv-step/-read-step/"
                 "-walk; 0: not; default: 2 where compile takes one such head per token and the "
                 "design fits")
      ->check(CLI::IsMember({0, 2, 4, 8, 16}))
      ->group(kEngineGroup);
  app.add_option("--engine-packed-pairs", o.enginePackedPairs,
                 "Gemv engine at W4A8: channel pairs whose int4 x int8 products share their "
                 "DSP48E2s (two per multiply; 0 .. 16); default: as many as the heads per cache "
                 "token need to fit the DSPs")
      ->check(CLI::NonNegativeNumber)
      ->group(kEngineGroup);
  app.add_option("--engine-fifo-words", o.engineFifoWords,
                 "Gemv engine: 512-bit words of each channel's weight prefetch FIFO, which lets "
                 "the weights stream on while the engine waits for attention (>= 2; at most a "
                 "step's words of the channel; 4096 and more in URAM); default: 4096 or 8192, "
                 "whichever predicts the shorter step at context 512 (or the max) within 70 % "
                 "of each resource")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 20))
      ->group(kEngineGroup);
}

void addGraphOptions(CLI::App &app, CompileOptions &o) {
  app.add_option("--dump-after", o.dumpAfter, "Print the dataflow IR after this pass")
      ->group(kGraphGroup);
  app.add_option("--default-tile", o.defaultTile,
                 "Tile size of loops the graph does not tile (largest divisor <= N)")
      ->default_val(4)
      ->check(CLI::PositiveNumber)
      ->group(kGraphGroup);
  app.add_option("--memory-budget", o.memoryBudget,
                 "On-chip memory budget for fusion in bits (default: the device's)")
      ->group(kGraphGroup);
  app.add_option("--fifo-mode", o.fifoMode,
                 "FIFO sizing: lp (linear program), conservative (IIs equalized), deep")
      ->default_val("lp")
      ->group(kGraphGroup);
  app.add_option("--fifo-depth", o.fifoDepths,
                 "Force a stream's FIFO depth (STREAM=DEPTH; repeatable), e.g. below the LP's")
      ->group(kGraphGroup);
  app.add_flag("--fifo-search", o.fifoSearch,
               "Also write search/: the FIFO-depth search build ('sim --fifo-search')")
      ->group(kGraphGroup);
  app.add_option("--data-seed", o.dataSeed, "Seed of the testbench's random inputs")
      ->default_val(1)
      ->group(kGraphGroup);
}

void addOutputOptions(CLI::App &app, CompileOptions &o) {
  app.add_option("-o,--output", o.output, "Design directory to write")
      ->required()
      ->group(kOutputGroup);
  app.add_flag("--force", o.force,
               "Replace -o even when it is a directory streamtensor did not write (never the "
               "current, home or root directory)")
      ->group(kOutputGroup);
  app.add_flag("--quiet", o.quiet, "Print nothing but errors (no per-phase progress)")
      ->group(kOutputGroup);
  app.add_option("--target", o.target, "Target device (u55c)")->group(kOutputGroup);
  app.add_flag("--floorplan", o.floorplan,
               "LLM designs: assign every instance of the top to an SLR (ILP, plan/floorplan): "
               "vivado/floorplan.xdc, floorplan.svg, report.json \"floorplan\"; fails when no "
               "assignment fits --slr-budget and --sll-budget (docs/vivado.md)")
      ->group(kOutputGroup);
  app.add_option("--slr-budget", o.slrBudget,
                 "LLM designs: the share of each SLR's LUT, FF, DSP, BRAM36 and URAM the "
                 "floorplan may fill (vivado/floorplan.xdc, docs/vivado.md)")
      ->check(CLI::Range(0.01, 1.0))
      ->default_val(o.slrBudget)
      ->group(kOutputGroup);
  app.add_option("--sll-budget", o.sllBudget,
                 "LLM designs: the share of each SLR boundary's super long lines the floorplan's "
                 "crossing bits may use")
      ->check(CLI::Range(0.01, 1.0))
      ->default_val(o.sllBudget)
      ->group(kOutputGroup);
  app.add_option("--device", o.device, "Device constraints YAML")
      ->default_val(o.device)
      ->group(kOutputGroup);
}

} // namespace

void addCompileCommands(std::vector<CliCommand> &registry) {
  registry.push_back(
      {"compile",
       "compile a Hugging Face model directory, or a graph (YAML), into a design directory",
       kCompileHelp, [](CLI::App &app) -> CommandRunner {
         auto o = std::make_shared<CompileOptions>();
         app.add_option("input", o->input,
                        "A Hugging Face model directory (or configs/<name> with "
                        "--random-weights), or a graph YAML file")
             ->required();
         addModelOptions(app, *o);
         addEngineOptions(app, *o);
         addGraphOptions(app, *o);
         addOutputOptions(app, *o);
         return [o]() { return runCompile(*o); };
       }});
}

} // namespace st::cli
