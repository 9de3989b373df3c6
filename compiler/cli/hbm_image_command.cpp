// `streamtensor hbm-image`: reads a Hugging Face model directory (or only its config.json with
// --random-weights), builds the decode program, calibrates, quantizes at --precision and writes
// the HBM image (channel files, RoPE tables, manifest.json; docs/hbm-image.md) for a context of
// --max-context positions, printing how long each phase took. Bad input gives one error line
// naming the file or option and exit code 2. The directory is written beside --out and swapped
// in when complete (cli/output_directory.h): an existing --out is replaced only when it is an
// HBM image directory this tool wrote.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/command_registry.h"
#include "cli/output_directory.h"
#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "support/error.h"

namespace st::cli {

namespace {

constexpr const char *kCommand = "streamtensor hbm-image";

struct HbmImageOptions {
  std::string modelDir;
  std::string out;
  std::string precision = "w4a8";
  std::string device = std::string(ST_SOURCE_DIR) + "/constraints/u55c.yaml";
  int64_t maxContext = 2048;
  int64_t calibrationSequences = frontend::kRandomCalibrationSequences;
  int64_t calibrationLength = frontend::kRandomCalibrationLength;
  int64_t lanes = 0; ///< 0: linearKernelParamsFor; else every stage at this lane count
  bool randomWeights = false;
  bool force = false;
};

int runHbmImage(const HbmImageOptions &o) {
  // Wall-clock and process CPU seconds per phase (the machine may be shared, so both).
  using Clock = std::chrono::steady_clock;
  struct Mark {
    Clock::time_point wall;
    std::clock_t cpu;
  };
  auto now = [] { return Mark{Clock::now(), std::clock()}; };
  auto wall = [](const Mark &a, const Mark &b) {
    return std::chrono::duration<double>(b.wall - a.wall).count();
  };
  auto cpu = [](const Mark &a, const Mark &b) {
    return static_cast<double>(b.cpu - a.cpu) / CLOCKS_PER_SEC;
  };
  auto both = [&](const Mark &a, const Mark &b) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << wall(a, b) << " s (cpu " << cpu(a, b) << " s)";
    return os.str();
  };
  try {
    const numerics::Precision precision = frontend::parsePrecision(o.precision, "--precision");
    OutputRequest request;
    request.path = o.out;
    request.option = "--out";
    request.command = kCommand;
    request.kind = OutputKind::HbmImage;
    request.force = o.force;
    request.inputs = {o.modelDir, o.device};
    StagedOutputDirectory out(request);
    const plan::HbmDevice device = plan::loadHbmDevice(o.device);
    const Mark t0 = now();
    frontend::LoadedModel model =
        frontend::loadModel(o.modelDir, o.randomWeights ? frontend::WeightSource::Random
                                                        : frontend::WeightSource::Checkpoint);
    const Mark t1 = now();
    const frontend::Calibration calibration = frontend::calibrate(
        model.program, model.weights,
        frontend::calibrationSetOf(o.modelDir, model.program.vocabSize, model.program.maxPositions,
                                   o.randomWeights, nullptr, o.calibrationSequences,
                                   o.calibrationLength));
    const Mark t2 = now();
    const frontend::QuantizedModel quantized =
        frontend::quantizeModel(model.program, model.weights, precision, calibration);
    model.weights = frontend::WeightStore(); // the image needs the quantized model only
    const Mark t3 = now();
    const int64_t maxContext = std::min(o.maxContext, model.program.maxPositions);
    std::map<std::string, int64_t> stageLanes;
    if (o.lanes > 0)
      for (const ir::DecodeStage &stage : model.program.stages)
        stageLanes[stage.name] = o.lanes;
    const plan::HbmImagePlan plan =
        plan::planHbmImage(model.program, quantized, device, maxContext, stageLanes);
    gen::writeHbmImage(plan, out.staging().string());
    const std::string warning = out.publish();
    if (!warning.empty())
      std::cerr << kCommand << ": warning: " << warning << "\n";
    const Mark t4 = now();
    int64_t channels = 0;
    for (int64_t used : plan.channelBytes)
      channels += used > 0;
    std::cout << std::fixed << std::setprecision(2) << model.program.architecture << " "
              << frontend::precisionName(precision) << ": " << plan.buffers.size() << " buffers, "
              << plan.totalBytes() / double(1 << 20) << " MiB in " << channels
              << " pseudo-channels (max context " << maxContext << ")\n"
              << "  build graph (read/generate weights): " << both(t0, t1) << "\n"
              << "  calibrate (" << calibration.sequences << " x "
              << calibration.tokens / std::max<int64_t>(1, calibration.sequences)
              << " tokens, fp32): " << both(t1, t2) << "\n"
              << "  quantize: " << both(t2, t3) << "\n"
              << "  plan + write image and manifest: " << both(t3, t4) << "\n"
              << "  build + quantize + write: " << wall(t0, t1) + wall(t2, t4) << " s (cpu "
              << cpu(t0, t1) + cpu(t2, t4) << " s)\n";
    return 0;
  } catch (const Error &e) {
    std::cerr << kCommand << ": error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception &e) {
    // A file-system or library error: one message; the staging directory is already removed.
    std::cerr << kCommand << ": error: " << o.modelDir << ": " << e.what() << "\n";
    return 1;
  }
}

} // namespace

