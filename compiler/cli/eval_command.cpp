// `streamtensor eval`: reads a Hugging Face model directory (config.json + safetensors), builds
// its decode program and runs greedy decoding with the fp32 reference executor or (--mode golden)
// the quantized golden model after calibrating and quantizing, printing the
// generated token ids, or with --json one object with `tokens` and, per step, `top1` and the
// top-5 ids with their logits. With --fidelity it instead measures the golden model at each
// precision against the fp32 reference, teacher-forced over a token-id file (frontend/fidelity.h),
// and prints a table or (--json) one object with the same figures. Bad input (model directory,
// prompt ids, token-id file) gives one error line naming the file or option and exit code 2.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/fidelity.h"
#include "frontend/float_executor.h"
#include "frontend/golden_executor.h"
#include "frontend/quantized_model.h"
#include "frontend/token_id_file.h"
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
  bool fidelity = false;
  std::string textIds;
  int64_t window = 0;
};

std::vector<int64_t> parseIds(const std::string &text) {
  std::vector<int64_t> ids;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const std::optional<int64_t> v = frontend::parseTokenId(item);
    if (!v)
      throw Error("--prompt-ids", "'" + item + "'", "a comma-separated list of token ids >= 0");
    ids.push_back(*v);
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

/// The precisions of --precision for --fidelity: a comma-separated list, default all three.
std::vector<numerics::Precision> fidelityPrecisions(const std::string &text) {
  std::vector<numerics::Precision> list;
  std::stringstream in(text.empty() ? std::string("w4a8,w8a8,w8a16") : text);
  for (std::string item; std::getline(in, item, ',');) {
    const numerics::Precision p = frontend::parsePrecision(item, "--precision");
    if (std::find(list.begin(), list.end(), p) == list.end())
      list.push_back(p);
  }
  if (list.empty())
    throw Error("--precision", "'" + text + "'", "a comma-separated list of w4a8, w8a8, w8a16");
  return list;
}

std::string formatted(const char *format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

/// --fidelity: calibrates once, quantizes at each precision, runs frontend::measureFidelity over
/// the windows of the token-id file and prints a Markdown table or one JSON object.
int runFidelity(const EvalOptions &o) {
  if (o.textIds.empty()) {
    std::cerr << kCommand << ": error: --text-ids: expected a token-id file with --fidelity\n";
    return kExitUsage;
  }
  if (!o.promptIds.empty()) {
    std::cerr << kCommand << ": error: --prompt-ids: expected no prompt with --fidelity (the "
              << "tokens come from --text-ids)\n";
    return kExitUsage;
  }
  try {
    const std::vector<numerics::Precision> precisions = fidelityPrecisions(o.precision);
    frontend::LoadedModel model =
        frontend::loadModel(o.modelDir, o.randomWeights ? frontend::WeightSource::Random
                                                        : frontend::WeightSource::Checkpoint);
    const int64_t window = o.window > 0 ? o.window : model.program.maxPositions;
    if (window > model.program.maxPositions)
      throw Error("--window", std::to_string(window),
                  "at most " + std::to_string(model.program.maxPositions) +
                      " (the model's max_position_embeddings)");
    const std::vector<std::vector<int64_t>> sequences = frontend::windowSequences(
        frontend::readTokenIdFile(o.textIds, model.program.vocabSize), window);
    if (sequences.empty())
      throw Error(o.textIds, "ids", "at least two token ids (one to predict from, one to score)");
    std::string source;
    const frontend::Calibration calibration = frontend::calibrate(
        model.program, model.weights,
        frontend::calibrationSetOf(o.modelDir, model.program.vocabSize, model.program.maxPositions,
                                   o.randomWeights, &source));
    std::vector<frontend::QuantizedModel> quantized;
    for (numerics::Precision p : precisions)
      quantized.push_back(frontend::quantizeModel(model.program, model.weights, p, calibration));
    std::vector<const frontend::QuantizedModel *> models;
    for (const frontend::QuantizedModel &q : quantized)
      models.push_back(&q);
    const frontend::FidelityReport r =
        frontend::measureFidelity(model.program, model.weights, models, sequences);
    const std::string architecture = frontend::toString(model.config.architecture);
    if (o.json) {
      nlohmann::ordered_json j;
      j["model"] = o.modelDir;
      j["architecture"] = architecture;
      j["text_ids"] = o.textIds;
      j["window"] = window;
      j["sequences"] = r.sequences;
      j["positions"] = r.positions;
      j["calibration"] = {
          {"sequences", calibration.sequences}, {"tokens", calibration.tokens}, {"source", source}};
      j["fp32_perplexity"] = r.fp32Perplexity;
      j["precisions"] = nlohmann::json::array();
      for (const frontend::PrecisionFidelity &f : r.precisions)
        j["precisions"].push_back({{"precision", frontend::precisionName(f.precision)},
                                   {"top1_agreement", f.top1Agreement},
                                   {"mean_cosine", f.meanCosine},
                                   {"min_cosine", f.minCosine},
                                   {"perplexity", f.perplexity},
                                   {"fp32_perplexity", r.fp32Perplexity}});
      std::cout << j.dump() << "\n";
      return 0;
    }
    std::cout << o.modelDir << " (" << architecture << "): " << r.positions << " positions in "
              << r.sequences << " sequence(s) of " << o.textIds
              << ", teacher-forced; calibrated on " << calibration.sequences << " sequences ("
              << source << ")\n\n"
              << "| precision | top-1 agreement with fp32 | mean logit cosine | min logit cosine "
                 "| perplexity | fp32 perplexity |\n|---|---|---|---|---|---|\n";
    for (const frontend::PrecisionFidelity &f : r.precisions)
      std::cout << "| " << frontend::precisionName(f.precision) << " | "
                << formatted("%.2f %%", 100 * f.top1Agreement) << " | "
                << formatted("%.5f", f.meanCosine) << " | " << formatted("%.5f", f.minCosine)
                << " | " << formatted("%.4f", f.perplexity) << " | "
                << formatted("%.4f", r.fp32Perplexity) << " |\n";
    return 0;
  } catch (const Error &e) {
    std::cerr << kCommand << ": error: " << e.what() << "\n";
    return kExitUsage;
  }
}

int runEval(const EvalOptions &o) {
  if (o.fidelity)
    return runFidelity(o);
  if (o.promptIds.empty()) {
    std::cerr << kCommand << ": error: --prompt-ids: expected a comma-separated list of token ids"
              << " (or --fidelity --text-ids FILE)\n";
    return kExitUsage;
  }
  if (!o.textIds.empty()) {
    std::cerr << kCommand << ": error: --text-ids: expected only with --fidelity\n";
    return kExitUsage;
  }
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
  eval.summary = "greedy decoding of a Hugging Face model directory, or its fidelity per precision";
  eval.help =
      R"(Usage: streamtensor eval <model-dir> --prompt-ids 1,2,3 --steps N [--mode float|golden]
                         [--precision P] [--json] [--random-weights]
       streamtensor eval <model-dir> --fidelity --text-ids FILE [--precision P,P,...]
                         [--window N] [--json] [--random-weights]

Reads <model-dir>/config.json and model.safetensors (or the shards of
model.safetensors.index.json) of a GPT2LMHeadModel, LlamaForCausalLM, MistralForCausalLM,
Qwen2ForCausalLM, Qwen3ForCausalLM or Gemma3ForCausalLM checkpoint, builds the decode program (docs/frontend.md), feeds the prompt ids
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

With --fidelity: measures the quantized golden model against the fp32 reference on your own
text, teacher-forced. FILE holds token ids from the model's tokenizer: plain text (ids separated
by commas or white space: one sequence), a JSON array of ids or of id arrays, or
{"sequences": [[...], ...]} (the form of calibration.json). Sequences are cut into windows of
--window tokens (default: max_position_embeddings), each run from position 0. For each
precision of --precision (default w4a8,w8a8,w8a16) it prints, over every position that has a
next token: top-1 agreement with fp32, mean and minimum cosine of the logits with fp32's, and
the perplexity of the text under the precision and under fp32. --json prints one object:
{"positions", "sequences", "fp32_perplexity", "precisions": [{"precision", "top1_agreement",
"mean_cosine", "min_cosine", "perplexity", "fp32_perplexity"}, ...], ...}.

Example:
  streamtensor eval tests/fixtures/gpt2_tiny --prompt-ids 84,72,69 --steps 4
  streamtensor eval tests/fixtures/gemma3_tiny --fidelity --text-ids tests/fixtures/fidelity_text.json
)";
  eval.setup = [](CLI::App &app) -> CommandRunner {
    auto o = std::make_shared<EvalOptions>();
    app.add_option("model-dir", o->modelDir, "Hugging Face model directory")->required();
    app.add_option("--prompt-ids", o->promptIds, "Comma-separated prompt token ids");
    app.add_option("--steps", o->steps, "Number of tokens to generate")
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--mode", o->mode, "float (fp32 reference) or golden");
    app.add_option("--precision", o->precision,
                   "fp32 for --mode float; w4a8 (default), w8a8 or w8a16 for --mode golden; a "
                   "comma-separated list for --fidelity (default all three)");
    app.add_flag("--fidelity", o->fidelity,
                 "Measure each precision against fp32 on --text-ids (teacher-forced)");
    app.add_option("--text-ids", o->textIds, "Token-id file for --fidelity");
    app.add_option("--window", o->window,
                   "--fidelity: longest sequence run from position 0 (default: the model's)")
        ->check(CLI::Range(2, 1 << 30));
    app.add_flag("--json", o->json, "Print one JSON object");
    app.add_flag("--random-weights", o->randomWeights,
                 "Read only config.json and use seeded random weights (e.g. configs/*)");
    return [o] { return runEval(*o); };
  };
  registry.push_back(std::move(eval));
}

} // namespace st::cli
