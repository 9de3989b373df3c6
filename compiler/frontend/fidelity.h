// Fidelity of the quantized golden model against the fp32 reference (docs/numerics.md §7), on
// token-id sequences a user brings: teacher-forced, each sequence from position 0, the
// FloatExecutor and one GoldenExecutor per precision step through the same tokens in lockstep.
// At every position that has a next token it records, per precision, whether the argmax agrees
// with fp32's, the cosine of the (dequantized) logits with fp32's, and the negative
// log-likelihood of the next token under both, from which the perplexities follow.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/quantized_model.h"
#include "frontend/weight_store.h"
#include "ir/decode_program.h"

namespace st::frontend {

struct PrecisionFidelity {
  numerics::Precision precision = numerics::Precision::W4A8;
  double top1Agreement = 0; ///< fraction of positions whose argmax equals fp32's
  double meanCosine = 0;    ///< mean over positions of cos(logits, fp32 logits)
  double minCosine = 0;     ///< the smallest such cosine
  double perplexity = 0;    ///< exp(mean negative log-likelihood of the next token)
};

struct FidelityReport {
  int64_t sequences = 0;
  int64_t positions = 0;     ///< predictions scored: sum over sequences of (length - 1)
  double fp32Perplexity = 0; ///< the reference's perplexity on the same positions
  std::vector<PrecisionFidelity> precisions;
};

/// Runs the measurement. `models` holds one QuantizedModel per precision (in report order).
/// Throws st::Error for an empty set, a sequence shorter than two tokens or longer than the
/// program's positions.
FidelityReport measureFidelity(const ir::DecodeProgram &program, const WeightStore &weights,
                               const std::vector<const QuantizedModel *> &models,
                               const std::vector<std::vector<int64_t>> &sequences);

/// -log softmax(logits)[target], in double with the log-sum-exp shift.
double negativeLogLikelihood(const std::vector<float> &logits, int64_t target);
/// cos(a, b) in double; 1 when both are zero, 0 when only one is.
double logitCosine(const std::vector<float> &a, const std::vector<float> &b);

} // namespace st::frontend
