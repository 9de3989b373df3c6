// Run layout: the tokens, KV-cache and tap regions of a decode run in HBM (see run_layout.h);
// plan/run_regions places them in the HBM image plan.
#include "llm/run_layout.h"

#include "support/error.h"

namespace st::llm {

std::string kvAppendOp(const ir::DecodeStage &stage, const std::string &attentionOp,
                       const std::string &kind) {
  const ir::TensorGraph &g = stage.graph;
  const std::string where = "stage '" + stage.name + "' op '" + attentionOp + "'";
  if (kind != "k_cache" && kind != "v_cache")
    throw Error("run layout", where, "a cache kind k_cache or v_cache, got '" + kind + "'");
  for (ir::OpId o = 0; o < g.numOps(); ++o) {
    const ir::Op &op = g.op(o);
    if (op.name != attentionOp)
      continue;
    if (!std::holds_alternative<ir::AttentionAttrs>(op.llm) || op.inputs.size() < 3)
      throw Error("run layout", where, "an attention op (q, k, v, caches, pos)");
    const ir::TensorId input = op.inputs[kind == "k_cache" ? 1 : 2].tensor;
    const std::optional<ir::OpId> producer = g.producer(input);
    if (!producer)
      throw Error("run layout", where,
                  "its " + std::string(kind == "k_cache" ? "k" : "v") +
                      " input produced by an op of the stage");
    return g.op(*producer).name;
  }
  throw Error("run layout", where, "an op of the stage");
}

std::vector<TapSpec> defaultRunTaps(const ir::DecodeProgram &program) {
  std::vector<TapSpec> taps;
  for (const ir::DecodeStage &stage : program.stages) {
    const ir::TensorGraph &g = stage.graph;
    for (ir::OpId o : g.topologicalOrder()) {
      const ir::Op &op = g.op(o);
      const ir::TensorInfo &out = g.tensor(op.output.tensor);
      const bool blockOutput = stage.repeat > 1 && out.role == ir::TensorRole::Output;
      const bool logits =
          out.name == ir::DecodeProgram::kLogitsOutput && out.role == ir::TensorRole::Output;
      if (blockOutput || logits)
        taps.push_back({stage.name, op.name});
    }
  }
  return taps;
}

} // namespace st::llm
