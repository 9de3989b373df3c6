// The pass pipeline: every pass of the compiler in order, each with a name, a one-line summary
// (listed by `streamtensor help passes`), and the run function; the verifier runs after each
// pass, and --dump-after <pass> prints the dataflow graph as text after it.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "passes/compile_state.h"

namespace st::passes {

struct Pass {
  std::string name;
  std::string summary;
  std::function<void(CompileState &)> run;
};

/// The passes in pipeline order.
const std::vector<Pass> &passPipeline();

/// Runs every pass, verifying after each. If `dumpAfter` names a pass, prints the IR after it to
/// `dump`; an unknown name is an st::Error listing the passes.
void runPassPipeline(CompileState &state, const std::string &dumpAfter, std::ostream &dump);

// The passes (one file each in compiler/passes/).
void lowerToDataflow(CompileState &state);
void insertConverters(CompileState &state);
void insertForks(CompileState &state);
void fuseUnderMemoryBudget(CompileState &state);
void sizeStreamFifos(CompileState &state);

/// The timing graph of a dataflow graph (each node's timing from its template's model); the
/// i-th edge is the stream `edgeStreams[i]`.
sim::TimingGraph timingGraphOf(const ir::DataflowGraph &df, std::vector<ir::StreamId> &edgeStreams);

} // namespace st::passes
