// Teacher-forced fidelity measurement (see fidelity.h).
#include "frontend/fidelity.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "frontend/float_executor.h"
#include "frontend/golden_executor.h"
#include "support/error.h"

namespace st::frontend {

double negativeLogLikelihood(const std::vector<float> &logits, int64_t target) {
  if (target < 0 || target >= static_cast<int64_t>(logits.size()))
    throw Error("fidelity", "target",
                "a token id inside the logits, got " + std::to_string(target));
  double maxLogit = -INFINITY;
  for (float v : logits)
    maxLogit = std::max(maxLogit, static_cast<double>(v));
  double sum = 0;
  for (float v : logits)
    sum += std::exp(static_cast<double>(v) - maxLogit);
  return maxLogit + std::log(sum) - static_cast<double>(logits[static_cast<size_t>(target)]);
}

double logitCosine(const std::vector<float> &a, const std::vector<float> &b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  if (na == 0 && nb == 0)
    return 1;
  if (na == 0 || nb == 0)
    return 0;
  return dot / std::sqrt(na * nb);
}

namespace {

/// The first index of the largest logit (the golden argmax's tie rule).
int64_t firstArgmax(const std::vector<float> &logits) {
  return static_cast<int64_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

} // namespace

FidelityReport measureFidelity(const ir::DecodeProgram &program, const WeightStore &weights,
                               const std::vector<const QuantizedModel *> &models,
                               const std::vector<std::vector<int64_t>> &sequences) {
  if (sequences.empty())
    throw Error("fidelity", "sequences", "at least one token sequence");
  FidelityReport report;
  const size_t n = models.size();
  std::vector<int64_t> agree(n, 0);
  std::vector<double> cosineSum(n, 0), minCosine(n, 1), nll(n, 0);
  double fp32Nll = 0;
  for (const std::vector<int64_t> &s : sequences) {
    if (s.size() < 2 || static_cast<int64_t>(s.size()) > program.maxPositions)
      throw Error("fidelity", "sequence " + std::to_string(report.sequences),
                  "2 .. " + std::to_string(program.maxPositions) + " tokens, got " +
                      std::to_string(s.size()));
    const int64_t rows = static_cast<int64_t>(s.size());
    FloatExecutor reference(program, weights, rows);
    std::vector<std::unique_ptr<GoldenExecutor>> golden;
    for (const QuantizedModel *m : models)
      golden.push_back(std::make_unique<GoldenExecutor>(program, *m, rows));
    for (size_t pos = 0; pos + 1 < s.size(); ++pos) {
      const FloatExecutor::StepResult ref = reference.step(s[pos], static_cast<int64_t>(pos));
      const int64_t next = s[pos + 1];
      const int64_t refTop = firstArgmax(ref.logits);
      fp32Nll += negativeLogLikelihood(ref.logits, next);
      for (size_t p = 0; p < n; ++p) {
        const GoldenExecutor::StepResult g = golden[p]->step(s[pos], static_cast<int64_t>(pos));
        agree[p] += g.nextToken == refTop;
        const double c = logitCosine(g.logits, ref.logits);
        cosineSum[p] += c;
        minCosine[p] = std::min(minCosine[p], c);
        nll[p] += negativeLogLikelihood(g.logits, next);
      }
      ++report.positions;
    }
    ++report.sequences;
  }
  const double positions = static_cast<double>(report.positions);
  report.fp32Perplexity = std::exp(fp32Nll / positions);
  for (size_t p = 0; p < n; ++p) {
    PrecisionFidelity f;
    f.precision = models[p]->precision;
    f.top1Agreement = static_cast<double>(agree[p]) / positions;
    f.meanCosine = cosineSum[p] / positions;
    f.minCosine = minCosine[p];
    f.perplexity = std::exp(nll[p] / positions);
    report.precisions.push_back(f);
  }
  return report;
}

} // namespace st::frontend
