// WeightStore (see weight_store.h).
#include "frontend/weight_store.h"

#include <algorithm>
#include <cstdint>
#include <functional>

#include "frontend/random_weights.h"
#include "support/error.h"

namespace st::frontend {

int64_t WeightTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t WeightTensor::matrixRows() const {
  return shape.empty() ? 1 : shape[0];
}

int64_t WeightTensor::matrixCols() const {
  const int64_t rows = matrixRows();
  return rows == 0 ? 0 : numElements() / rows;
}

void WeightTensor::readBlock(int64_t r0, int64_t r1, int64_t c0, int64_t c1, float *out) const {
  if (r0 < 0 || r1 > matrixRows() || r0 > r1 || c0 < 0 || c1 > matrixCols() || c0 > c1)
    throw Error(file,
                "block rows [" + std::to_string(r0) + ", " + std::to_string(r1) + ") columns [" +
                    std::to_string(c0) + ", " + std::to_string(c1) + ")",
                "a block inside " + shapeToString(shape));
  if (source) {
    source(r0, r1, c0, c1, out);
    return;
  }
  if (data.empty() && numElements() > 0)
    throw Error(file, "tensor values", "weight values (the store holds shapes only)");
  const int64_t cols = matrixCols(), width = c1 - c0;
  for (int64_t r = r0; r < r1; ++r)
    std::copy(data.begin() + r * cols + c0, data.begin() + r * cols + c1, out + (r - r0) * width);
}

std::vector<float> WeightTensor::values() const {
  if (!source)
    return data;
  std::vector<float> all(static_cast<size_t>(numElements()));
  readBlock(0, matrixRows(), 0, matrixCols(), all.data());
  return all;
}

numerics::WeightRowReader WeightTensor::rowReader() const {
  if (!source)
    return numerics::inMemoryRows(data.data(), static_cast<size_t>(matrixCols()));
  return [this](size_t r0, size_t r1, std::vector<float> &scratch) -> const float * {
    const int64_t cols = matrixCols();
    scratch.resize((r1 - r0) * static_cast<size_t>(cols));
    readBlock(static_cast<int64_t>(r0), static_cast<int64_t>(r1), 0, cols, scratch.data());
    return scratch.data();
  };
}

void WeightStore::add(const std::string &name, WeightTensor tensor) {
  tensors_[name] = std::move(tensor);
}

void WeightStore::releaseData(const std::string &name) {
  auto it = tensors_.find(name);
  if (it != tensors_.end())
    std::vector<float>().swap(it->second.data);
}

const WeightTensor &WeightStore::get(const std::string &name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    throw Error(source_, "tensor '" + name + "'", "the tensor to be present (it is missing)");
  return it->second;
}

const WeightTensor &WeightStore::require(const std::string &name,
                                         const std::vector<int64_t> &shape) {
  if (missing_ != Missing::Fail && !contains(name)) {
    WeightTensor t;
    t.shape = shape;
    t.file = missing_ == Missing::Random ? "random weights" : "shape only";
    if (missing_ == Missing::Random) {
      // Norm gammas near 1, so activations keep their scale through the layers.
      const bool plusOne = shape.size() == 1 && (name.find("norm") != std::string::npos ||
                                                 name.find("ln_") != std::string::npos);
      const uint64_t state = seed_ ^ std::hash<std::string>{}(name);
      const float scale = scale_;
      const int64_t cols = t.matrixCols();
      t.source = [state, scale, plusOne, cols](int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                               float *out) {
        for (int64_t r = r0; r < r1; ++r)
          randomWeightValues(state, scale, plusOne, r * cols + c0, c1 - c0,
                             out + (r - r0) * (c1 - c0));
      };
    }
    tensors_[name] = std::move(t);
  }
  const WeightTensor &t = get(name);
  if (t.shape != shape)
    throw Error(t.file, "tensor '" + name + "' shape",
                shapeToString(shape) + ", got " + shapeToString(t.shape));
  return t;
}

} // namespace st::frontend
