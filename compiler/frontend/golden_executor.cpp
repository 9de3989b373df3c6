// The quantized golden executor (see golden_executor.h): composes only numerics:: golden ops,
// one step at a time or, for a prompt, layer-major over blocks of rows.
#include "frontend/golden_executor.h"

#include <algorithm>

#include "numerics/attention_rows.h"
#include "numerics/linear_batch.h"
#include "numerics/nonlinear_functions.h"
#include "support/error.h"
#include "support/parallel.h"

namespace st::frontend {

using namespace st::ir;
namespace num = st::numerics;

namespace {

using RowInput = std::function<const std::vector<int32_t> &(size_t)>;

/// The output codes of one row of every op but attention, its inputs being in(i).
std::vector<int32_t> rowOp(const QuantizedOp &q, const RowInput &in) {
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
      std::vector<int32_t> part(x.begin() + head * r->headDim, x.begin() + (head + 1) * r->headDim);
      std::vector<int32_t> y = num::rope(part, p, r->table, r->multiplier, q.outputBits);
      out.insert(out.end(), y.begin(), y.end());
    }
  } else if (auto *act = std::get_if<QuantizedActivationOp>(&q.descriptor)) {
    out = act->kind == ActivationKind::Silu
              ? num::silu(in(0), act->scales)
              : num::gelu(in(0), act->scales,
                          act->kind == ActivationKind::GeluErf ? num::GeluForm::Erf
                                                               : num::GeluForm::Tanh);
  } else if (auto *gt = std::get_if<QuantizedGatedOp>(&q.descriptor)) {
    out = gt->kind == GatedKind::SwiGLU ? num::swiglu(in(0), in(1), gt->scales)
                                        : num::geglu(in(0), in(1), gt->scales, num::GeluForm::Tanh);
  } else if (auto *add = std::get_if<num::ResidualAddScales>(&q.descriptor)) {
    out = num::residualAdd(in(0), in(1), *add, q.outputBits);
  } else if (std::holds_alternative<QuantizedArgmaxOp>(q.descriptor)) {
    out = {static_cast<int32_t>(num::argmax(in(0)))};
  }
  return out;
}

/// The attention of the token at position p: cache rows firstCachedRow(a, p) .. p-1 and its own
/// k and v (kNew, vNew), which the caller appends to the caches at row p.
std::vector<int32_t> attentionAt(const QuantizedAttentionOp &a, int64_t p,
                                 const std::vector<int32_t> &kCache,
                                 const std::vector<int32_t> &vCache, num::AttentionInputs ai) {
  const int64_t kvWidth = static_cast<int64_t>(a.shape.kvSize());
  const int64_t first = firstCachedRow(a, p);
  ai.kCache.assign(kCache.begin() + first * kvWidth, kCache.begin() + p * kvWidth);
  ai.vCache.assign(vCache.begin() + first * kvWidth, vCache.begin() + p * kvWidth);
  ai.cacheLength = static_cast<size_t>(p - first);
  return a.tilePositions > 0 ? num::attentionTiled(ai, a.shape, a.scales, size_t(a.tilePositions))
                             : num::attention(ai, a.shape, a.scales);
}

/// Row b of a block of `rows` equal-width rows.
std::vector<int32_t> rowOf(const std::vector<int32_t> &block, size_t rows, size_t b) {
  const size_t width = block.size() / rows;
  return std::vector<int32_t>(block.begin() + b * width, block.begin() + (b + 1) * width);
}

/// Per-row results concatenated into a block (every row the same width).
std::vector<int32_t> joinRows(const std::vector<std::vector<int32_t>> &rows) {
  std::vector<int32_t> block;
  block.reserve(rows.size() * (rows.empty() ? 0 : rows[0].size()));
  for (const std::vector<int32_t> &row : rows)
    block.insert(block.end(), row.begin(), row.end());
  return block;
}

} // namespace

GoldenExecutor::GoldenExecutor(const DecodeProgram &program, const QuantizedModel &model,
                               int64_t stateRows)
    : program_(program), model_(model),
      stateRows_(stateRows > 0 ? std::min(stateRows, program.maxPositions) : program.maxPositions) {
}

std::vector<int32_t> &GoldenExecutor::stateOf(const DecodeStage &stage, int64_t run, TensorId t) {
  const TensorInfo &info = stage.graph.tensor(t);
  auto &s = state_[stage.name + "/" + std::to_string(run) + "/" + info.name];
  if (s.empty())
    s.assign(static_cast<size_t>(stateRows_ * (info.numElements() / info.shape.at(0))), 0);
  return s;
}

