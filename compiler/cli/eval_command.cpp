// `streamtensor eval`: reads a Hugging Face model directory (config.json + safetensors), builds
// its decode program and runs greedy decoding with the fp32 reference executor or (--mode golden)
// the quantized golden model after calibrating and quantizing, printing the
// generated token ids, or with --json one object with `tokens` and, per step, `top1` and the
// top-5 ids with their logits. Bad input (model directory, prompt ids) gives one error line
// naming the file or option and exit code 2.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/float_executor.h"
#include "frontend/golden_executor.h"
#include "frontend/quantized_model.h"
#include "support/error.h"

namespace st::cli {

namespace {

constexpr const char *kCommand = "streamtensor eval";

struct EvalOptions {
  std::string modelDir;
  std::string promptIds;
  int64_t steps = 8;
  std::string mode = "float";
  std::string precision;
  bool json = false;
  bool randomWeights = false;
};

std::vector<int64_t> parseIds(const std::string &text) {
  std::vector<int64_t> ids;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used != item.size() || item.empty() || v < 0)
      throw Error("--prompt-ids", "'" + item + "'", "a comma-separated list of token ids >= 0");
    ids.push_back(v);
  }
  if (ids.empty())
    throw Error("--prompt-ids", "list", "at least one token id");
  return ids;
}

/// Calibrates (calibration.json of the model directory, else seeded random tokens), quantizes
/// and runs the golden model; prints the time calibration + quantization took to stderr.
frontend::GreedyResult runGolden(const frontend::LoadedModel &model, const EvalOptions &o,
                                 const std::vector<int64_t> &prompt) {
  const numerics::Precision precision = frontend::parsePrecision(
      o.precision.empty() ? std::string("w4a8") : o.precision, "--precision");
  const auto start = std::chrono::steady_clock::now();
  std::string source;
  const std::vector<std::vector<int64_t>> sequences = frontend::calibrationSetOf(
      o.modelDir, model.program.vocabSize, model.program.maxPositions, o.randomWeights, &source);
  const frontend::Calibration calibration =
      frontend::calibrate(model.program, model.weights, sequences);
  const frontend::QuantizedModel quantized =
      frontend::quantizeModel(model.program, model.weights, precision, calibration);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << kCommand << ": calibrated on " << calibration.sequences << " sequences ("
            << calibration.tokens << " tokens, " << source << ") and quantized to "
            << frontend::precisionName(precision) << " in " << seconds << " s\n";
  frontend::GoldenExecutor executor(model.program, quantized,
                                    static_cast<int64_t>(prompt.size()) + o.steps);
  frontend::GreedyResult g = frontend::greedyDecode(executor, prompt, o.steps);
  return {g.tokens, g.logits};
}

int runEval(const EvalOptions &o) {
  if (o.mode != "float" && o.mode != "golden") {
    std::cerr << kCommand << ": error: --mode: expected float or golden, got '" << o.mode << "'\n";
    return kExitUsage;
  }
  if (o.mode == "float" && !o.precision.empty() && o.precision != "fp32") {
    std::cerr << kCommand << ": error: --precision: expected fp32 with --mode float, got '"
              << o.precision << "'\n";
    return kExitUsage;
  }
  try {
    const std::vector<int64_t> prompt = parseIds(o.promptIds);
    frontend::LoadedModel model =
        frontend::loadModel(o.modelDir, o.randomWeights ? frontend::WeightSource::Random
                                                        : frontend::WeightSource::Checkpoint);
    frontend::GreedyResult result;
    if (o.mode == "golden") {
      result = runGolden(model, o, prompt);
    } else {
      frontend::FloatExecutor executor(model.program, model.weights);
      result = frontend::greedyDecode(executor, prompt, o.steps);
    }
    if (!o.json) {
      for (size_t i = 0; i < result.tokens.size(); ++i)
        std::cout << (i ? "," : "") << result.tokens[i];
      std::cout << "\n";
      return 0;
    }
    nlohmann::ordered_json j;
    j["tokens"] = result.tokens;
    j["steps"] = nlohmann::json::array();
    for (size_t s = 0; s < result.tokens.size(); ++s) {
      const std::vector<float> &logits = result.logits[s];
      std::vector<size_t> order(logits.size());
      std::iota(order.begin(), order.end(), 0);
      const size_t k = std::min<size_t>(5, order.size());
      std::partial_sort(order.begin(), order.begin() + static_cast<long>(k), order.end(),
                        [&](size_t a, size_t b) {
                          return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                        });
      nlohmann::ordered_json step;
      step["top1"] = result.tokens[s];
      step["top5"] = nlohmann::json::array();
      for (size_t i = 0; i < k; ++i)
        step["top5"].push_back({{"id", order[i]}, {"logit", logits[order[i]]}});
      j["steps"].push_back(step);
    }
    std::cout << j.dump() << "\n";
    return 0;
  } catch (const Error &e) {
    std::cerr << kCommand << ": error: " << e.what() << "\n";
    return kExitUsage;
  }
}

} // namespace

void addEvalCommands(std::vector<CliCommand> &registry) {
  CliCommand eval;
  eval.name = "eval";
  eval.summary = "run greedy decoding of a Hugging Face model directory with the fp32 reference";
  eval.help =
      R"(Usage: streamtensor eval <model-dir> --prompt-ids 1,2,3 --steps N [--mode float|golden]
                         [--precision P] [--json] [--random-weights]

Reads <model-dir>/config.json and model.safetensors (or the shards of
model.safetensors.index.json) of a GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM or
Gemma3ForCausalLM checkpoint, builds the decode program (docs/frontend.md), feeds the prompt ids
one step at a time and prints N greedy token ids, comma-separated. With --json prints one object:
{"tokens": [...], "steps": [{"top1": id, "top5": [{"id": i, "logit": x}, ...]}, ...]}, where
step s holds the logits token s was chosen from. --mode float (default) is the fp32 reference;
--mode golden is the quantized bit-exact golden model (docs/numerics.md) at --precision w4a8
(default), w8a8 or w8a16: it first calibrates on <model-dir>/calibration.json (token-id
sequences of held-out text) or, without one or with --random-weights, on 4 seeded random
sequences of 16 tokens, and prints the time that took to stderr; the logits printed are the
dequantized logit codes. A missing or misshapen
tensor, a truncated file or an unsupported config value gives one error line naming the file and
the field, exit code 2. --random-weights reads only config.json and fills every weight with
seeded uniform random values (the full-size configs under configs/ have no checkpoint here).

Example:
  streamtensor eval tests/fixtures/gpt2_tiny --prompt-ids 84,72,69 --steps 4
)";
  eval.setup = [](CLI::App &app) -> CommandRunner {
    auto o = std::make_shared<EvalOptions>();
    app.add_option("model-dir", o->modelDir, "Hugging Face model directory")->required();
    app.add_option("--prompt-ids", o->promptIds, "Comma-separated prompt token ids")->required();
    app.add_option("--steps", o->steps, "Number of tokens to generate")
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--mode", o->mode, "float (fp32 reference) or golden");
    app.add_option("--precision", o->precision,
                   "fp32 for --mode float; w4a8 (default), w8a8 or w8a16 for --mode golden");
    app.add_flag("--json", o->json, "Print one JSON object");
    app.add_flag("--random-weights", o->randomWeights,
                 "Read only config.json and use seeded random weights (e.g. configs/*)");
    return [o] { return runEval(*o); };
  };
  registry.push_back(std::move(eval));
}

} // namespace st::cli
