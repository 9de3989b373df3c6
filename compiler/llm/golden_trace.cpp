// Golden trace of a decode run (see golden_trace.h): the golden executor's prefill of the prompt,
// then stepped as the accelerator steps, keeping the codes the run check compares.
#include "llm/golden_trace.h"

#include <set>

#include "frontend/golden_executor.h"
#include "support/error.h"

namespace st::llm {

const std::vector<int32_t> &GoldenStep::at(const std::string &stage, int64_t run,
                                           const std::string &op) const {
  const std::string key = frontend::QuantizedModel::key(stage, run, op);
  auto it = codes.find(key);
  if (it == codes.end())
    throw Error("golden trace", "codes of '" + key + "'", "a recorded tap or KV append op");
  return it->second;
}

GoldenTrace runGoldenTrace(const ir::DecodeProgram &program, const frontend::QuantizedModel &model,
                           const std::vector<int64_t> &prompt, int64_t newTokens,
                           int64_t maxContext, const std::vector<TapSpec> &taps) {
  const std::string where = "golden trace";
  if (prompt.empty())
    throw Error(where, "prompt", "at least one token id");
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] < 0 || prompt[i] >= program.vocabSize)
      throw Error(where, "prompt[" + std::to_string(i) + "]",
                  "a token id in [0, " + std::to_string(program.vocabSize) + "), got " +
                      std::to_string(prompt[i]));
  if (newTokens < 1)
    throw Error(where, "new tokens", "at least 1, got " + std::to_string(newTokens));
  if (maxContext < 1 || maxContext > program.maxPositions)
    throw Error(where, "max context",
                "1 .. " + std::to_string(program.maxPositions) + " positions, got " +
                    std::to_string(maxContext));
  const int64_t promptLength = static_cast<int64_t>(prompt.size());
  const int64_t steps = promptLength + newTokens - 1;
  if (steps > maxContext)
    throw Error(where, "steps",
                "prompt + new tokens - 1 <= max context " + std::to_string(maxContext) + ", got " +
                    std::to_string(promptLength) + " + " + std::to_string(newTokens) +
                    " - 1 = " + std::to_string(steps));

  // The "stage/run/op" keys to keep: every tap's op and every KV append op, in every run.
  std::set<std::string> keep;
  for (const ir::DecodeStage &stage : program.stages) {
    std::vector<std::string> ops;
    for (const TapSpec &tap : taps)
      if (tap.stage == stage.name)
        ops.push_back(tap.op);
    for (ir::OpId o = 0; o < stage.graph.numOps(); ++o) {
      const ir::Op &op = stage.graph.op(o);
      if (std::holds_alternative<ir::AttentionAttrs>(op.llm))
        for (const char *kind : {"k_cache", "v_cache"})
          ops.push_back(kvAppendOp(stage, op.name, kind));
    }
    for (int64_t run = 0; run < stage.repeat; ++run)
      for (const std::string &op : ops)
        keep.insert(frontend::QuantizedModel::key(stage.name, run, op));
  }
  for (const TapSpec &tap : taps) {
    bool found = false;
    for (const ir::DecodeStage &stage : program.stages)
      for (ir::OpId o = 0; o < stage.graph.numOps(); ++o)
        found = found || (stage.name == tap.stage && stage.graph.op(o).name == tap.op);
    if (!found)
      throw Error(where, "tap '" + tap.stage + "/" + tap.op + "'", "an op of the decode program");
  }

  GoldenTrace trace;
  trace.prompt = prompt;
  frontend::GoldenExecutor golden(program, model, maxContext);
  golden.recordTaps(true);
  // The prompt's steps layer-major (GoldenExecutor::prefill, the same codes as step by step),
  // then one step per generated id, each feeding the previous argmax.
  frontend::GoldenExecutor::PrefillOptions prefill;
  prefill.keepTap = [&keep](const std::string &key) { return keep.count(key) > 0; };
  prefill.logits = false;
  std::vector<frontend::GoldenExecutor::StepResult> prefilled = golden.prefill(prompt, prefill);
  for (int64_t t = 0; t < steps; ++t) {
    GoldenStep step;
    step.token = t < promptLength ? prompt[static_cast<size_t>(t)] : trace.steps.back().argmax;
    frontend::GoldenExecutor::StepResult r = t < promptLength
                                                 ? std::move(prefilled[static_cast<size_t>(t)])
                                                 : golden.step(step.token, t);
    step.argmax = r.nextToken;
    for (auto &[key, codes] : r.taps)
      if (keep.count(key))
        step.codes.emplace(key, std::move(codes));
    if (t >= promptLength - 1)
      trace.generated.push_back(step.argmax);
    trace.steps.push_back(std::move(step));
  }
  return trace;
}

} // namespace st::llm
