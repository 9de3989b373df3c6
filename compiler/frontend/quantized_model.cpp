// Quantization of a DecodeProgram into hardware descriptors (see quantized_model.h).
#include "frontend/quantized_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <functional>

#include "numerics/nonlinear_tables.h"
#include "support/error.h"
#include "support/parallel.h"
#include "support/scratch_buffer.h"

namespace st::frontend {

using namespace st::ir;
namespace num = st::numerics;

numerics::Precision parsePrecision(const std::string &text, const std::string &field) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "w4a8")
    return num::Precision::W4A8;
  if (t == "w8a8")
    return num::Precision::W8A8;
  if (t == "w8a16")
    return num::Precision::W8A16;
  throw Error(field, "'" + text + "'", "a precision: w4a8, w8a8 or w8a16");
}

std::string precisionName(numerics::Precision precision) {
  switch (precision) {
  case num::Precision::W4A8:
    return "w4a8";
  case num::Precision::W8A8:
    return "w8a8";
  case num::Precision::W8A16:
    return "w8a16";
  }
  return "?";
}

numerics::WeightFormat weightFormatFor(numerics::Precision precision, size_t k) {
  num::WeightFormat f;
  f.bits = num::weightBitsOf(precision);
  f.groupSize = 0;
  if (precision == num::Precision::W4A8)
    for (size_t g : {size_t(128), size_t(64), size_t(32)})
      if (k % g == 0) {
        f.groupSize = g;
        break;
      }
  return f;
}

unsigned outputCodeBits(const ir::TensorGraph &graph, ir::OpId opId,
                        numerics::Precision precision) {
  const Op &op = graph.op(opId);
  const unsigned gemvInputBits = num::activationBitsOf(precision);
  auto feeds = [&](auto isKind) {
    for (OpId c = 0; c < graph.numOps(); ++c)
      for (const auto &in : graph.op(c).inputs)
        if (in.tensor == op.output.tensor && isKind(graph.op(c).llm))
          return true;
    return false;
  };
  const auto &a = op.llm;
  if (std::holds_alternative<NormAttrs>(a))
    return feeds([](const LlmAttributes &c) { return std::holds_alternative<LinearAttrs>(c); })
               ? gemvInputBits
               : 16;
  if (std::holds_alternative<LinearAttrs>(a))
    return feeds([](const LlmAttributes &c) { return std::holds_alternative<AttentionAttrs>(c); })
               ? 8
               : 16;
  if (std::holds_alternative<RopeAttrs>(a))
    return 8;
  if (std::holds_alternative<AttentionAttrs>(a) || std::holds_alternative<ActivationAttrs>(a) ||
      std::holds_alternative<GatedAttrs>(a))
    return gemvInputBits;
  if (std::holds_alternative<ArgmaxAttrs>(a))
    return 32;
  return 16; // embedding, add: the residual stream
}

void applyAttentionTiles(QuantizedModel &model, int64_t tilePositions) {
  for (auto &entry : model.ops)
    if (auto *a = std::get_if<QuantizedAttentionOp>(&entry.second.descriptor))
      a->tilePositions = tilePositions;
}

int64_t firstCachedRow(const QuantizedAttentionOp &a, int64_t step) {
  return a.slidingWindow > 0 ? std::max<int64_t>(0, step - a.slidingWindow + 1) : 0;
}

int64_t cacheRowsAt(const QuantizedAttentionOp &a, int64_t step) {
  return step - firstCachedRow(a, step);
}

const QuantizedOp &QuantizedModel::op(const std::string &stage, int64_t run,
                                      const std::string &name) const {
  auto it = ops.find(key(stage, run, name));
  if (it == ops.end())
    throw Error("quantized model", "op '" + key(stage, run, name) + "'", "a quantized op");
  return it->second;
}

