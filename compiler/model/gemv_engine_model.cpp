// Timing and resource model of st_gemv_engine (see gemv_engine_model.h).
#include "model/gemv_engine_model.h"

#include "support/error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace st::model {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int64_t ceilLog2(int64_t v) {
  int64_t bits = 0;
  while ((int64_t(1) << bits) < v)
    ++bits;
  return bits;
}

} // namespace

GemvEngineCallTiming gemvEngineCallTiming(const GemvEngineShape &shape, const GemvEngineCall &call,
                                          const GemvEngineCarry &previous) {
  numerics::checkGemvEngineShape(shape);
  if (call.rows <= 0 || call.rows % shape.lanes != 0)
    throw Error("gemv engine model", "rows",
                "a positive multiple of Lanes = " + std::to_string(shape.lanes) + ", got " +
                    std::to_string(call.rows));
  GemvEngineCallTiming t;
  t.superWords = numerics::gemvWordsPerChannel(call.k, call.rows, call.groupSize, shape);
  t.xTokens = call.reuseX ? 0 : call.k / shape.lanes;
  const int64_t blocks = ceilDiv(call.rows, shape.channels);
  const int64_t fullTokens = shape.channels / shape.lanes;
  int64_t lastWord = -previous.cyclesSinceLastWord;
  int64_t lastTokens = previous.lastBlockTokens;
  int64_t q = 0; // Q(b - 1); the first word after D is Q = 1 at cycle X + 1
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t qb = numerics::gemvWordsThroughBlock(b, call.k, call.groupSize, shape);
    const int64_t natural = b == 0 ? t.xTokens + qb : lastWord + (qb - q);
    const int64_t paced =
        lastTokens > 0 ? lastWord + lastTokens : std::numeric_limits<int64_t>::min();
    lastWord = std::max(natural, paced);
    lastTokens =
        b + 1 < blocks ? fullTokens : (call.rows - (blocks - 1) * shape.channels) / shape.lanes;
    q = qb;
    t.blockLastWord.push_back(lastWord);
    t.blockTokens.push_back(lastTokens);
    t.blockSuperWords.push_back(1 + qb);
    for (int64_t i = 0; i < lastTokens; ++i) {
      t.outputs.push_back(lastWord + kGemvOutputDelay + i);
      t.outputBlock.push_back(b);
    }
  }
  return t;
}

std::vector<GemvEngineCallTiming>
gemvEngineSequenceTiming(const GemvEngineShape &shape, const std::vector<GemvEngineCall> &calls) {
  std::vector<GemvEngineCallTiming> out;
  GemvEngineCarry carry;
  for (const GemvEngineCall &call : calls) {
    out.push_back(gemvEngineCallTiming(shape, call, carry));
    carry = out.back().carry(1);
  }
  return out;
}

KernelTiming gemvEngineTiming(const GemvEngineShape &shape, const GemvEngineCall &call,
                              const GemvEngineCarry &previous) {
  const GemvEngineCallTiming c = gemvEngineCallTiming(shape, call, previous);
  KernelTiming t;
  t.firstOutputDelay = c.outputs.front();
  t.totalLatency = c.outputs.back();
  t.ii = 1;
  t.notBefore = c.outputs;
  t.outputTokens = int64_t(c.outputs.size());
  t.inputTokens = {c.xTokens, c.superWords};
  const int64_t x = c.xTokens;
  std::vector<int64_t> words;
  for (int64_t b : c.outputBlock)
    words.push_back(c.blockSuperWords[size_t(b)]);
  t.inputTokensNeeded = {[x](int64_t) { return x; },
                         [words](int64_t k) { return words[size_t(k)]; }};
  return t;
}

ResourceEstimate gemvEngineResources(const GemvEngineShape &s) {
  numerics::checkGemvEngineShape(s);
  ResourceEstimate r;
  (void)ceilLog2;
  return r;
}

} // namespace st::model