void GoldenExecutor::runProgram(std::map<std::string, std::vector<int32_t>> &exchanged,
                                const std::function<std::vector<int32_t>(const OpRun &)> &compute) {
  for (const DecodeStage &stage : program_.stages) {
    const TensorGraph &g = stage.graph;
    const std::vector<OpId> order = g.topologicalOrder();
    for (int64_t run = 0; run < stage.repeat; ++run) {
      std::map<TensorId, std::vector<int32_t>> values;
      std::map<TensorId, std::vector<int32_t> *> states;
      for (TensorId t = 0; t < g.numTensors(); ++t) {
        const TensorInfo &info = g.tensor(t);
        if (info.role == TensorRole::Input)
          values[t] = exchanged.at(info.name);
        else if (info.role == TensorRole::State)
          states[t] = &stateOf(stage, run, t);
      }
      for (OpId o : order) {
        const Op &op = g.op(o);
        const OpRun opRun{stage,
                          run,
                          op,
                          model_.op(stage.name, run, op.name),
                          states,
                          [&](size_t i) -> const std::vector<int32_t> & {
                            return values.at(op.inputs.at(i).tensor);
                          },
                          [&](size_t i) { return values.count(op.inputs.at(i).tensor) > 0; }};
        values[op.output.tensor] = compute(opRun);
      }
      for (TensorId t = 0; t < g.numTensors(); ++t)
        if (g.tensor(t).role == TensorRole::Output)
          exchanged[stage.exportedName(g.tensor(t).name)] = values.at(t);
    }
  }
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
  runProgram(exchanged, [&](const OpRun &r) {
    std::vector<int32_t> out;
    if (auto *a = std::get_if<QuantizedAttentionOp>(&r.quantized.descriptor)) {
      std::vector<int32_t> &kCache = *r.states.at(r.op.inputs[3].tensor);
      std::vector<int32_t> &vCache = *r.states.at(r.op.inputs[4].tensor);
      const int64_t p = r.in(5).at(0);
      const int64_t kvWidth = static_cast<int64_t>(a->shape.kvSize());
      num::AttentionInputs ai;
      ai.q = r.in(0);
      ai.kNew = r.in(1);
      ai.vNew = r.in(2);
      out = attentionAt(*a, p, kCache, vCache, ai);
      std::copy(ai.kNew.begin(), ai.kNew.end(), kCache.begin() + p * kvWidth);
      std::copy(ai.vNew.begin(), ai.vNew.end(), vCache.begin() + p * kvWidth);
    } else {
      out = rowOp(r.quantized, r.in);
    }
    if (recordTaps_)
      result.taps[r.key()] = out;
    return out;
  });
  result.logitCodes = exchanged.at(DecodeProgram::kLogitsOutput);
  result.logits.resize(result.logitCodes.size());
  for (size_t i = 0; i < result.logitCodes.size(); ++i)
    result.logits[i] = static_cast<float>(result.logitCodes[i] * model_.logitsScale);
  result.nextToken = exchanged.at(DecodeProgram::kNextTokenOutput).at(0);
  return result;
}

std::vector<GoldenExecutor::StepResult> GoldenExecutor::prefill(const std::vector<int64_t> &tokens,
                                                                const PrefillOptions &options) {
  const int64_t rows = static_cast<int64_t>(tokens.size());
  if (!state_.empty())
    throw Error("golden executor", "prefill", "a fresh executor (no step run since reset)");
  if (rows > stateRows_)
    throw Error("golden executor", "prefill",
                "at most " + std::to_string(stateRows_) + " positions, got " +
                    std::to_string(rows));
  if (options.blockRows < 1)
    throw Error("golden executor", "prefill block rows",
                "at least 1, got " + std::to_string(options.blockRows));
  for (size_t t = 0; t < tokens.size(); ++t)
    if (tokens[t] < 0 || tokens[t] >= program_.vocabSize)
      throw Error("golden executor", "token",
                  "a token id in [0," + std::to_string(program_.vocabSize) + "), got " +
                      std::to_string(tokens[t]));
  std::vector<StepResult> results(tokens.size());
  for (int64_t first = 0; first < rows; first += options.blockRows)
    prefillBlock(tokens, first, std::min(options.blockRows, rows - first), options, results);
  return results;
}

