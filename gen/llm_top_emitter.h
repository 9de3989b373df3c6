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
#include "plan/llm_top_interface.h"

namespace st::gen {

/// The top module's text. `kernels` holds an entry for every Kernel-role node with sidebands,
/// tables or ties.
std::string emitLlmTop(const llm::AcceleratorGraph &g, const plan::LlmTopInterface &top,
                       const std::map<ir::NodeId, plan::LlmKernelConfig> &kernels);

} // namespace st::gen
