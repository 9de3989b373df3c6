// Activation calibration (docs/numerics.md §3 "Activation scales and calibration", §7): runs the
// fp32 FloatExecutor over calibration token sequences and keeps, per calibrated point (every
// op output, keyed "stage/run/op"), the |x| samples from which the quantizer takes its clip
// statistic: the 99.99th percentile for s8 edges, max-abs for s16 edges. The calibration
// sequences are held-out text (a fixture's calibration.json) or seeded random tokens.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/weight_store.h"
#include "ir/decode_program.h"

namespace st::frontend {

/// |x| of every element an op produced over the calibration set.
struct PointStatistics {
  std::vector<float> absSamples;
  double maxAbs = 0;
};

struct Calibration {
  std::map<std::string, PointStatistics> points; ///< "stage/run/op" -> samples
  int64_t sequences = 0;
  int64_t tokens = 0;
  /// The clip value of a point: the `percentile`-th percentile of |x| (nearest rank; 100 is
  /// max-abs). Throws st::Error naming the point when it was never observed.
  double clip(const std::string &point, double percentile) const;
};

/// Default clip percentile of s8 edges (docs/numerics.md §3).
constexpr double kCalibrationPercentile = 99.99;

/// Runs every sequence from position 0 through a fresh FloatExecutor (KV cache sized to the
/// longest sequence) and records every op output. Throws st::Error for an empty set, a token
/// outside the vocabulary or a sequence longer than the program's positions.
Calibration calibrate(const ir::DecodeProgram &program, const WeightStore &weights,
                      const std::vector<std::vector<int64_t>> &sequences);

/// The "sequences" array of a calibration.json ({"sequences": [[ids...], ...]}). Throws
/// st::Error naming the file and the field for a missing file, malformed JSON or a token id
/// outside [0, vocabSize).
std::vector<std::vector<int64_t>> readCalibrationSequences(const std::string &file,
                                                           int64_t vocabSize);

/// `count` sequences of `length` uniform random token ids (seeded): the calibration set of a
/// model without calibration text (--random-weights configs).
std::vector<std::vector<int64_t>> randomCalibrationSequences(int64_t vocabSize, int64_t count,
                                                             int64_t length, uint64_t seed = 1);

/// Size of the calibration set of a model without calibration text (or with --random-weights):
/// kRandomCalibrationSequences sequences of kRandomCalibrationLength seeded random tokens. One
/// default for every command, so `compile`, `sim`, `eval` and `hbm-image` quantize identically.
constexpr int64_t kRandomCalibrationSequences = 4;
constexpr int64_t kRandomCalibrationLength = 16;

/// The calibration set of a model directory: its calibration.json when there is one and the
/// weights are the checkpoint's, else `count` sequences of min(length, maxPositions) seeded
/// random tokens (deterministic: the same call gives the same set). `source` (if given) receives
/// which, for messages.
std::vector<std::vector<int64_t>> calibrationSetOf(const std::string &modelDir, int64_t vocabSize,
                                                   int64_t maxPositions, bool randomWeights,
                                                   std::string *source = nullptr,
                                                   int64_t count = kRandomCalibrationSequences,
                                                   int64_t length = kRandomCalibrationLength);

} // namespace st::frontend
