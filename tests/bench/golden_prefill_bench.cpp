// Golden KV prefill timing (issue 44 item 2): loads a model directory (random weights for a
// full-size config), calibrates and quantizes it as `streamtensor sim` does, then times the
// golden model's prefill of R prompt rows (GoldenExecutor::prefill, recording the KV append
// ops as llm::runGoldenTrace does) and, optionally, K rows stepped one at a time (the path the
// prefill replaced), checking the stepped rows' KV appends and argmax against the prefill's.
// Prints one JSON object. Usage:
//   golden_prefill_bench <model dir> <w4a8|w8a16> <rows> [<stepped rows>]
#include <chrono>
#include <iostream>
#include <random>
#include <set>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/golden_executor.h"
#include "frontend/quantized_model.h"
#include "llm/run_layout.h"
#include "support/parallel.h"

using namespace st;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// User + system CPU seconds of the process so far (all threads).
double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::cerr << "usage: golden_prefill_bench <model dir> <w4a8|w8a16> <rows> [<stepped rows>]\n";
    return 2;
  }
  const std::string dir = argv[1];
  const int64_t rows = std::stoll(argv[3]);
  const int64_t stepped = argc > 4 ? std::stoll(argv[4]) : 0;
  nlohmann::json out;
  auto start = std::chrono::steady_clock::now();
  const frontend::LoadedModel model = frontend::loadModel(dir, frontend::WeightSource::Random);
  const numerics::Precision precision = frontend::parsePrecision(argv[2], "precision");
  const frontend::Calibration calibration = frontend::calibrate(
      model.program, model.weights,
      frontend::calibrationSetOf(dir, model.program.vocabSize, model.program.maxPositions, true));
  const frontend::QuantizedModel q =
      frontend::quantizeModel(model.program, model.weights, precision, calibration);
  out["quantize_seconds"] = secondsSince(start);

  std::mt19937 rng(1);
  std::uniform_int_distribution<int64_t> id(0, model.program.vocabSize - 1);
  std::vector<int64_t> prompt(static_cast<size_t>(rows));
  for (int64_t &t : prompt)
    t = id(rng);
  // The keys runGoldenTrace keeps without taps: every KV append op of every layer.
  std::set<std::string> keep;
  for (const ir::DecodeStage &stage : model.program.stages)
    for (ir::OpId o = 0; o < stage.graph.numOps(); ++o)
      if (std::holds_alternative<ir::AttentionAttrs>(stage.graph.op(o).llm))
        for (const char *kind : {"k_cache", "v_cache"})
          for (int64_t run = 0; run < stage.repeat; ++run)
            keep.insert(frontend::QuantizedModel::key(
                stage.name, run, llm::kvAppendOp(stage, stage.graph.op(o).name, kind)));

  frontend::GoldenExecutor fast(model.program, q, rows);
  fast.recordTaps(true);
  frontend::GoldenExecutor::PrefillOptions options;
  options.keepTap = [&keep](const std::string &key) { return keep.count(key) > 0; };
  options.logits = false;
  start = std::chrono::steady_clock::now();
  double cpu = cpuSeconds();
  const auto prefilled = fast.prefill(prompt, options);
  out["prefill_seconds"] = secondsSince(start);
  out["prefill_cpu_seconds"] = cpuSeconds() - cpu;

  if (stepped > 0) {
    frontend::GoldenExecutor slow(model.program, q, rows);
    slow.recordTaps(true);
    start = std::chrono::steady_clock::now();
    cpu = cpuSeconds();
    bool same = true;
    for (int64_t t = 0; t < stepped; ++t) {
      const auto r = slow.step(prompt[static_cast<size_t>(t)], t);
      same = same && r.nextToken == prefilled[static_cast<size_t>(t)].nextToken;
      for (const auto &[key, codes] : prefilled[static_cast<size_t>(t)].taps)
        same = same && r.taps.at(key) == codes;
    }
    out["stepped_rows"] = stepped;
    out["stepped_seconds"] = secondsSince(start);
    out["stepped_cpu_seconds"] = cpuSeconds() - cpu;
    out["stepped_equal"] = same;
  }
  out["model"] = dir;
  out["precision"] = argv[2];
  out["rows"] = rows;
  out["threads"] = parallelThreads();
  std::cout << out.dump() << "\n";
  return 0;
}
