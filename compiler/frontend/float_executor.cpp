// fp32 reference executor of a DecodeProgram (see float_executor.h). Sums accumulate in double,
// so the result is close to the exact fp32-weight model whatever the summation order.
#include "frontend/float_executor.h"

#include <algorithm>
#include <cmath>

#include "numerics/float_reference.h"
#include "support/error.h"

namespace st::frontend {

using namespace st::ir;

namespace {

using Values = std::map<TensorId, std::vector<float>>;

const std::vector<float> &valueOf(const Values &values, TensorId t, const TensorGraph &g) {
  auto it = values.find(t);
  if (it == values.end())
    throw Error("float executor", "tensor '" + g.tensor(t).name + "'", "a value (not computed)");
  return it->second;
}

std::vector<float> runNorm(const NormAttrs &a, const std::vector<float> &x,
                           const std::vector<float> &gamma, const std::vector<float> &beta) {
  const size_t width = x.size() / static_cast<size_t>(a.groups);
  std::vector<float> y;
  y.reserve(x.size());
  for (int64_t g = 0; g < a.groups; ++g) {
    std::vector<float> part(x.begin() + g * width, x.begin() + (g + 1) * width);
    std::vector<float> out;
    if (a.kind == NormKind::LayerNorm)
      out = numerics::layerNormFloat(part, gamma, beta, static_cast<float>(a.eps));
    else if (a.addOneToGamma)
      out = numerics::gemmaRmsNormFloat(part, gamma, static_cast<float>(a.eps));
    else
      out = numerics::rmsNormFloat(part, gamma, static_cast<float>(a.eps));
    y.insert(y.end(), out.begin(), out.end());
  }
  return y;
}

std::vector<float> runLinear(const std::vector<float> &x, const WeightTensor &w,
                             const std::vector<float> *bias) {
  const int64_t n = w.shape[0], k = w.shape[1];
  std::vector<float> y(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    double acc = 0;
    const float *row = w.data.data() + r * k;
    for (int64_t i = 0; i < k; ++i)
      acc += static_cast<double>(row[i]) * x[static_cast<size_t>(i)];
    y[static_cast<size_t>(r)] =
        static_cast<float>(acc) + (bias ? (*bias)[static_cast<size_t>(r)] : 0.0f);
  }
  return y;
}

} // namespace

FloatExecutor::FloatExecutor(const DecodeProgram &program, const WeightStore &weights,
                             int64_t stateRows)
    : program_(program), weights_(weights),
      stateRows_(stateRows > 0 ? std::min(stateRows, program.maxPositions) : program.maxPositions) {
}

FloatExecutor::StepResult FloatExecutor::step(int64_t token, int64_t pos) {
  if (pos < 0 || pos >= stateRows_)
    throw Error("float executor", "position",
                "a position in [0," + std::to_string(stateRows_) + "), got " + std::to_string(pos));
  if (token < 0 || token >= program_.vocabSize)
    throw Error("float executor", "token",
                "a token id in [0," + std::to_string(program_.vocabSize) + "), got " +
                    std::to_string(token));
  std::map<std::string, std::vector<float>> exchanged = {
      {DecodeProgram::kTokenInput, {static_cast<float>(token)}},
      {DecodeProgram::kPositionInput, {static_cast<float>(pos)}}};
  for (const DecodeStage &stage : program_.stages) {
    const TensorGraph &g = stage.graph;
    const std::vector<OpId> order = g.topologicalOrder();
    for (int64_t run = 0; run < stage.repeat; ++run) {
      const LayerBinding &binding = stage.bindings[static_cast<size_t>(run)];
      Values values;
      std::map<TensorId, const WeightTensor *> constants;
      std::map<TensorId, std::vector<float> *> states;
      for (TensorId t = 0; t < g.numTensors(); ++t) {
        const TensorInfo &info = g.tensor(t);
        if (info.role == TensorRole::Input) {
          auto it = exchanged.find(info.name);
          if (it == exchanged.end())
            throw Error("float executor", "stage '" + stage.name + "' input '" + info.name + "'",
                        "a value from an earlier stage");
          values[t] = it->second;
        } else if (info.role == TensorRole::Constant) {
          constants[t] = &weights_.get(binding.weights.at(info.name));
          if (static_cast<int64_t>(constants[t]->data.size()) != constants[t]->numElements())
            throw Error("float executor", "weight '" + binding.weights.at(info.name) + "'",
                        "weight values (the store holds shapes only)");
          if (info.shape.size() == 1) // gammas, betas, biases; matrices are read in place
            values[t] = constants[t]->data;
        } else if (info.role == TensorRole::State) {
          const std::string key = stage.name + "/" + std::to_string(run) + "/" + info.name;
          auto &s = state_[key];
          if (s.empty())
            s.assign(static_cast<size_t>(stateRows_ * (info.numElements() / info.shape.at(0))),
                     0.0f);
          states[t] = &s;
        }
      }
      for (OpId o : order) {
        const Op &op = g.op(o);
        LlmAttributes attrs = op.llm;
        if (auto it = binding.attributes.find(op.name); it != binding.attributes.end())
          attrs = it->second;
        auto in = [&](size_t i) -> const std::vector<float> & {
          return valueOf(values, op.inputs.at(i).tensor, g);
        };
        std::vector<float> out;
        if (auto *e = std::get_if<EmbeddingAttrs>(&attrs)) {
          const WeightTensor &table = *constants.at(op.inputs[0].tensor);
          const int64_t index = static_cast<int64_t>(in(1)[0]);
          if (index < 0 || index >= table.shape[0])
            throw Error("float executor", "op '" + op.name + "' index",
                        "an index below " + std::to_string(table.shape[0]));
          const int64_t width = table.shape[1];
          out.assign(table.data.begin() + index * width, table.data.begin() + (index + 1) * width);
          const float scale = static_cast<float>(e->scale);
          if (e->scale != 1.0)
            for (float &v : out)
              v *= scale;
        } else if (auto *n = std::get_if<NormAttrs>(&attrs)) {
          out = runNorm(*n, in(0), in(1), n->hasBeta ? in(2) : std::vector<float>{});
        } else if (auto *l = std::get_if<LinearAttrs>(&attrs)) {
          out = runLinear(in(0), *constants.at(op.inputs[1].tensor), l->hasBias ? &in(2) : nullptr);
        } else if (auto *r = std::get_if<RopeAttrs>(&attrs)) {
          const std::vector<double> freqs = ropeInverseFrequencies(*r);
          const auto &x = in(0);
          const uint64_t p = static_cast<uint64_t>(in(1)[0]);
          for (int64_t head = 0; head < r->numHeads; ++head) {
            std::vector<float> part(x.begin() + head * r->headDim,
                                    x.begin() + (head + 1) * r->headDim);
            std::vector<float> rotated = numerics::ropeFloat(part, p, freqs);
            out.insert(out.end(), rotated.begin(), rotated.end());
          }
        } else if (auto *a = std::get_if<AttentionAttrs>(&attrs)) {
          const auto &q = in(0), &kNew = in(1), &vNew = in(2);
          std::vector<float> &kCache = *states.at(op.inputs[3].tensor);
          std::vector<float> &vCache = *states.at(op.inputs[4].tensor);
          const int64_t p = static_cast<int64_t>(in(5)[0]);
          const int64_t d = a->headDim, kvWidth = a->numKvHeads * d;
          std::copy(kNew.begin(), kNew.end(), kCache.begin() + p * kvWidth);
          std::copy(vNew.begin(), vNew.end(), vCache.begin() + p * kvWidth);
          const int64_t first =
              a->slidingWindow > 0 ? std::max<int64_t>(0, p - a->slidingWindow + 1) : 0;
          const int64_t group = a->numHeads / a->numKvHeads;
          out.assign(static_cast<size_t>(a->numHeads * d), 0.0f);
          for (int64_t head = 0; head < a->numHeads; ++head) {
            const int64_t kvHead = head / group;
            std::vector<float> scores;
            for (int64_t t = first; t <= p; ++t) {
              double dot = 0;
              for (int64_t i = 0; i < d; ++i)
                dot += static_cast<double>(q[static_cast<size_t>(head * d + i)]) *
                       kCache[static_cast<size_t>(t * kvWidth + kvHead * d + i)];
              scores.push_back(static_cast<float>(dot * a->scale));
            }
            const std::vector<float> probs = numerics::softmaxFloat(scores);
            for (int64_t i = 0; i < d; ++i) {
              double acc = 0;
              for (int64_t t = first; t <= p; ++t)
                acc += static_cast<double>(probs[static_cast<size_t>(t - first)]) *
                       vCache[static_cast<size_t>(t * kvWidth + kvHead * d + i)];
              out[static_cast<size_t>(head * d + i)] = static_cast<float>(acc);
            }
          }
        } else if (auto *act = std::get_if<ActivationAttrs>(&attrs)) {
          out = act->kind == ActivationKind::Silu
                    ? numerics::siluFloat(in(0))
                    : numerics::geluFloat(in(0), act->kind == ActivationKind::GeluErf
                                                     ? numerics::GeluForm::Erf
                                                     : numerics::GeluForm::Tanh);
        } else if (auto *gt = std::get_if<GatedAttrs>(&attrs)) {
          out = gt->kind == GatedKind::SwiGLU
                    ? numerics::swigluFloat(in(0), in(1))
                    : numerics::gegluFloat(in(0), in(1), numerics::GeluForm::Tanh);
        } else if (std::holds_alternative<AddAttrs>(attrs)) {
          out = numerics::residualAddFloat(in(0), in(1));
        } else if (std::holds_alternative<ArgmaxAttrs>(attrs)) {
          out = {static_cast<float>(numerics::argmaxFloat(in(0)))};
        } else {
          throw Error("float executor", "op '" + op.name + "'", "a named LLM op");
        }
        if (observer_)
          observer_(stage.name + "/" + std::to_string(run) + "/" + op.name, out);
        values[op.output.tensor] = std::move(out);
      }
      for (TensorId t = 0; t < g.numTensors(); ++t)
        if (g.tensor(t).role == TensorRole::Output)
          exchanged[stage.exportedName(g.tensor(t).name)] = values.at(t);
    }
  }
  StepResult r;
  r.logits = exchanged.at(DecodeProgram::kLogitsOutput);
  r.nextToken = static_cast<int64_t>(exchanged.at(DecodeProgram::kNextTokenOutput).at(0));
  return r;
}

} // namespace st::frontend
