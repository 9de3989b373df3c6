// LlmKernelConfig of every kernel of the accelerator graph from the bindings (see
// llm_kernel_configs.h).
#include "gen/llm_kernel_configs.h"

#include "gen/llm_kernel_bindings.h"
#include "support/error.h"

namespace st::gen {

std::map<ir::NodeId, LlmKernelConfig> llmKernelConfigs(const llm::AcceleratorGraph &g,
                                                       const frontend::QuantizedModel &q,
                                                       const std::string &tableDir,
                                                       const std::string &pathPrefix) {
  if (!g.program)
    throw Error("kernel bindings", "accelerator graph", "the program it was built from");
  std::map<ir::NodeId, LlmKernelConfig> configs;
  for (const auto &[id, info] : g.nodes) {
    if (info.role != llm::AcceleratorRole::Kernel)
      continue;
    const ir::DataflowNode &node = llm::stageNodeOf(g, id);
    const ir::DecodeStage &stage = g.program->stages.at(static_cast<size_t>(info.stage));
    LlmKernelConfig cfg;
    bool any = false;
    for (int64_t run = 0; run < info.layers; ++run) {
      cfg.sidebandsByRun.push_back(kernelSidebands(node, q, stage.name, run));
      any = any || !cfg.sidebandsByRun.back().empty();
      if (node.module == "st_attention")
        cfg.windowByRun.push_back(
            q.get<frontend::QuantizedAttentionOp>(stage.name, run, node.name).slidingWindow);
    }
    if (!any)
      cfg.sidebandsByRun.clear();
    cfg.extraParams = kernelTableParams(node, q, stage, tableDir, pathPrefix);
    cfg.portTies = kernelPortTies(node);
    if (any || !cfg.extraParams.empty() || !cfg.portTies.empty())
      configs.emplace(id, std::move(cfg));
  }
  return configs;
}

} // namespace st::gen
