// Activation calibration over the fp32 reference (see calibration.h).
#include "frontend/calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "frontend/float_executor.h"
#include "numerics/quantization.h"
#include "support/error.h"

namespace st::frontend {

double Calibration::clip(const std::string &point, double percentile) const {
  auto it = points.find(point);
  if (it == points.end())
    throw Error("calibration", "point '" + point + "'", "statistics from the calibration run");
  if (percentile >= 100)
    return it->second.maxAbs;
  return numerics::absPercentile(it->second.absSamples, percentile);
}

Calibration calibrate(const ir::DecodeProgram &program, const WeightStore &weights,
                      const std::vector<std::vector<int64_t>> &sequences) {
  if (sequences.empty())
    throw Error("calibration", "sequences", "at least one calibration sequence");
  size_t longest = 0;
  for (const auto &s : sequences) {
    if (s.empty())
      throw Error("calibration", "sequences", "non-empty sequences");
    longest = std::max(longest, s.size());
  }
  if (static_cast<int64_t>(longest) > program.maxPositions)
    throw Error("calibration", "sequence length",
                "at most " + std::to_string(program.maxPositions) +
                    " tokens (max positions), got " + std::to_string(longest));
  Calibration result;
  FloatExecutor executor(program, weights, static_cast<int64_t>(longest));
  executor.setObserver([&result](const std::string &key, const std::vector<float> &value) {
    PointStatistics &p = result.points[key];
    for (float v : value) {
      const float a = std::fabs(v);
      p.absSamples.push_back(a);
      p.maxAbs = std::max(p.maxAbs, static_cast<double>(a));
    }
  });
  // All (sequence, position) columns layer by layer: each linear is one pass over its weights.
  // The observer sees each point's values in the order of running the sequences one after the
  // other, token by token, and the values have the same bits (FloatExecutor::runTeacherForced).
  executor.runTeacherForced(sequences);
  for (const auto &sequence : sequences) {
    ++result.sequences;
    result.tokens += static_cast<int64_t>(sequence.size());
  }
  return result;
}

std::vector<std::vector<int64_t>> readCalibrationSequences(const std::string &file,
                                                           int64_t vocabSize) {
  std::ifstream in(file);
  if (!in)
    throw Error(file, "file", "a readable calibration.json");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception &e) {
    throw Error(file, "JSON", std::string("valid JSON (") + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("sequences") || !j["sequences"].is_array() ||
      j["sequences"].empty())
    throw Error(file, "sequences", "a non-empty array of token-id arrays");
  std::vector<std::vector<int64_t>> sequences;
  for (const auto &s : j["sequences"]) {
    if (!s.is_array() || s.empty())
      throw Error(file, "sequences[" + std::to_string(sequences.size()) + "]",
                  "a non-empty array of token ids");
    std::vector<int64_t> ids;
    for (const auto &t : s) {
      if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocabSize)
        throw Error(file, "sequences[" + std::to_string(sequences.size()) + "]",
                    "token ids in [0, " + std::to_string(vocabSize) + "), got " + t.dump());
      ids.push_back(t.get<int64_t>());
    }
    sequences.push_back(std::move(ids));
  }
  return sequences;
}

std::vector<std::vector<int64_t>> randomCalibrationSequences(int64_t vocabSize, int64_t count,
                                                             int64_t length, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> token(0, vocabSize - 1);
  std::vector<std::vector<int64_t>> sequences(static_cast<size_t>(count));
  for (auto &s : sequences)
    for (int64_t i = 0; i < length; ++i)
      s.push_back(token(rng));
  return sequences;
}

std::vector<std::vector<int64_t>> calibrationSetOf(const std::string &modelDir, int64_t vocabSize,
                                                   int64_t maxPositions, bool randomWeights,
                                                   std::string *source, int64_t count,
                                                   int64_t length) {
  const std::string file = modelDir + "/calibration.json";
  const bool haveFile = !randomWeights && std::filesystem::exists(file);
  if (source)
    *source = haveFile ? file : std::string("seeded random tokens");
  return haveFile ? readCalibrationSequences(file, vocabSize)
                  : randomCalibrationSequences(vocabSize, count, std::min(length, maxPositions));
}

} // namespace st::frontend
