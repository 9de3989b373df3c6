// The planned design of a compiled graph (see graph_plan.h).
#include "plan/graph_plan.h"

#include "passes/fifo_sizing.h"
#include "support/error.h"

namespace st::plan {

GraphPlan planGraphDesign(const passes::CompileState &state, const std::string &designName,
                          const std::string &tablePrefix) {
  GraphPlan p;
  p.designName = designName;
  p.graph = state.graph;
  p.dataflow = state.dataflow;
  p.device = state.device;
  // Converter address tables, and their final paths as the converters' string parameters.
  for (ir::NodeId n : p.dataflow.nodes()) {
    const ir::DataflowNode &node = p.dataflow.node(n);
    if (node.kind != ir::NodeKind::Converter)
      continue;
    ConverterTables t;
    t.node = n;
    t.stem = svIdentifier(node.name);
    t.program = ir::buildConverterProgram(
        node.inputs[0].type, node.outputs[0].type,
        ir::inferConverterBuffer(node.inputs[0].type, node.outputs[0].type));
    t.limits = ir::converterLimitsOf(t.program);
    const char *kinds[] = {"counts", "prod", "cons"};
    const char *params[] = {"CountsFile", "ProdTableFile", "ConsTableFile"};
    for (int k = 0; k < 3; ++k)
      t.params.push_back({params[k], 0, tablePrefix + t.stem + "_" + kinds[k] + ".mem"});
    p.converterTables.push_back(std::move(t));
  }
  p.top = topInterfaceOf(p.dataflow, designName,
                         state.device.hbmPseudoChannels > 0
                             ? static_cast<unsigned>(state.device.hbmPseudoChannels)
                             : 32);
  if (p.top.dmas.size() > 32)
    throw Error("emitter", "design '" + designName + "'",
                "at most 32 DMAs (one per HBM pseudo-channel), got " +
                    std::to_string(p.top.dmas.size()));
  p.fusionGroups = state.numFusionGroups;
  p.fifoMode = passes::fifoSizingModeName(state.options.fifoMode);
  p.lpScheduleCycles = state.predictedCycles;
  p.deepFifoCycles = state.deepCycles;
  p.searchedMinDepths = state.searchedMinDepths;
  for (const passes::CompileState::KernelCyclePrediction &k : state.kernelCycles)
    p.kernelCycles.push_back({k.memory, k.timing, k.prediction.cycles, k.prediction.deadlock});
  p.resources = designResources(p.dataflow);
  return p;
}

} // namespace st::plan
