// WeightStore: the model's weights by name as fp32 tensors, whatever dtype they were stored in
// (F32, F16, BF16 in safetensors), with the file each one came from so a shape check can name it.
// Builders add derived tensors (e.g. GPT-2's transposed Conv1D weights) under new names.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace st::frontend {

struct WeightTensor {
  std::vector<int64_t> shape;
  std::vector<float> data; ///< row-major
  std::string file;        ///< where it was read from (or "derived from <name>")
  int64_t numElements() const;
};

std::string shapeToString(const std::vector<int64_t> &shape);

class WeightStore {
public:
  /// What require() does for a tensor the store lacks: fail (a real checkpoint), or create it
  /// with the required shape, holding seeded uniform random values in [-scale, scale] (for
  /// --random-weights) or no data at all (to build and size programs of full-size configs).
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
