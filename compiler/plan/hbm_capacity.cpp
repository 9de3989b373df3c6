// The HBM capacity check from a model's shapes (see hbm_capacity.h).
#include "plan/hbm_capacity.h"

#include <algorithm>
#include <cstdio>
#include <variant>

#include "numerics/embedding.h"
#include "support/error.h"

namespace st::plan {

namespace {

/// The shape of operand `index` of `op`.
const std::vector<int64_t> &operandShape(const ir::TensorGraph &g, const ir::Op &op, size_t index) {
  return g.tensor(op.inputs.at(index).tensor).shape;
}

/// "12.3 GiB" for messages beside the exact bytes.
std::string gib(int64_t bytes) {
  const double g = static_cast<double>(bytes) / static_cast<double>(int64_t(1) << 30);
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", g);
  return text;
}

} // namespace

HbmCapacityNeed hbmCapacityNeed(const ir::DecodeProgram &program, numerics::Precision precision) {
  HbmCapacityNeed need;
  need.maxPositions = program.maxPositions;
  const int64_t weightBits = numerics::weightBitsOf(precision);
  auto fixed = [&](const std::string &name, int64_t bytes) {
    if (bytes > need.largestFixedBytes) {
      need.largestFixedBytes = bytes;
      need.largestFixed = name;
    }
  };
  for (const ir::DecodeStage &stage : program.stages)
    for (ir::OpId o = 0; o < stage.graph.numOps(); ++o) {
      const ir::Op &op = stage.graph.op(o);
      const std::string name = stage.name + "/" + op.name;
      if (std::holds_alternative<ir::LinearAttrs>(op.llm)) {
        const std::vector<int64_t> &w = operandShape(stage.graph, op, 1); // [N, K]
        const int64_t bytes = stage.repeat * w.at(0) * w.at(1) * weightBits / 8;
        need.weightBytes += bytes;
        fixed(name + ".weights", bytes);
      } else if (std::holds_alternative<ir::EmbeddingAttrs>(op.llm)) {
        const std::vector<int64_t> &t = operandShape(stage.graph, op, 0); // [V, H]
        const int64_t bytes =
            stage.repeat * t.at(0) *
            static_cast<int64_t>(numerics::embeddingRowBytes(static_cast<size_t>(t.at(1))));
        need.tableBytes += bytes;
        fixed(name + ".table", bytes);
      } else if (const auto *a = std::get_if<ir::AttentionAttrs>(&op.llm)) {
        need.kvBytesPerPosition += 2 * stage.repeat * a->numKvHeads * a->headDim;
        if (need.kvBuffer.empty())
          need.kvBuffer = name + ".k_cache";
      }
    }
  return need;
}

void checkHbmCapacity(const HbmCapacityNeed &need, const HbmDevice &device, int64_t maxContext) {
  const int64_t capacity = device.capacityBytes();
  if (need.bytesAt(maxContext) <= capacity)
    return;
  const std::string device_ = std::to_string(device.pseudoChannels) + " pseudo-channels of " +
                              std::to_string(device.pseudoChannelBytes) + " bytes (" +
                              gib(capacity) + ")";
  const int64_t kvBytes = need.kvBytesPerPosition * maxContext;
  const int64_t room = capacity - need.fixedBytes();
  if (need.kvBytesPerPosition > 0 && room >= need.kvBytesPerPosition * 2) {
    int64_t fits = room / need.kvBytesPerPosition;
    if (need.maxPositions > 0)
      fits = std::min(fits, need.maxPositions);
    throw Error(
        "hbm capacity",
        "buffer '" + need.kvBuffer + "' and the other KV caches (" + std::to_string(kvBytes) +
            " bytes, " + gib(kvBytes) + ", at --max-context " + std::to_string(maxContext) + ")",
        "at most the " + std::to_string(room) + " bytes (" + gib(room) + ") that " + device_ +
            " leave beside the weights and tables (at least " + std::to_string(need.fixedBytes()) +
            " bytes); --max-context " + std::to_string(fits) + " or less fits");
  }
  throw Error("hbm capacity",
              "the model's weights and tables (at least " + std::to_string(need.fixedBytes()) +
                  " bytes, " + gib(need.fixedBytes()) + "; the largest buffer '" +
                  need.largestFixed + "' " + std::to_string(need.largestFixedBytes) +
                  " bytes) and KV caches (" + std::to_string(kvBytes) + " bytes)",
              "at most the " + std::to_string(capacity) + " bytes of " + device_ +
                  "; a narrower --precision (w4a8) or a smaller model");
}

} // namespace st::plan