namespace {

struct CodeFormat {
  double scale = 1;
  unsigned bits = 16;
};

const WeightTensor &weightOf(const WeightStore &weights, const LayerBinding &binding,
                             const TensorGraph &g, TensorId t) {
  const std::string &stored = binding.weights.at(g.tensor(t).name);
  const WeightTensor &w = weights.get(stored);
  if (!w.source && static_cast<int64_t>(w.data.size()) != w.numElements())
    throw Error("quantizer", "weight '" + stored + "'",
                "weight values (the store holds shapes only)");
  return w;
}

num::QuantizedEmbedding quantizeEmbeddingTable(const WeightTensor &table, size_t rows, size_t dim,
                                               double &tableScale) {
  // Two passes over blocks of rows in parallel (the table is read twice, never held whole):
  // the largest |v|, which does not depend on the order it is taken in, then the codes.
  const num::WeightRowReader tableRows = table.rowReader();
  const size_t grain = std::max<size_t>(1, (size_t(1) << 18) / std::max<size_t>(dim, 1));
  const size_t chunks = (rows + grain - 1) / grain;
  std::vector<double> chunkMax(chunks, 0.0);
  parallelForChunks(rows, grain, [&](size_t r0, size_t r1) {
    ScratchBuffer scratch;
    const float *v = tableRows(r0, r1, scratch.get());
    double maxAbs = 0;
    for (size_t i = 0; i < (r1 - r0) * dim; ++i)
      maxAbs = std::max(maxAbs, static_cast<double>(std::fabs(v[i])));
    chunkMax[r0 / grain] = maxAbs;
  });
  double maxAbs = 0;
  for (double m : chunkMax)
    maxAbs = std::max(maxAbs, m);
  tableScale = num::activationScaleFromClip(maxAbs, 8);
  num::QuantizedEmbedding e;
  e.rows = rows;
  e.dim = dim;
  e.codes.resize(rows * dim);
  parallelForChunks(rows, grain, [&](size_t r0, size_t r1) {
    ScratchBuffer scratch;
    const float *v = tableRows(r0, r1, scratch.get());
    std::vector<int32_t> codes((r1 - r0) * dim);
    num::quantizeValues(v, codes.size(), tableScale, 8, codes.data());
    std::copy(codes.begin(), codes.end(), e.codes.begin() + static_cast<int64_t>(r0 * dim));
  });
  return e;
}

} // namespace

namespace {

/// The clip of every calibrated point, computed in parallel (an s8 point's percentile selects
/// over all its samples); a missing point's error is rethrown where clipOf asks for it.
class ClipTable {
public:
  ClipTable(const DecodeProgram &program, numerics::Precision precision,
            const Calibration &calibration)
      : calibration_(calibration) {
    for (const DecodeStage &stage : program.stages)
      for (OpId o : stage.graph.topologicalOrder())
        if (!std::holds_alternative<ArgmaxAttrs>(stage.graph.op(o).llm))
          for (int64_t run = 0; run < stage.repeat; ++run) {
            const unsigned bits = outputCodeBits(stage.graph, o, precision);
            jobs_.push_back({QuantizedModel::key(stage.name, run, stage.graph.op(o).name),
                             bits == 8 ? kCalibrationPercentile : 100.0, 0, nullptr});
          }
    parallelFor(jobs_.size(), [&](size_t i) {
      try {
        jobs_[i].clip = calibration.clip(jobs_[i].key, jobs_[i].percentile);
      } catch (...) {
        jobs_[i].error = std::current_exception();
      }
    });
    for (const Job &j : jobs_)
      byKey_[j.key + "@" + std::to_string(j.percentile)] = &j;
  }

  double clipOf(const std::string &key, double percentile) const {
    auto it = byKey_.find(key + "@" + std::to_string(percentile));
    if (it == byKey_.end())
      return calibration_.clip(key, percentile);
    if (it->second->error)
      std::rethrow_exception(it->second->error);
    return it->second->clip;
  }

private:
  struct Job {
    std::string key;
    double percentile = 100;
    double clip = 0;
    std::exception_ptr error;
  };
  const Calibration &calibration_;
  std::vector<Job> jobs_;
  std::map<std::string, const Job *> byKey_;
};

/// A descriptor that reads weights (embedding table, norm, linear), made after the program walk.
struct WeightJob {
  size_t weights = 0;
  std::function<void()> make;
  std::exception_ptr error;
};

/// One op of one run of a stage, as the quantizer sees it: its weights, its inputs' formats.
struct OpContext {
  const WeightStore &weights;
  const LayerBinding &binding;
  const TensorGraph &g;
  const Op &op;
  std::string key;
  numerics::Precision precision;
  const std::map<TensorId, CodeFormat> &formats;

