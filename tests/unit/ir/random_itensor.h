// Random valid itensor types for the unit tests: any type (for the text round trip) and types
// over a given tensor (for producer/consumer pairs), optionally starting with the outer loops of
// another type so that pairs share loops often.
#pragma once

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ir/itensor_type.h"

namespace st::ir::random_types {

inline int64_t pick(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
inline bool chance(std::mt19937 &rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

struct LoopSpec {
  ITensorLoop loop;
  std::optional<unsigned> dim;
};

/// Builds a type from loops in order (each mapped dim's loop index recorded in the map).
inline ITensorType assemble(const std::vector<int64_t> &elem, const std::string &dtype,
                            const std::vector<LoopSpec> &specs) {
  ITensorType t;
  t.elementShape = elem;
  t.elementType = dtype;
  t.iterMap.assign(elem.size(), std::nullopt);
  for (unsigned k = 0; k < specs.size(); ++k) {
    t.loops.push_back(specs[k].loop);
    if (specs[k].dim)
      t.iterMap[*specs[k].dim] = k;
  }
  t.verify();
  return t;
}

inline std::string randomDType(std::mt19937 &rng) {
  static const std::vector<std::string> kTypes{"i1",  "i4",   "i8",   "i16", "i32",  "i64", "ui4",
                                               "ui8", "ui16", "ui32", "f16", "bf16", "f32", "f64"};
  return kTypes[pick(rng, 0, kTypes.size() - 1)];
}

/// Any valid type: rank 1-4, element sizes 1-16, mapped trips 1-8, 0-2 reuse loops.
inline ITensorType randomITensorType(std::mt19937 &rng) {
  unsigned rank = static_cast<unsigned>(pick(rng, 1, 4));
  std::vector<int64_t> elem;
  std::vector<LoopSpec> specs;
  for (unsigned j = 0; j < rank; ++j) {
    elem.push_back(pick(rng, 1, 16));
    if (chance(rng, 0.75))
      specs.push_back({{pick(rng, 1, 8), elem.back()}, j});
  }
  for (int64_t n = pick(rng, 0, 2); n > 0; --n)
    specs.push_back({{pick(rng, 1, 5), pick(rng, 1, 7)}, std::nullopt});
  std::shuffle(specs.begin(), specs.end(), rng);
  return assemble(elem, randomDType(rng), specs);
}

/// A random small tensor shape: rank 1-3, dims from {1,2,3,4,6,8}, 2..64 elements.
inline std::vector<int64_t> randomTensorShape(std::mt19937 &rng) {
  static const std::vector<int64_t> kDims{1, 2, 3, 4, 6, 8};
  while (true) {
    std::vector<int64_t> shape(static_cast<size_t>(pick(rng, 1, 3)));
    int64_t n = 1;
    for (auto &d : shape) {
      d = kDims[pick(rng, 0, kDims.size() - 1)];
      n *= d;
    }
    if (n >= 2 && n <= 64)
      return shape;
  }
}

/// A random type over `shape`. If `prefix` is given, the first `prefixLoops` loops of it (and
/// the element sizes of the dims they map) are kept as the outermost loops.
inline ITensorType randomTypeOver(std::mt19937 &rng, const std::vector<int64_t> &shape,
                                  const std::string &dtype, const ITensorType *prefix = nullptr,
                                  unsigned prefixLoops = 0) {
  const unsigned rank = static_cast<unsigned>(shape.size());
  std::vector<int64_t> elem(rank, 0);
  std::vector<LoopSpec> head, tail;
  for (unsigned k = 0; prefix && k < prefixLoops; ++k) {
    std::optional<unsigned> dim = prefix->dataDimOfLoop(k);
    head.push_back({prefix->loops[k], dim});
    if (dim)
      elem[*dim] = prefix->elementShape[*dim];
  }
  for (unsigned j = 0; j < rank; ++j) {
    if (elem[j] != 0)
      continue;
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= shape[j]; ++d)
      if (shape[j] % d == 0)
        divisors.push_back(d);
    elem[j] = divisors[pick(rng, 0, divisors.size() - 1)];
    if (elem[j] < shape[j] || chance(rng, 0.25))
      tail.push_back({{shape[j] / elem[j], elem[j]}, j});
  }
  int64_t reuse = chance(rng, 0.4) ? (chance(rng, 0.3) ? 2 : 1) : 0;
  for (; reuse > 0; --reuse)
    tail.push_back({{pick(rng, 1, 3), pick(rng, 1, 3)}, std::nullopt});
  std::shuffle(tail.begin(), tail.end(), rng);
  head.insert(head.end(), tail.begin(), tail.end());
  return assemble(elem, dtype, head);
}

} // namespace st::ir::random_types
