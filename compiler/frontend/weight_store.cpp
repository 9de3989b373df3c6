// WeightStore (see weight_store.h).
#include "frontend/weight_store.h"

#include <cstdint>
#include <functional>

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

void WeightStore::add(const std::string &name, WeightTensor tensor) {
  tensors_[name] = std::move(tensor);
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
      // Seeded by the store's seed and the tensor name, so each tensor is reproducible. A
      // splitmix64 draw gives two 24-bit uniform values: a full-size model has ~10^9 weights,
      // and std::uniform_real_distribution over mt19937_64 took ~17 s of the 60 s budget.
      uint64_t state = seed_ ^ std::hash<std::string>{}(name);
      auto next = [&state] {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
      };
      const float unit = 2.0f * scale_ / float(1 << 24); // 24-bit value -> [-scale, scale)
      t.data.resize(static_cast<size_t>(t.numElements()));
      for (size_t i = 0; i < t.data.size(); i += 2) {
        const uint64_t z = next();
        t.data[i] = float(z & 0xffffff) * unit - scale_;
        if (i + 1 < t.data.size())
          t.data[i + 1] = float((z >> 32) & 0xffffff) * unit - scale_;
      }
      // Norm gammas near 1, so activations keep their scale through the layers.
      if (shape.size() == 1 &&
          (name.find("norm") != std::string::npos || name.find("ln_") != std::string::npos))
        for (float &v : t.data)
          v += 1.0f;
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
