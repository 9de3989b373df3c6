// QuantizedModel: the hardware descriptor of every op of a DecodeProgram at one precision
// (docs/numerics.md §4), per stage, per run (layer) and per op, built from the fp32 weights and
// the calibration statistics. It is the single source the golden executor runs and the e2e
// compiler reads to emit kernel parameters and the HBM image: a plain data structure queryable
// by (stage, run, op name). Every op output has one static per-tensor scale and code width
// (docs/numerics.md §1 formats):
//   residual stream (embedding outputs, adds)                        s16, max-abs clip
//   GEMV inputs (norms feeding a linear, attention out, MLP product) s8 99.99 % (W8A16: s16
//   max-abs) q, k, v into attention (after RoPE; the KV cache)                s8, 99.99 % every
//   other edge (linear outputs into RoPE / norms / activations / adds, q/k norms, post-norms) and
//   the logits                                        s16, max-abs
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "frontend/calibration.h"
#include "frontend/weight_store.h"
#include "ir/decode_program.h"
#include "numerics/attention_golden.h"
#include "numerics/embedding.h"
#include "numerics/golden_ops.h"
#include "numerics/quantization.h"

namespace st::frontend {

/// Parses "w4a8" / "w8a8" / "w8a16" (case-insensitive); throws st::Error naming `field`.
numerics::Precision parsePrecision(const std::string &text, const std::string &field);
std::string precisionName(numerics::Precision precision);

/// The weight format of a linear with reduction length K at `precision`: W4A8 uses groups of
/// 128 along K (64 or 32 when K is not a multiple of 128, per output channel when K is not a
/// multiple of 32); W8A8 and W8A16 quantize per output channel.
numerics::WeightFormat weightFormatFor(numerics::Precision precision, size_t k);

/// The signed code width of the output of op `opId` of a stage graph at `precision` (the table
/// at the top of this file; 32 for argmax's index): the one per-edge width rule, for the
/// quantizer and the e2e lowering's stream widths alike. Depends on the op kind and its
/// consumers only, so it is the same for every run (layer) of the stage.
unsigned outputCodeBits(const ir::TensorGraph &graph, ir::OpId opId, numerics::Precision precision);

/// Descriptors of the ops that have no numerics:: descriptor type of their own.
struct QuantizedEmbeddingOp {
  numerics::QuantizedEmbedding table; ///< int8 codes, per-tensor scale tableScale
  double tableScale = 1;
};
struct QuantizedNormOp {
  numerics::QuantizedNorm norm; ///< one group of `norm.size` elements
  int64_t groups = 1;           ///< per-head q/k norm: the same norm on each of `groups` slices
};
struct QuantizedRopeOp {
  numerics::RopeTable table;
  numerics::FixedScale multiplier; ///< s_in / s_out
  int64_t numHeads = 0;
  int64_t headDim = 0;
  double base = 0; ///< for messages and table files
};
struct QuantizedAttentionOp {
  numerics::AttentionScales scales;
  numerics::AttentionShape shape;
  int64_t slidingWindow = 0; ///< 0: every cached position
  double kCacheScale = 1;    ///< the layer's s8 K-cache scale (= RoPE'd k)
  double vCacheScale = 1;    ///< the layer's s8 V-cache scale
  /// One-pass attention in tiles of this many positions (numerics::attentionTiled, the design's
  /// st_attention OnePass); 0: the two-pass form (numerics::attention). A choice of the design,
  /// not of the quantizer: applyAttentionTiles sets it.
  int64_t tilePositions = 0;
};
/// The first KV-cache row attention `a` reads at decode step `step` (the new token's position):
/// 0, or step - slidingWindow + 1 on a sliding-window layer (the window counts the new token).
/// The golden executor, the top's KV read DMA and st_attention's cache_len_i all use this rule.
int64_t firstCachedRow(const QuantizedAttentionOp &a, int64_t step);
/// Cached rows attention reads at `step`: step - firstCachedRow(a, step), i.e. step, or
/// min(step, slidingWindow - 1) on a sliding-window layer (st_attention's cache_len_i).
int64_t cacheRowsAt(const QuantizedAttentionOp &a, int64_t step);

struct QuantizedActivationOp {
  numerics::ActivationScales scales;
  ir::ActivationKind kind = ir::ActivationKind::Silu;
};
struct QuantizedGatedOp {
  numerics::GatedScales scales;
  ir::GatedKind kind = ir::GatedKind::SwiGLU;
};
struct QuantizedArgmaxOp {};

using OpDescriptor = std::variant<QuantizedEmbeddingOp, QuantizedNormOp, numerics::QuantizedLinear,
                                  QuantizedRopeOp, QuantizedAttentionOp, QuantizedActivationOp,
                                  QuantizedGatedOp, numerics::ResidualAddScales, QuantizedArgmaxOp>;

/// One op of one run: its descriptor and the format of its output codes.
struct QuantizedOp {
  std::string stage;
  int64_t run = 0;
  std::string name;
  OpDescriptor descriptor;
  double outputScale = 1; ///< real = code * outputScale
  unsigned outputBits = 16;
  double clip = 0; ///< the calibrated clip the scale came from
};

struct QuantizedModel;
/// Sets every attention op's tilePositions (the design's one-pass tile, 0: two passes).
void applyAttentionTiles(QuantizedModel &model, int64_t tilePositions);

struct QuantizedModel {
  numerics::Precision precision = numerics::Precision::W4A8;
  std::string architecture;
  int64_t vocabSize = 0;
  int64_t maxPositions = 0;
  /// "stage/run/op" -> op, in execution order of `order`.
  std::map<std::string, QuantizedOp> ops;
  std::vector<std::string> order;
  double logitsScale = 1; ///< the s16 logits' scale

  static std::string key(const std::string &stage, int64_t run, const std::string &op) {
    return stage + "/" + std::to_string(run) + "/" + op;
  }
  /// Throws st::Error naming the key when there is no such op.
  const QuantizedOp &op(const std::string &stage, int64_t run, const std::string &name) const;
  template <typename T>
  const T &get(const std::string &stage, int64_t run, const std::string &name) const {
    return std::get<T>(op(stage, run, name).descriptor);
  }
};

/// Quantizes every op of `program` (checked with verify()) at `precision` with the weights and
/// the calibration statistics. Throws st::Error naming the op for a missing calibration point.
QuantizedModel quantizeModel(const ir::DecodeProgram &program, const WeightStore &weights,
                             numerics::Precision precision, const Calibration &calibration);

} // namespace st::frontend