void addHbmImageCommands(std::vector<CliCommand> &registry) {
  CliCommand c;
  c.name = "hbm-image";
  c.summary = "calibrate and quantize a model and write its HBM image and manifest";
  c.help =
      R"(Usage: streamtensor hbm-image <model-dir> --out DIR [--precision w4a8|w8a8|w8a16]
                              [--max-context N] [--random-weights] [--device YAML] [--force]
                              [--calibration-sequences N --calibration-length L] [--lanes N]

Reads the model (as `streamtensor eval`), calibrates on <model-dir>/calibration.json or, without
one or with --random-weights, on N seeded random sequences of L tokens (default 4 x 16), quantizes
(docs/numerics.md) and writes into DIR one hbm_pc<NN>.bin per used pseudo-channel, the RoPE
tables and manifest.json (docs/hbm-image.md), with a KV cache of --max-context positions
(default 2048, at most the model's). --lanes N lays the linear weight streams out for stages of
N codes per vector token (model::linearKernelParamsForLanes, the e2e lowering's rule); without it
each linear gets the (Rows, KLanes) with the most weight bits per 512-bit word. Prints the buffers, bytes and the seconds of each phase.
The layout is the per-op design's (`compile --engine per-op`, one buffer per op kind). A design
on the GEMV engine (compile's default) reads its weights as per-channel engine streams and its
KV cache striped as compile chose: its image is the hbm/ directory `compile` writes beside its
RTL, not this one.
A model that does not fit the device's HBM gives one error line and exit code 2.
DIR is written beside its final place and swapped in when complete; an existing DIR is replaced
only when it is empty or an HBM image directory streamtensor wrote. A file or a directory with
other files is refused (--force replaces a foreign directory, never the current, home or root
directory, one containing them, or the model directory).

Example:
  streamtensor hbm-image configs/qwen2.5-0.5b --random-weights --out out/qwen_image
)";
  c.setup = [](CLI::App &app) -> CommandRunner {
    auto o = std::make_shared<HbmImageOptions>();
    app.add_option("model-dir", o->modelDir, "Hugging Face model directory")->required();
    app.add_option("--out", o->out, "Output directory")->required();
    app.add_option("--precision", o->precision, "w4a8 (default), w8a8 or w8a16");
    app.add_option("--max-context", o->maxContext, "KV-cache positions")
        ->check(CLI::Range(int64_t(1), int64_t(1) << 24));
    app.add_option("--lanes", o->lanes,
                   "Codes per vector token of every stage (the lowering's Rows = Lanes); "
                   "default: the most weight bits per 512-bit word")
        ->check(CLI::Range(1, 64));
    app.add_option("--device", o->device, "Device constraints YAML")->default_val(o->device);
    app.add_option("--calibration-sequences", o->calibrationSequences,
                   "Random calibration sequences (no calibration.json)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--calibration-length", o->calibrationLength,
                   "Tokens per random calibration sequence")
        ->check(CLI::Range(1, 1 << 20));
    app.add_flag("--force", o->force,
                 "Replace --out even when it is a directory streamtensor did not write");
    app.add_flag("--random-weights", o->randomWeights,
                 "Read only config.json and use seeded random weights (e.g. configs/*)");
    return [o] { return runHbmImage(*o); };
  };
  registry.push_back(std::move(c));
}

} // namespace st::cli
