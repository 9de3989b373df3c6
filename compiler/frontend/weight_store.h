// WeightStore: the model's weights by name as fp32 tensors, whatever dtype they were stored in
// (F32, F16, BF16 in safetensors), with the file each one came from so a shape check can name it.
// Builders add derived tensors (e.g. GPT-2's transposed Conv1D weights) under new names.
//
// A tensor's values are either held in memory (a checkpoint's) or made on demand by a source,
// a block of rows and columns at a time (--random-weights: seeded values, and the transposes
// derived from them). A full-size model's fp32 weights are 1.4 to 5 GB; made on demand, they are
// never held whole: the passes that read every weight (calibration, quantization) read blocks
// of rows into buffers of their own and the values are the same bits either way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "numerics/weight_rows.h"

namespace st::frontend {

/// Makes rows [r0, r1) x columns [c0, c1) of a tensor seen as a matrix (WeightTensor::
/// matrixRows() x matrixCols()) into `out`, row-major (c1 - c0 values per row). Called from
/// several threads at once.
using WeightBlockSource =
    std::function<void(int64_t r0, int64_t r1, int64_t c0, int64_t c1, float *out)>;

struct WeightTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  ///< row-major values, when held in memory
  WeightBlockSource source; ///< else the values made on demand (null: shapes only)
  std::string file;         ///< where it was read from (or "derived from <name>")
  int64_t numElements() const;
  /// The matrix view: shape[0] rows (1 for a scalar) of numElements() / rows values.
  int64_t matrixRows() const;
  int64_t matrixCols() const;
  /// False for a shape-only tensor.
  bool hasValues() const { return !data.empty() || static_cast<bool>(source); }
  /// Rows [r0, r1) x columns [c0, c1) of the matrix view into `out` (see WeightBlockSource);
  /// throws st::Error for a tensor without values.
  void readBlock(int64_t r0, int64_t r1, int64_t c0, int64_t c1, float *out) const;
  /// Every value (the small tensors: gammas, betas, biases).
  std::vector<float> values() const;
  /// The rows of the matrix view for the loops that read it once; refers to this tensor.
  numerics::WeightRowReader rowReader() const;
};

std::string shapeToString(const std::vector<int64_t> &shape);

class WeightStore {
public:
  /// What require() does for a tensor the store lacks: fail (a real checkpoint), or create it
  /// with the required shape, with seeded uniform random values in [-scale, scale] made on
  /// demand (for --random-weights: frontend/random_weights.h) or no values at all (to build and
  /// size programs of full-size configs).
  enum class Missing { Fail, Random, ShapeOnly };
  void synthesizeMissing(Missing mode, uint64_t seed = 0, float scale = 0.05f) {
    missing_ = mode;
    seed_ = seed;
    scale_ = scale;
  }

  /// Adds or replaces a tensor.
  void add(const std::string &name, WeightTensor tensor);
  bool contains(const std::string &name) const { return tensors_.count(name) != 0; }
  /// The tensor `name` with exactly `shape`; throws st::Error naming the weight file
  /// (`where`, usually the model directory's weight file) and the tensor otherwise (or
  /// synthesizes it, see synthesizeMissing).
  const WeightTensor &require(const std::string &name, const std::vector<int64_t> &shape);
  /// Frees the in-memory values of `name` and keeps its shape (a no-op for a missing name): for
  /// a tensor that only served to derive others (GPT-2's fused Conv1D weights of a checkpoint,
  /// once transposed and split). Reading its values afterwards fails as for a shape-only store.
  void releaseData(const std::string &name);
  /// The tensor `name`; throws st::Error if it is missing.
  const WeightTensor &get(const std::string &name) const;
  const std::map<std::string, WeightTensor> &all() const { return tensors_; }
  /// Where missing tensors are reported (the model's weight file or index).
  void setSource(std::string source) { source_ = std::move(source); }
  const std::string &source() const { return source_; }

private:
  std::map<std::string, WeightTensor> tensors_;
  std::string source_ = "weights";
  Missing missing_ = Missing::Fail;
  uint64_t seed_ = 0;
  float scale_ = 0.05f;
};

} // namespace st::frontend