  CodeFormat inFormat(size_t i) const { return formats.at(op.inputs.at(i).tensor); }
  void requireBits(size_t i, unsigned bits) const {
    if (inFormat(i).bits != bits)
      throw Error("quantizer", "op '" + key + "' input " + std::to_string(i),
                  std::to_string(bits) + "-bit codes, got " + std::to_string(inFormat(i).bits));
  }
};

/// Sets q's descriptor from the op's attributes (q's output scale and bits already set); the
/// descriptors that read weights are queued in `jobs`. The LM head's output scale goes to
/// `logitsScale`.
void describeOp(const OpContext &c, const LlmAttributes &attrs, QuantizedOp &q,
                std::vector<WeightJob> &jobs, double &logitsScale) {
  const unsigned gemvInputBits = num::activationBitsOf(c.precision);
  const unsigned bits = q.outputBits;
  const double sOut = q.outputScale;
  const std::string &key = c.key;
  const TensorGraph &g = c.g;
  const Op &op = c.op;
  if (auto *e = std::get_if<EmbeddingAttrs>(&attrs)) {
    const auto &shape = g.tensor(op.inputs[0].tensor).shape;
    const WeightTensor *table = &weightOf(c.weights, c.binding, g, op.inputs[0].tensor);
    const size_t rows = static_cast<size_t>(shape[0]), dim = static_cast<size_t>(shape[1]);
    const double embeddingScale = e->scale;
    jobs.push_back({rows * dim,
                    [&q, table, rows, dim, embeddingScale, sOut, bits] {
                      QuantizedEmbeddingOp d;
                      d.table = quantizeEmbeddingTable(*table, rows, dim, d.tableScale);
                      d.table.outputScale = num::embeddingScale(d.tableScale, embeddingScale, sOut);
                      d.table.outputBits = bits;
                      q.descriptor = std::move(d);
                    },
                    nullptr});
  } else if (auto *n = std::get_if<NormAttrs>(&attrs)) {
    const WeightTensor *gamma = &weightOf(c.weights, c.binding, g, op.inputs[1].tensor);
    const WeightTensor *beta =
        n->hasBeta ? &weightOf(c.weights, c.binding, g, op.inputs[2].tensor) : nullptr;
    const NormAttrs attrsOfNorm = *n;
    const double sIn = c.inFormat(0).scale;
    jobs.push_back({static_cast<size_t>(gamma->numElements()),
                    [&q, gamma, beta, attrsOfNorm, sIn, sOut, bits] {
                      QuantizedNormOp d;
                      d.groups = attrsOfNorm.groups;
                      d.norm = num::quantizeNorm(
                          attrsOfNorm.kind == ir::NormKind::LayerNorm ? num::NormKind::LayerNorm
                                                                      : num::NormKind::RmsNorm,
                          gamma->values(), beta ? beta->values() : std::vector<float>{},
                          attrsOfNorm.eps, sIn, sOut, bits, attrsOfNorm.addOneToGamma);
                      q.descriptor = std::move(d);
                    },
                    nullptr});
  } else if (auto *l = std::get_if<LinearAttrs>(&attrs)) {
    c.requireBits(0, gemvInputBits);
    const auto &shape = g.tensor(op.inputs[1].tensor).shape;
    const size_t rows = static_cast<size_t>(shape[0]), cols = static_cast<size_t>(shape[1]);
    const WeightTensor *bias =
        l->hasBias ? &weightOf(c.weights, c.binding, g, op.inputs[2].tensor) : nullptr;
    const WeightTensor *w = &weightOf(c.weights, c.binding, g, op.inputs[1].tensor);
    const double sIn = c.inFormat(0).scale;
    const numerics::Precision precision = c.precision;
    jobs.push_back({rows * cols,
                    [&q, w, bias, rows, cols, precision, sIn, gemvInputBits, sOut, bits, key] {
                      try {
                        q.descriptor = num::quantizeLinear(
                            w->rowReader(), rows, cols, weightFormatFor(precision, cols), sIn,
                            gemvInputBits, sOut, bits,
                            bias ? bias->values() : std::vector<float>{});
                      } catch (const std::invalid_argument &ex) {
                        throw Error("quantizer", "op '" + key + "'",
                                    std::string("a quantizable linear: ") + ex.what());
                      }
                    },
                    nullptr});
    if (op.name == DecodeProgram::kLogitsOutput)
      logitsScale = sOut;
  } else if (auto *r = std::get_if<RopeAttrs>(&attrs)) {
    QuantizedRopeOp d;
    d.table = num::makeRopeTableFromInverseFrequencies(ropeInverseFrequencies(*r));
    d.multiplier = num::fixedScaleFromReal(c.inFormat(0).scale / sOut);
    d.numHeads = r->numHeads;
    d.headDim = r->headDim;
    d.base = r->base;
    q.descriptor = std::move(d);
  } else if (auto *a = std::get_if<AttentionAttrs>(&attrs)) {
    for (size_t i = 0; i < 3; ++i)
      c.requireBits(i, 8);
    QuantizedAttentionOp d;
    d.shape.numHeads = static_cast<size_t>(a->numHeads);
    d.shape.numKvHeads = static_cast<size_t>(a->numKvHeads);
    d.shape.headDim = static_cast<size_t>(a->headDim);
    d.slidingWindow = a->slidingWindow;
    d.kCacheScale = c.inFormat(1).scale;
    d.vCacheScale = c.inFormat(2).scale;
    d.scales = num::attentionScales(c.inFormat(0).scale, d.kCacheScale, a->scale, d.vCacheScale,
                                    sOut, bits);
    q.descriptor = std::move(d);
  } else if (auto *act = std::get_if<ActivationAttrs>(&attrs)) {
    q.descriptor =
        QuantizedActivationOp{num::activationScales(c.inFormat(0).scale, sOut, bits), act->kind};
  } else if (auto *gt = std::get_if<GatedAttrs>(&attrs)) {
    q.descriptor = QuantizedGatedOp{
        num::gatedScales(c.inFormat(0).scale, c.inFormat(1).scale, sOut, bits), gt->kind};
  } else if (std::holds_alternative<AddAttrs>(attrs)) {
    q.descriptor = num::residualAddScales(c.inFormat(0).scale, c.inFormat(1).scale, sOut);
  } else if (!std::holds_alternative<ArgmaxAttrs>(attrs)) {
    throw Error("quantizer", "op '" + key + "'", "a named LLM op");
  }
}

/// Runs the weight jobs in parallel, largest first; errors are rethrown in program order.
void runWeightJobs(std::vector<WeightJob> &jobs) {
  std::vector<size_t> largestFirst(jobs.size());
  for (size_t i = 0; i < largestFirst.size(); ++i)
    largestFirst[i] = i;
  std::stable_sort(largestFirst.begin(), largestFirst.end(),
                   [&](size_t a, size_t b) { return jobs[a].weights > jobs[b].weights; });
  parallelFor(largestFirst.size(), [&](size_t i) {
    WeightJob &job = jobs[largestFirst[i]];
    try {
      job.make();
    } catch (...) {
      job.error = std::current_exception();
    }
  });
  for (const WeightJob &job : jobs)
    if (job.error)
      std::rethrow_exception(job.error);
}

} // namespace

