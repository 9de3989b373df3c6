// Pass insert-forks: an output port that drives several streams gets a fork (st_fork, an eager
// broadcast where each branch has its own ready), so that afterwards every port has exactly one
// stream — the FIFO of that stream is what the FIFO-sizing pass sizes.
#include "passes/pass_pipeline.h"

#include "model/kernel_templates.h"

namespace st::passes {

void insertForks(CompileState &state) {
  ir::DataflowGraph &df = state.dataflow;
  for (ir::NodeId n : df.nodes()) {
    for (unsigned p = 0; p < df.node(n).outputs.size(); ++p) {
      const ir::PortRef src{n, p};
      const std::vector<ir::StreamId> fanout = df.streamsFrom(src);
      if (fanout.size() < 2)
        continue;
      const ir::ITensorType type = df.node(n).outputs[p].type;
      ir::DataflowNode fork;
      fork.kind = ir::NodeKind::Fork;
      fork.module = model::forkTemplate().module();
      fork.name = "fork_" + df.node(n).name +
                  (df.node(n).outputs.size() > 1 ? "_" + df.node(n).outputs[p].name : "");
      fork.inputs = {{"in", type}};
      for (size_t b = 0; b < fanout.size(); ++b)
        fork.outputs.push_back({"out" + std::to_string(b), type});
      fork.params = model::forkTemplate().encode(
          {static_cast<int64_t>(fanout.size()),
           type.elementsPerToken() * ir::elementBits(type.elementType)});
      const ir::NodeId f = df.addNode(std::move(fork));
      df.connect(src, {f, 0});
      for (size_t b = 0; b < fanout.size(); ++b) {
        const ir::PortRef dst = df.stream(fanout[b]).dst;
        df.removeStream(fanout[b]);
        df.connect({f, static_cast<unsigned>(b)}, dst);
      }
    }
  }
  state.invariants.singleConsumer = true;
}

} // namespace st::passes
