// The front end's results do not depend on the number of threads (support/parallel.h): the
// calibration statistics, the quantized model and the HBM image files of a run on one thread
// are the bits of a run on several, on checkpoint fixtures and on streamed random weights.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "plan/hbm_plan.h"
#include "quantized_model_compare.h"
#include "support/parallel.h"

namespace st::frontend {
namespace {

struct FrontEndRun {
  Calibration calibration;
  QuantizedModel quantized;
  std::string imageDir;
};

FrontEndRun runWithThreads(const LoadedModel &m, const std::vector<std::vector<int64_t>> &sequences,
                           unsigned threads, const std::string &tag) {
  setParallelThreads(threads);
  FrontEndRun r;
  r.calibration = calibrate(m.program, m.weights, sequences);
  r.quantized = quantizeModel(m.program, m.weights, numerics::Precision::W4A8, r.calibration);
  const plan::HbmImagePlan plan =
      plan::planHbmImage(m.program, r.quantized, plan::loadHbmDevice(ST_CONSTRAINTS_FILE), 32, {});
  r.imageDir = ::testing::TempDir() + "/determinism_" + tag + "_" + std::to_string(threads);
  std::filesystem::remove_all(r.imageDir);
  gen::writeHbmImage(plan, r.imageDir);
  setParallelThreads(0);
  return r;
}

std::string fileBytes(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void expectSameImages(const std::string &a, const std::string &b) {
  size_t files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(a)) {
    const std::filesystem::path other = std::filesystem::path(b) / entry.path().filename();
    ASSERT_TRUE(std::filesystem::exists(other)) << other;
    EXPECT_TRUE(fileBytes(entry.path()) == fileBytes(other)) << entry.path().filename();
    ++files;
  }
  EXPECT_EQ(files, static_cast<size_t>(std::distance(std::filesystem::directory_iterator(b),
                                                     std::filesystem::directory_iterator())));
  EXPECT_GT(files, 2u);
}

TEST(ParallelDeterminism, OneThreadGivesTheBitsOfFour) {
  struct Case {
    const char *fixture;
    WeightSource source;
  };
  for (const Case &c : {Case{"gpt2_tiny", WeightSource::Checkpoint},
                        Case{"qwen2_tiny_mqa", WeightSource::Checkpoint},
                        Case{"gemma3_tiny", WeightSource::Random}}) {
    SCOPED_TRACE(c.fixture);
    const LoadedModel m = loadModel(std::string(ST_FIXTURE_DIR) + "/" + c.fixture, c.source);
    const auto sequences = randomCalibrationSequences(m.program.vocabSize, 4, 8);
    const FrontEndRun one = runWithThreads(m, sequences, 1, c.fixture);
    const FrontEndRun four = runWithThreads(m, sequences, 4, c.fixture);
    expectSameCalibrations(one.calibration, four.calibration);
    expectSameModels(one.quantized, four.quantized);
    expectSameImages(one.imageDir, four.imageDir);
  }
}

} // namespace
} // namespace st::frontend
