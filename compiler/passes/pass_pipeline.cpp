// The pass registry and driver: the passes in order, the verifier after each, --dump-after.
#include "passes/pass_pipeline.h"

#include "support/error.h"

namespace st::passes {

const std::vector<Pass> &passPipeline() {
  static const std::vector<Pass> passes = {
      {"lower-to-dataflow",
       "tile every op, infer each operand's itensor, make kernels, views, read and write DMAs",
       lowerToDataflow},
      {"insert-converters",
       "insert a layout converter wherever producer and consumer orders differ (shared per order)",
       insertConverters},
      {"insert-forks", "broadcast every output that feeds several streams through a fork",
       insertForks},
      {"fuse", "group nodes under the on-chip memory budget; cut streams between groups via HBM",
       fuseUnderMemoryBudget},
      {"size-fifos",
       "time every node by its template's model and size every FIFO by the LP (or "
       "conservative/deep)",
       sizeStreamFifos},
  };
  return passes;
}

void runPassPipeline(CompileState &state, const std::string &dumpAfter, std::ostream &dump) {
  const auto &passes = passPipeline();
  if (!dumpAfter.empty()) {
    bool known = false;
    std::string names;
    for (const auto &p : passes) {
      known = known || p.name == dumpAfter;
      names += (names.empty() ? "" : ", ") + p.name;
    }
    if (!known)
      throw Error("--dump-after", "pass '" + dumpAfter + "'", "one of " + names);
  }
  for (const auto &p : passes) {
    p.run(state);
    try {
      state.dataflow.verify(state.invariants);
    } catch (const Error &e) {
      throw Error(e.file() + " after pass '" + p.name + "'", e.field(), e.expected());
    }
    if (p.name == dumpAfter)
      dump << "// dataflow graph after " << p.name << "\n" << state.dataflow.toString();
  }
}

} // namespace st::passes
