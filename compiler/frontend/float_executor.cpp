// fp32 reference executor of a DecodeProgram (see float_executor.h). Sums accumulate in double,
// so the result is close to the exact fp32-weight model whatever the summation order. Every
// value is held for all columns of a run at once (column c's values contiguous); each op
// computes each column exactly as a single step would, and linears go through
// floatLinearColumns, whose bits do not depend on how many columns share the pass.
#include "frontend/float_executor.h"

#include <algorithm>
#include <cmath>

#include "frontend/float_linear.h"
#include "numerics/float_reference.h"
#include "support/error.h"

namespace st::frontend {

using namespace st::ir;

namespace {

/// One tensor's values for every column of a run: column c's `width` values at data[c * width].
/// A shared value (a 1-D constant: gamma, beta, bias) holds one column that every column reads.
struct ColumnValues {
  size_t width = 0;
  bool shared = false;
  std::vector<float> data;

  const float *column(size_t c) const { return data.data() + (shared ? 0 : c * width); }
  std::vector<float> columnVector(size_t c) const {
    const float *p = column(c);
    return std::vector<float>(p, p + width);
  }
  /// All `columns` columns back to back (a shared value repeated).
  std::vector<float> expanded(size_t columns) const {
    if (!shared || columns == 1)
      return data;
    std::vector<float> all;
    all.reserve(columns * width);
    for (size_t c = 0; c < columns; ++c)
      all.insert(all.end(), data.begin(), data.end());
    return all;
  }
};

using Values = std::map<TensorId, ColumnValues>;

const ColumnValues &valueOf(const Values &values, TensorId t, const TensorGraph &g) {
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

/// Decode attention of one column (one query token at position p) against its KV cache, whose
/// row p it first fills with kNew / vNew; writes numHeads * headDim values to `out`.
void runAttention(const AttentionAttrs &a, const float *q, const float *kNew, const float *vNew,
                  std::vector<float> &kCache, std::vector<float> &vCache, int64_t p, float *out) {
  const int64_t d = a.headDim, kvWidth = a.numKvHeads * d;
  std::copy(kNew, kNew + kvWidth, kCache.begin() + p * kvWidth);
  std::copy(vNew, vNew + kvWidth, vCache.begin() + p * kvWidth);
  const int64_t first = a.slidingWindow > 0 ? std::max<int64_t>(0, p - a.slidingWindow + 1) : 0;
  const int64_t group = a.numHeads / a.numKvHeads;
  for (int64_t head = 0; head < a.numHeads; ++head) {
    const int64_t kvHead = head / group;
    std::vector<float> scores;
    for (int64_t t = first; t <= p; ++t) {
      double dot = 0;
      for (int64_t i = 0; i < d; ++i)
        dot += static_cast<double>(q[head * d + i]) *
               kCache[static_cast<size_t>(t * kvWidth + kvHead * d + i)];
      scores.push_back(static_cast<float>(dot * a.scale));
    }
    const std::vector<float> probs = numerics::softmaxFloat(scores);
    for (int64_t i = 0; i < d; ++i) {
      double acc = 0;
      for (int64_t t = first; t <= p; ++t)
        acc += static_cast<double>(probs[static_cast<size_t>(t - first)]) *
               vCache[static_cast<size_t>(t * kvWidth + kvHead * d + i)];
      out[head * d + i] = static_cast<float>(acc);
    }
  }
}

} // namespace

FloatExecutor::FloatExecutor(const DecodeProgram &program, const WeightStore &weights,
                             int64_t stateRows)
    : program_(program), weights_(weights),
      stateRows_(stateRows > 0 ? std::min(stateRows, program.maxPositions) : program.maxPositions) {
}

FloatExecutor::StepResult FloatExecutor::step(int64_t token, int64_t pos) {
  return run({Column{token, pos, &state_}}, stateRows_).front();
}

std::vector<std::vector<FloatExecutor::StepResult>>
FloatExecutor::runTeacherForced(const std::vector<std::vector<int64_t>> &sequences) {
  size_t longest = 0;
  for (const auto &s : sequences) {
    if (s.empty())
      throw Error("float executor", "sequences", "non-empty token sequences");
    longest = std::max(longest, s.size());
  }
  std::vector<StateMap> states(sequences.size());
  std::vector<Column> columns;
  for (size_t s = 0; s < sequences.size(); ++s)
    for (size_t p = 0; p < sequences[s].size(); ++p)
      columns.push_back(Column{sequences[s][p], static_cast<int64_t>(p), &states[s]});
  // Each sequence's cache needs only its positions' rows (stateRows_ may be a whole context).
  std::vector<StepResult> flat = run(columns, static_cast<int64_t>(longest));
  std::vector<std::vector<StepResult>> results(sequences.size());
  size_t next = 0;
  for (size_t s = 0; s < sequences.size(); ++s)
    for (size_t p = 0; p < sequences[s].size(); ++p)
      results[s].push_back(std::move(flat[next++]));
  return results;
}

namespace {

/// The per-column states (K/V caches) of a run's columns.
using ColumnStates = std::vector<std::map<std::string, std::vector<float>> *>;

/// One op of a stage for all `n` columns at once (each column one sequence position), in fp32.
ColumnValues runFloatOp(const Op &op, const LlmAttributes &attrs, const TensorGraph &g,
                        const Values &values,
                        const std::map<TensorId, const WeightTensor *> &constants,
                        const std::map<TensorId, std::string> &stateKeys,
                        const ColumnStates &states, size_t n) {
  auto in = [&](size_t i) -> const ColumnValues & {
    return valueOf(values, op.inputs.at(i).tensor, g);
  };
  ColumnValues out;
  // Sizes `out` for every column, `width` values each.
  auto allocate = [&](size_t width) {
    out.width = width;
    out.data.assign(n * width, 0.0f);
  };
  if (auto *e = std::get_if<EmbeddingAttrs>(&attrs)) {
    const WeightTensor &table = *constants.at(op.inputs[0].tensor);
    const int64_t width = table.shape[1];
    allocate(static_cast<size_t>(width));
    const float scale = static_cast<float>(e->scale);
    for (size_t c = 0; c < n; ++c) {
      const int64_t index = static_cast<int64_t>(in(1).column(c)[0]);
      if (index < 0 || index >= table.shape[0])
        throw Error("float executor", "op '" + op.name + "' index",
                    "an index below " + std::to_string(table.shape[0]));
      float *y = out.data.data() + c * out.width;
      table.readBlock(index, index + 1, 0, width, y);
      if (e->scale != 1.0)
        for (int64_t i = 0; i < width; ++i)
          y[i] *= scale;
    }
  } else if (auto *nm = std::get_if<NormAttrs>(&attrs)) {
    allocate(in(0).width);
    for (size_t c = 0; c < n; ++c) {
      const std::vector<float> y =
          runNorm(*nm, in(0).columnVector(c), in(1).columnVector(c),
                  nm->hasBeta ? in(2).columnVector(c) : std::vector<float>{});
      std::copy(y.begin(), y.end(), out.data.begin() + c * out.width);
    }
  } else if (auto *l = std::get_if<LinearAttrs>(&attrs)) {
    const WeightTensor &w = *constants.at(op.inputs[1].tensor);
    const size_t rows = static_cast<size_t>(w.shape[0]), k = static_cast<size_t>(w.shape[1]);
    const ColumnValues &x = in(0);
    if (x.width != k)
      throw Error("float executor", "op '" + op.name + "' input",
                  std::to_string(k) + " values, got " + std::to_string(x.width));
    allocate(rows);
    const std::vector<float> xs = x.expanded(n);
    const numerics::WeightRowReader weightRows = w.rowReader();
    if (!l->hasBias || in(2).shared || n == 1) {
      floatLinearColumns(weightRows, rows, k, l->hasBias ? in(2).column(0) : nullptr, xs.data(), n,
                         out.data.data());
    } else { // a bias per column: one pass each
      for (size_t c = 0; c < n; ++c)
        floatLinearColumns(weightRows, rows, k, in(2).column(c), xs.data() + c * k, 1,
                           out.data.data() + c * rows);
    }
  } else if (auto *r = std::get_if<RopeAttrs>(&attrs)) {
    const std::vector<double> freqs = ropeInverseFrequencies(*r);
    allocate(static_cast<size_t>(r->numHeads * r->headDim));
    for (size_t c = 0; c < n; ++c) {
      const float *x = in(0).column(c);
      const uint64_t p = static_cast<uint64_t>(in(1).column(c)[0]);
      for (int64_t head = 0; head < r->numHeads; ++head) {
        std::vector<float> part(x + head * r->headDim, x + (head + 1) * r->headDim);
        std::vector<float> rotated = numerics::ropeFloat(part, p, freqs);
        std::copy(rotated.begin(), rotated.end(),
                  out.data.begin() + static_cast<int64_t>(c * out.width) + head * r->headDim);
      }
    }
  } else if (auto *a = std::get_if<AttentionAttrs>(&attrs)) {
    allocate(static_cast<size_t>(a->numHeads * a->headDim));
    // Columns in order: a sequence's positions come one after the other, so each sees its
    // cache exactly as step-by-step decoding leaves it.
    for (size_t c = 0; c < n; ++c) {
      std::map<std::string, std::vector<float>> &state = *states[c];
      runAttention(*a, in(0).column(c), in(1).column(c), in(2).column(c),
                   state.at(stateKeys.at(op.inputs[3].tensor)),
                   state.at(stateKeys.at(op.inputs[4].tensor)),
                   static_cast<int64_t>(in(5).column(c)[0]), out.data.data() + c * out.width);
    }
  } else if (auto *act = std::get_if<ActivationAttrs>(&attrs)) {
    // Elementwise: every column at once.
    out.width = in(0).width;
    out.data = act->kind == ActivationKind::Silu
                   ? numerics::siluFloat(in(0).expanded(n))
                   : numerics::geluFloat(in(0).expanded(n), act->kind == ActivationKind::GeluErf
                                                                ? numerics::GeluForm::Erf
                                                                : numerics::GeluForm::Tanh);
  } else if (auto *gt = std::get_if<GatedAttrs>(&attrs)) {
    out.width = in(0).width;
    out.data =
        gt->kind == GatedKind::SwiGLU
            ? numerics::swigluFloat(in(0).expanded(n), in(1).expanded(n))
            : numerics::gegluFloat(in(0).expanded(n), in(1).expanded(n), numerics::GeluForm::Tanh);
  } else if (std::holds_alternative<AddAttrs>(attrs)) {
    out.width = in(0).width;
    out.data = numerics::residualAddFloat(in(0).expanded(n), in(1).expanded(n));
  } else if (std::holds_alternative<ArgmaxAttrs>(attrs)) {
    allocate(1);
    for (size_t c = 0; c < n; ++c)
      out.data[c] = static_cast<float>(numerics::argmaxFloat(in(0).columnVector(c)));
  } else {
    throw Error("float executor", "op '" + op.name + "'", "a named LLM op");
  }
  return out;
}

} // namespace

std::vector<FloatExecutor::StepResult> FloatExecutor::run(const std::vector<Column> &columns,
                                                          int64_t stateRows) {
  const size_t n = columns.size();
  for (const Column &col : columns) {
    if (col.pos < 0 || col.pos >= stateRows_)
      throw Error("float executor", "position",
                  "a position in [0," + std::to_string(stateRows_) + "), got " +
                      std::to_string(col.pos));
    if (col.token < 0 || col.token >= program_.vocabSize)
      throw Error("float executor", "token",
                  "a token id in [0," + std::to_string(program_.vocabSize) + "), got " +
                      std::to_string(col.token));
  }
  std::map<std::string, ColumnValues> exchanged;
  {
    ColumnValues tokens{1, false, {}}, positions{1, false, {}};
    for (const Column &col : columns) {
      tokens.data.push_back(static_cast<float>(col.token));
      positions.data.push_back(static_cast<float>(col.pos));
    }
    exchanged[DecodeProgram::kTokenInput] = std::move(tokens);
    exchanged[DecodeProgram::kPositionInput] = std::move(positions);
  }
  for (const DecodeStage &stage : program_.stages) {
    const TensorGraph &g = stage.graph;
    const std::vector<OpId> order = g.topologicalOrder();
    for (int64_t run = 0; run < stage.repeat; ++run) {
      const LayerBinding &binding = stage.bindings[static_cast<size_t>(run)];
      const std::string prefix = stage.name + "/" + std::to_string(run) + "/";
      Values values;
      std::map<TensorId, const WeightTensor *> constants;
      std::map<TensorId, std::string> stateKeys;
      for (TensorId t = 0; t < g.numTensors(); ++t) {
        const TensorInfo &info = g.tensor(t);
        if (info.role == TensorRole::Input) {
          auto it = exchanged.find(info.name);
          if (it == exchanged.end())
            throw Error("float executor", "stage '" + stage.name + "' input '" + info.name + "'",
                        "a value from an earlier stage");
          values[t] = it->second;
        } else if (info.role == TensorRole::Constant) {
          const WeightTensor &w = weights_.get(binding.weights.at(info.name));
          constants[t] = &w;
          if (!w.source && static_cast<int64_t>(w.data.size()) != w.numElements())
            throw Error("float executor", "weight '" + binding.weights.at(info.name) + "'",
                        "weight values (the store holds shapes only)");
          // Gammas, betas, biases; matrices are read a block of rows at a time (in place when
          // held in memory).
          if (info.shape.size() == 1)
            values[t] = ColumnValues{static_cast<size_t>(w.numElements()), true, w.values()};
        } else if (info.role == TensorRole::State) {
          const std::string key = prefix + info.name;
          for (const Column &col : columns) {
            auto &s = (*col.state)[key];
            if (s.empty())
              s.assign(static_cast<size_t>(stateRows * (info.numElements() / info.shape.at(0))),
                       0.0f);
          }
          stateKeys[t] = key;
        }
      }
      for (OpId o : order) {
        const Op &op = g.op(o);
        LlmAttributes attrs = op.llm;
        if (auto it = binding.attributes.find(op.name); it != binding.attributes.end())
          attrs = it->second;
        ColumnStates states;
        for (const Column &col : columns)
          states.push_back(col.state);
        ColumnValues out = runFloatOp(op, attrs, g, values, constants, stateKeys, states, n);
        if (observer_) {
          const std::string key = prefix + op.name;
          if (n == 1)
            observer_(key, out.data);
          else
            for (size_t c = 0; c < n; ++c)
              observer_(key, out.columnVector(c));
        }
        values[op.output.tensor] = std::move(out);
      }
      for (TensorId t = 0; t < g.numTensors(); ++t)
        if (g.tensor(t).role == TensorRole::Output)
          exchanged[stage.exportedName(g.tensor(t).name)] = values.at(t);
    }
  }
  const ColumnValues &logits = exchanged.at(DecodeProgram::kLogitsOutput);
  const ColumnValues &next = exchanged.at(DecodeProgram::kNextTokenOutput);
  std::vector<StepResult> results(n);
  for (size_t c = 0; c < n; ++c) {
    results[c].logits = logits.columnVector(c);
    results[c].nextToken = static_cast<int64_t>(next.column(c)[0]);
  }
  return results;
}

} // namespace st::frontend
