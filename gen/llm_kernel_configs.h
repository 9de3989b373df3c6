// The LLM top emitter's per-kernel configuration (LlmKernelConfig: sidebands per layer, table
// parameters, port ties, attention windows) for every kernel of the joined accelerator graph,
// read from the QuantizedModel through gen/llm_kernel_bindings. Kept apart from the bindings so
// that the bindings do not depend on the emitter.
#pragma once

#include <map>
#include <string>

#include "frontend/quantized_model.h"
#include "gen/llm_top_emitter.h"
#include "llm/accelerator_graph.h"

namespace st::gen {

/// For every Kernel-role node of `g` with sidebands, table files or ties: its LlmKernelConfig.
/// sidebandsByRun[l] = kernelSidebands(stage node, q, stage, l) for each of the node's layers;
/// extraParams = kernelTableParams (the files written into `tableDir`, named `pathPrefix` +
/// file); portTies = kernelPortTies; windowByRun (attention) = the layer's sliding window, the
/// rule frontend::cacheRowsAt applies. Throws st::Error naming the node as the bindings do.
std::map<ir::NodeId, LlmKernelConfig> llmKernelConfigs(const llm::AcceleratorGraph &g,
                                                       const frontend::QuantizedModel &q,
                                                       const std::string &tableDir,
                                                       const std::string &pathPrefix);

} // namespace st::gen
