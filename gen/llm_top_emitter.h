// LLM top emitter: the Vitis RTL kernel top of the LLM accelerator (docs/accelerator.md §1) from
// the joined accelerator graph. Beside the streams, FIFOs and forks every top has
// (sv_stream_wiring), it writes the decode loop's control: the AXI4-Lite slave with the scalars
// n_prompt and n_steps and one pointer per AXI master; one st_step_sequencer per DMA that emits
// the DMA's commands per (step, layer) with their address arithmetic written beside it (a weight
// stream at base + l * layer stride, a KV append at row t, a KV read of rows first(t, l) .. t-1
// gated on the append of (t-1, l), a debug-tap row); the token source, the layer loop and the
// position source; and for each kernel an st_vector_counter whose (step, layer) selects the
// kernel's per-layer sidebands. ap_done rises once every sequencer has issued its commands and
// every DMA has finished them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gen/sv_top_emitter.h"
#include "llm/accelerator_graph.h"
#include "plan/hbm_layout.h"
#include "plan/llm_kernel_bindings.h"

namespace st::gen {

/// What the emitter needs about one kernel beyond its graph node.
struct LlmKernelConfig {
  /// Per run (layer) of its stage, the sidebands (the same ports in the same order every run).
  std::vector<std::vector<plan::SidebandValue>> sidebandsByRun;
  /// Parameters appended to the node's (table files).
  std::vector<ir::NodeParam> extraParams;
  /// Attention: the sliding window per layer (0: every cached row). The KV read DMA's rows and
  /// the CacheLength sideband both follow frontend::cacheRowsAt: min(t, window - 1), or t.
  std::vector<int64_t> windowByRun;
};

/// Whether some sideband of the kernel follows the decode step or the layer (Position,
/// CacheLength, or a constant that differs between runs). Only such a kernel gets an
/// st_vector_counter in the top: the others' sidebands are literals or pointer arguments.
bool sidebandsFollowStepOrLayer(const LlmKernelConfig &cfg);

/// One DMA (or the embedding gather's AXI master) of the LLM top, beside plan::TopInterface's
/// entry.
struct LlmDmaPort {
  ir::NodeId node = 0;
  llm::AcceleratorRole role = llm::AcceleratorRole::WeightStream;
  std::string buffer;      ///< the HBM buffer its pointer addresses (image or run buffer name)
  int64_t layerStride = 0; ///< bytes between layers of the buffer
  /// The layout of one command's row (KV row, tap row, id row) or, for a weight stream, of the
  /// whole stream of one layer.
  plan::HbmTensorLayout rowLayout;
  int64_t rowBytes = 0;  ///< bytes between rows (rowLayout.bytes())
  int64_t ringSteps = 0; ///< a tap ring of this many steps (a power of two); 0: every step
};

struct LlmTopInterface {
  plan::TopInterface top;       ///< args: n_prompt, n_steps, then one pointer per AXI master
  std::vector<LlmDmaPort> dmas; ///< same order as top.dmas
  static constexpr const char *kPromptArg = "n_prompt";
  static constexpr const char *kStepsArg = "n_steps";
};

/// The interface: DMA order = node order. `bufferOf(node)` names the HBM buffer each DMA (and the
/// embedding gather) addresses, `bufferInfo(name)` gives its layer stride and HBM channel.
struct BufferPlacement {
  int64_t layerStride = 0;
  unsigned channel = 0;
  int64_t rowBytes = 0;  ///< a row-structured buffer's row (KV caches); 0: not checked
  int64_t ringSteps = 0; ///< plan::HbmBuffer::ringSteps
};
LlmTopInterface
llmTopInterfaceOf(const llm::AcceleratorGraph &g, const std::string &designName,
                  const std::function<BufferPlacement(const std::string &)> &bufferInfo,
                  const std::function<std::string(ir::NodeId)> &bufferOf);

/// The top module's text. `kernels` holds an entry for every Kernel-role node with sidebands,
/// tables or ties.
std::string emitLlmTop(const llm::AcceleratorGraph &g, const LlmTopInterface &top,
                       const std::map<ir::NodeId, LlmKernelConfig> &kernels);

} // namespace st::gen
