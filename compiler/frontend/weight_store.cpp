// WeightStore (see weight_store.h).
#include "frontend/weight_store.h"

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
                                         const std::vector<int64_t> &shape) const {
  const WeightTensor &t = get(name);
  if (t.shape != shape)
    throw Error(t.file, "tensor '" + name + "' shape",
                shapeToString(shape) + ", got " + shapeToString(t.shape));
  return t;
}

} // namespace st::frontend
