// The quantized golden executor (see golden_executor.h): composes only numerics:: golden ops.
#include "frontend/golden_executor.h"

#include <algorithm>

#include "numerics/nonlinear_functions.h"
#include "support/error.h"

namespace st::frontend {

using namespace st::ir;
namespace num = st::numerics;

GoldenExecutor::GoldenExecutor(const DecodeProgram &program, const QuantizedModel &model,
                               int64_t stateRows)
    : program_(program), model_(model),
      stateRows_(stateRows > 0 ? std::min(stateRows, program.maxPositions) : program.maxPositions) {
}

GoldenExecutor::StepResult GoldenExecutor::step(int64_t token, int64_t pos) {
  if (pos < 0 || pos >= stateRows_)
    throw Error("golden executor", "position",
                "a position in [0," + std::to_string(stateRows_) + "), got " + std::to_string(pos));
  if (token < 0 || token >= program_.vocabSize)
    throw Error("golden executor", "token",
                "a token id in [0," + std::to_string(program_.vocabSize) + "), got " +
                    std::to_string(token));
  StepResult result;
  std::map<std::string, std::vector<int32_t>> exchanged = {
      {DecodeProgram::kTokenInput, {static_cast<int32_t>(token)}},
      {DecodeProgram::kPositionInput, {static_cast<int32_t>(pos)}}};
  for (const DecodeStage &stage : program_.stages) {
    const TensorGraph &g = stage.graph;
    const std::vector<OpId> order = g.topologicalOrder();
    for (int64_t run = 0; run < stage.repeat; ++run) {
      std::map<TensorId, std::vector<int32_t>> values;
      std::map<TensorId, std::vector<int32_t> *> states;
      for (TensorId t = 0; t < g.numTensors(); ++t) {
        const TensorInfo &info = g.tensor(t);
        if (info.role == TensorRole::Input) {
          values[t] = exchanged.at(info.name);
        } else if (info.role == TensorRole::State) {
          auto &s = state_[stage.name + "/" + std::to_string(run) + "/" + info.name];
          if (s.empty())
            s.assign(static_cast<size_t>(stateRows_ * (info.numElements() / info.shape.at(0))), 0);
          states[t] = &s;
        }
      }
      for (OpId o : order) {
        const Op &op = g.op(o);
        const QuantizedOp &q = model_.op(stage.name, run, op.name);
        auto in = [&](size_t i) -> const std::vector<int32_t> & {
          return values.at(op.inputs.at(i).tensor);
        };
        std::vector<int32_t> out;
        if (auto *e = std::get_if<QuantizedEmbeddingOp>(&q.descriptor)) {
          out = num::embeddingGather(e->table, static_cast<uint32_t>(in(1).at(0)));
        } else if (auto *n = std::get_if<QuantizedNormOp>(&q.descriptor)) {
          const auto &x = in(0);
          const size_t width = n->norm.size;
          for (int64_t grp = 0; grp < n->groups; ++grp) {
            std::vector<int32_t> part(x.begin() + grp * width, x.begin() + (grp + 1) * width);
            std::vector<int32_t> y = num::normalize(part, n->norm);
            out.insert(out.end(), y.begin(), y.end());
          }
        } else if (auto *l = std::get_if<num::QuantizedLinear>(&q.descriptor)) {
          out = num::linear(in(0), *l);
        } else if (auto *r = std::get_if<QuantizedRopeOp>(&q.descriptor)) {
          const auto &x = in(0);
          const uint64_t p = static_cast<uint64_t>(in(1).at(0));
          for (int64_t head = 0; head < r->numHeads; ++head) {
            std::vector<int32_t> part(x.begin() + head * r->headDim,
                                      x.begin() + (head + 1) * r->headDim);
            std::vector<int32_t> y = num::rope(part, p, r->table, r->multiplier, q.outputBits);
            out.insert(out.end(), y.begin(), y.end());
          }
        } else if (auto *a = std::get_if<QuantizedAttentionOp>(&q.descriptor)) {
          std::vector<int32_t> &kCache = *states.at(op.inputs[3].tensor);
          std::vector<int32_t> &vCache = *states.at(op.inputs[4].tensor);
          const int64_t p = in(5).at(0);
          const int64_t kvWidth = static_cast<int64_t>(a->shape.kvSize());
          const int64_t first = firstCachedRow(*a, p);
          num::AttentionInputs ai;
          ai.q = in(0);
          ai.kNew = in(1);
          ai.vNew = in(2);
          ai.kCache.assign(kCache.begin() + first * kvWidth, kCache.begin() + p * kvWidth);
          ai.vCache.assign(vCache.begin() + first * kvWidth, vCache.begin() + p * kvWidth);
          ai.cacheLength = static_cast<size_t>(p - first);
          out = a->tilePositions > 0
                    ? num::attentionTiled(ai, a->shape, a->scales, size_t(a->tilePositions))
                    : num::attention(ai, a->shape, a->scales);
          std::copy(ai.kNew.begin(), ai.kNew.end(), kCache.begin() + p * kvWidth);
          std::copy(ai.vNew.begin(), ai.vNew.end(), vCache.begin() + p * kvWidth);
        } else if (auto *act = std::get_if<QuantizedActivationOp>(&q.descriptor)) {
          out = act->kind == ActivationKind::Silu
                    ? num::silu(in(0), act->scales)
                    : num::gelu(in(0), act->scales,
                                act->kind == ActivationKind::GeluErf ? num::GeluForm::Erf
                                                                     : num::GeluForm::Tanh);
        } else if (auto *gt = std::get_if<QuantizedGatedOp>(&q.descriptor)) {
          out = gt->kind == GatedKind::SwiGLU
                    ? num::swiglu(in(0), in(1), gt->scales)
                    : num::geglu(in(0), in(1), gt->scales, num::GeluForm::Tanh);
        } else if (auto *add = std::get_if<num::ResidualAddScales>(&q.descriptor)) {
          out = num::residualAdd(in(0), in(1), *add, q.outputBits);
        } else if (std::holds_alternative<QuantizedArgmaxOp>(q.descriptor)) {
          out = {static_cast<int32_t>(num::argmax(in(0)))};
        }
        if (recordTaps_)
          result.taps[QuantizedModel::key(stage.name, run, op.name)] = out;
        values[op.output.tensor] = std::move(out);
      }
      for (TensorId t = 0; t < g.numTensors(); ++t)
        if (g.tensor(t).role == TensorRole::Output)
          exchanged[stage.exportedName(g.tensor(t).name)] = values.at(t);
    }
  }
  result.logitCodes = exchanged.at(DecodeProgram::kLogitsOutput);
  result.logits.resize(result.logitCodes.size());
  for (size_t i = 0; i < result.logitCodes.size(); ++i)
    result.logits[i] = static_cast<float>(result.logitCodes[i] * model_.logitsScale);
  result.nextToken = exchanged.at(DecodeProgram::kNextTokenOutput).at(0);
  return result;
}

} // namespace st::frontend