void GoldenExecutor::prefillBlock(const std::vector<int64_t> &tokens, int64_t first, int64_t rows,
                                  const PrefillOptions &options, std::vector<StepResult> &results) {
  const size_t n = static_cast<size_t>(rows);
  // Every tensor a block of n rows, row b being position first + b.
  std::map<std::string, std::vector<int32_t>> exchanged;
  for (int64_t b = 0; b < rows; ++b) {
    exchanged[DecodeProgram::kTokenInput].push_back(static_cast<int32_t>(tokens[first + b]));
    exchanged[DecodeProgram::kPositionInput].push_back(static_cast<int32_t>(first + b));
  }
  runProgram(exchanged, [&](const OpRun &r) {
    std::vector<std::vector<int32_t>> outRows(n);
    std::vector<int32_t> out;
    if (auto *l = std::get_if<num::QuantizedLinear>(&r.quantized.descriptor)) {
      out = num::linearRows(r.in(0), n, *l);
    } else if (auto *a = std::get_if<QuantizedAttentionOp>(&r.quantized.descriptor)) {
      // Every row's k and v appended first: row b reads cache rows before its position only.
      std::vector<int32_t> &kCache = *r.states.at(r.op.inputs[3].tensor);
      std::vector<int32_t> &vCache = *r.states.at(r.op.inputs[4].tensor);
      const size_t kvWidth = a->shape.kvSize();
      std::copy(r.in(1).begin(), r.in(1).end(), kCache.begin() + first * int64_t(kvWidth));
      std::copy(r.in(2).begin(), r.in(2).end(), vCache.begin() + first * int64_t(kvWidth));
      // attention()/attentionTiled() over the caches in place (numerics/attention_rows.h).
      const size_t qWidth = a->shape.qSize();
      if (r.in(0).size() != n * qWidth || r.in(1).size() != n * kvWidth ||
          r.in(2).size() != n * kvWidth)
        throw Error("golden executor", "attention '" + r.op.name + "' operands",
                    "rows of " + std::to_string(qWidth) + " q and " + std::to_string(kvWidth) +
                        " k, v codes");
      parallelFor(n, [&](size_t b) {
        const int64_t p = r.in(5).at(b);
        const int64_t firstRow = firstCachedRow(*a, p);
        num::AttentionView view;
        view.q = r.in(0).data() + b * qWidth;
        view.kNew = r.in(1).data() + b * kvWidth;
        view.vNew = r.in(2).data() + b * kvWidth;
        view.kCache = kCache.data() + firstRow * int64_t(kvWidth);
        view.vCache = vCache.data() + firstRow * int64_t(kvWidth);
        view.cacheLength = static_cast<size_t>(p - firstRow);
        outRows[b] = num::attentionInPlace(view, a->shape, a->scales,
                                           size_t(std::max<int64_t>(a->tilePositions, 0)));
      });
      out = joinRows(outRows);
    } else {
      parallelFor(n, [&](size_t b) {
        std::vector<std::vector<int32_t>> ins(r.op.inputs.size());
        for (size_t i = 0; i < ins.size(); ++i)
          if (r.hasCodes(i))
            ins[i] = rowOf(r.in(i), n, b);
        outRows[b] =
            rowOp(r.quantized, [&](size_t i) -> const std::vector<int32_t> & { return ins.at(i); });
      });
      out = joinRows(outRows);
    }
    const std::string key = r.key();
    if (recordTaps_ && (!options.keepTap || options.keepTap(key)))
      for (size_t b = 0; b < n; ++b)
        results[first + b].taps[key] = rowOf(out, n, b);
    return out;
  });
  const std::vector<int32_t> &logits = exchanged.at(DecodeProgram::kLogitsOutput);
  const std::vector<int32_t> &next = exchanged.at(DecodeProgram::kNextTokenOutput);
  for (size_t b = 0; b < n; ++b) {
    StepResult &r = results[first + b];
    r.nextToken = next.at(b);
    if (!options.logits)
      continue;
    r.logitCodes = rowOf(logits, n, b);
    r.logits.resize(r.logitCodes.size());
    for (size_t i = 0; i < r.logitCodes.size(); ++i)
      r.logits[i] = static_cast<float>(r.logitCodes[i] * model_.logitsScale);
  }
}

} // namespace st::frontend
