// The LLM kernels' timing and resources looked up by template name: reads a dataflow kernel
// node's template parameters (same names as the SystemVerilog parameters) and the attributes the
// LLM lowering records beside them (a vector length, a per-head invocation count, the cache
// length being timed), and calls the one model of that template in compiler/model/. The FIFO
// sizing, the cycle prediction and the resource report all go through here, so a kernel's
// figures have one source.
#pragma once

#include <optional>

#include "ir/dataflow_graph.h"
#include "model/kernel_timing.h"
#include "model/linear_model.h"

namespace st::model {

/// Attributes of an LLM kernel node (DataflowNode::attributes) that are not template
/// parameters.
inline constexpr const char *kAttrVectorLength = "vector_length"; ///< elements per invocation
inline constexpr const char *kAttrInvocations = "invocations";    ///< back-to-back vectors
inline constexpr const char *kAttrCacheLength = "cache_length";   ///< attention: cached rows
/// A stage graph's call of the shared GEMV engine (module st_gemv_engine, gemvCallTemplate).
inline constexpr const char *kAttrEngineCall = "engine_call";

/// The timing of one step of an LLM kernel node (st_linear, st_norm, st_rope, st_attention,
/// st_embedding_gather, st_activation, st_gated_activation, st_residual_add, st_argmax), or
/// nullopt for any other module. Only dataflow ports are inputs: a command port that a step
/// sequencer drives (st_argmax's length) is left out. Throws st::Error naming the node when a
/// parameter is missing or the template would reject the parameters.
std::optional<KernelTiming> llmKernelTiming(const ir::DataflowNode &node);

/// The resource estimate of the same nodes (nullopt for other modules).
std::optional<ResourceEstimate> llmKernelResources(const ir::DataflowNode &node);

/// The st_linear parameters of a kernel node (the HBM image writer packs its weight stream with
/// them). Throws st::Error naming the node when one is missing.
LinearParams linearParamsOf(const ir::DataflowNode &node);

/// `count` back-to-back invocations of a kernel whose single invocation is `one`, the j-th
/// starting at `startCycle(j)` (cycle 0 = the first input handshake of invocation 0); output
/// token k belongs to invocation k / one.outputTokens and needs the tokens of every earlier
/// invocation plus what it needs in its own.
KernelTiming repeatedTiming(const KernelTiming &one, int64_t count,
                            const std::function<int64_t(int64_t)> &startCycle);

} // namespace st::model
