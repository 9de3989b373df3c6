// Test helpers of the front-end tests: two calibrations, or two quantized models, hold the same
// bits (every point's samples; every op's scales, codes, packed weights and tables).
#pragma once

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "frontend/calibration.h"
#include "frontend/quantized_model.h"

namespace st::frontend {

inline bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  // memcmp's pointers must not be null, not even for 0 bytes (an empty vector's may be).
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

inline void expectSameCalibrations(const Calibration &a, const Calibration &b) {
  ASSERT_EQ(a.points.size(), b.points.size());
  for (const auto &[key, p] : a.points) {
    ASSERT_TRUE(b.points.count(key)) << key;
    EXPECT_EQ(p.maxAbs, b.points.at(key).maxAbs) << key;
    EXPECT_TRUE(sameBits(p.absSamples, b.points.at(key).absSamples)) << key;
  }
}

inline void expectSameModels(const QuantizedModel &a, const QuantizedModel &b) {
  ASSERT_EQ(a.order, b.order);
  for (const std::string &key : a.order) {
    const QuantizedOp &x = a.ops.at(key), &y = b.ops.at(key);
    EXPECT_EQ(x.clip, y.clip) << key;
    EXPECT_EQ(x.outputScale, y.outputScale) << key;
    if (auto *l = std::get_if<numerics::QuantizedLinear>(&x.descriptor)) {
      const auto &m = std::get<numerics::QuantizedLinear>(y.descriptor);
      EXPECT_EQ(l->packedWeights, m.packedWeights) << key;
      EXPECT_EQ(l->groupScales, m.groupScales) << key;
      EXPECT_EQ(l->rowWeightUnit, m.rowWeightUnit) << key;
      EXPECT_EQ(l->bias, m.bias) << key;
      ASSERT_EQ(l->outputScales.size(), m.outputScales.size()) << key;
      for (size_t r = 0; r < l->outputScales.size(); ++r)
        ASSERT_TRUE(l->outputScales[r].mantissa == m.outputScales[r].mantissa &&
                    l->outputScales[r].shift == m.outputScales[r].shift)
            << key << " row " << r;
    } else if (auto *e = std::get_if<QuantizedEmbeddingOp>(&x.descriptor)) {
      const auto &f = std::get<QuantizedEmbeddingOp>(y.descriptor);
      EXPECT_EQ(e->table.codes, f.table.codes) << key;
      EXPECT_EQ(e->tableScale, f.tableScale) << key;
    } else if (auto *n = std::get_if<QuantizedNormOp>(&x.descriptor)) {
      const auto &o = std::get<QuantizedNormOp>(y.descriptor);
      EXPECT_EQ(n->norm.gamma, o.norm.gamma) << key;
      EXPECT_EQ(n->norm.beta, o.norm.beta) << key;
    }
  }
}

} // namespace st::frontend