QuantizedModel quantizeModel(const DecodeProgram &program, const WeightStore &weights,
                             numerics::Precision precision, const Calibration &calibration) {
  program.verify();
  QuantizedModel m;
  m.precision = precision;
  m.architecture = program.architecture;
  m.vocabSize = program.vocabSize;
  m.maxPositions = program.maxPositions;
  const ClipTable clips(program, precision, calibration);
  std::vector<WeightJob> weightJobs;
  std::map<std::string, CodeFormat> exchanged;
  for (const DecodeStage &stage : program.stages) {
    const TensorGraph &g = stage.graph;
    const std::vector<OpId> order = g.topologicalOrder();
    for (int64_t run = 0; run < stage.repeat; ++run) {
      const LayerBinding &binding = stage.bindings[static_cast<size_t>(run)];
      std::map<TensorId, CodeFormat> formats;
      for (TensorId t = 0; t < g.numTensors(); ++t) {
        const TensorInfo &info = g.tensor(t);
        if (info.role == TensorRole::Input && info.name != DecodeProgram::kTokenInput &&
            info.name != DecodeProgram::kPositionInput)
          formats[t] = exchanged.at(info.name);
      }
      for (OpId o : order) {
        const Op &op = g.op(o);
        LlmAttributes attrs = op.llm;
        if (auto it = binding.attributes.find(op.name); it != binding.attributes.end())
          attrs = it->second;
        const std::string key = QuantizedModel::key(stage.name, run, op.name);
        const unsigned bits = outputCodeBits(g, o, precision);
        QuantizedOp &q = m.ops[key];
        q.stage = stage.name;
        q.run = run;
        q.name = op.name;
        if (std::holds_alternative<ArgmaxAttrs>(attrs)) {
          q.descriptor = QuantizedArgmaxOp{};
          q.outputBits = 32;
          q.outputScale = 1;
        } else {
          q.clip = clips.clipOf(key, bits == 8 ? kCalibrationPercentile : 100.0);
          q.outputScale = num::activationScaleFromClip(q.clip, bits);
          q.outputBits = bits;
        }
        describeOp({weights, binding, g, op, key, precision, formats}, attrs, q, weightJobs,
                   m.logitsScale);
        formats[op.output.tensor] = {q.outputScale, q.outputBits};
        m.order.push_back(key);
      }
      for (TensorId t = 0; t < g.numTensors(); ++t)
        if (g.tensor(t).role == TensorRole::Output)
          exchanged[stage.exportedName(g.tensor(t).name)] = formats.at(t);
    }
  }
  runWeightJobs(weightJobs);
  return m;
}

} // namespace st::frontend
