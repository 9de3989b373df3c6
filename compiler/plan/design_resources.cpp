// Whole-design resource estimate (see design_resources.h).
#include "plan/design_resources.h"

#include <algorithm>

#include "ir/converter_program.h"
#include "ir/hbm_layout.h"
#include "llm/kv_striping.h"
#include "llm/stage_lowering.h"
#include "model/axi_lite_ctrl_resources.h"
#include "model/converter_model.h"
#include "model/dma_stream_resources.h"
#include "model/fifo_resources.h"
#include "model/fork_resources.h"
#include "model/graph_kernel_params.h"
#include "model/kernel_templates.h"
#include "model/layer_loop_model.h"
#include "model/llm_kernel_catalog.h"
#include "model/step_sequencer_model.h"
#include "plan/hbm_plan.h"
#include "plan/llm_top_interface.h"
#include "support/error.h"

namespace st::plan {

namespace {

model::ResourceEstimate dmaResources(const ir::HbmTensorLayout &layout, bool isRead,
                                     int64_t extraLoops = 0) {
  model::DmaParams p; // the top leaves MaxBurstLen and MaxOutstanding at their defaults
  p.numLoops = static_cast<int64_t>(layout.loops.size()) + extraLoops;
  p.dataWidth = layout.wordBits;
  model::DmaStreamTokens t;
  t.paddedTokenBits = layout.paddedTokenBits;
  t.tokenBits = layout.tokenBits;
  t.tokensPerRun = layout.tokensPerRun;
  return isRead ? model::readDmaStreamResources(p, t) : model::writeDmaStreamResources(p, t);
}

model::ResourceEstimate dmaResources(const ir::DataflowNode &node) {
  const bool isRead = node.kind == ir::NodeKind::ReadDma;
  return dmaResources(ir::hbmLayoutOf(isRead ? node.outputs.at(0).type : node.inputs.at(0).type),
                      isRead);
}

model::ResourceEstimate kernelResources(const ir::DataflowGraph &df, const ir::DataflowNode &node) {
  if (auto llm = model::llmKernelResources(node))
    return *llm;
  // The LLM decode loop's control nodes (llm/accelerator_graph).
  if (node.module == "st_layer_loop") {
    // The compiler leaves LoopDepth at its default, VecTokens.
    const model::LayerLoopParams p = model::layerLoopTemplate().decode(node);
    return model::layerLoopResources(p, p.width, p.vecTokens);
  }
  if (node.module == "st_token_source")
    return llmTokenSourceResources();
  if (node.module == "st_step_sequencer") // the position source: one step per command
    return model::stepSequencerResources({}, {llmStepBits, 1, 32});
  if (node.module == "st_matmul")
    return model::matmulResources(model::matmulParamsOf(node));
  if (node.module == "st_reduce")
    return model::reduceResources(model::reduceParamsOf(node));
  if (auto p = model::elementwiseGeneratedParamsOf(df, node))
    return model::elementwiseGeneratedResources(*p);
  throw Error("resource estimate", "kernel '" + node.name + "'",
              "a resource model for module " + node.module);
}

} // namespace

model::ResourceEstimate llmTokenSourceResources() {
  // st_token_source (IdBits 32, StepBits S = 16): registers run, two valids, n_prompt and
  // num_steps (S each), the token and argmax counters (S + 1 each) and the token and generated
  // ids (32 each); logic: the id select, two incrementers and six counter compares. Yosys
  // (synth.vitis_top.llama_tiny_gqa): 133 FF, 116 LUT.
  constexpr int64_t idBits = 32, s = llmStepBits;
  model::ResourceEstimate e;
  e.ff = 3 + 2 * s + 2 * (s + 1) + 2 * idBits;
  e.lut = idBits + 2 * (s + 1) + 6 * ((s + 1 + 3) / 4) + 8;
  return e;
}

model::ResourceEstimate llmVectorCounterResources(int64_t vecTokens, int64_t layers) {
  // st_vector_counter: token, sub, layer and step counters, each an incrementer with a wrap
  // compare; the incrementers ride the carry chain, so the LUTs are the compares and enables,
  // plus the step counter's load of first_step on a clear (a StepBits-wide mux). Yosys
  // synth_xilinx -family xcup, VecTokens 24, Layers 2, StepBits 16: 22 FF, 24 LUT (8 before the
  // load of first_step).
  auto bits = [](int64_t n) {
    int64_t b = 1;
    while ((int64_t{1} << b) < n)
      ++b;
    return b;
  };
  model::ResourceEstimate e;
  e.ff = bits(vecTokens) + bits(layers) + llmStepBits;
  e.lut = bits(vecTokens) + bits(layers) + 3 + llmStepBits;
  return e;
}

DesignResources designResources(const ir::DataflowGraph &df, const TopInterface *top) {
  DesignResources r;
  auto add = [&](std::string name, std::string module, const model::ResourceEstimate &e) {
    r.total += e;
    r.parts.push_back({std::move(name), std::move(module), e});
  };
  size_t numDmas = 0;
  for (ir::NodeId n : df.nodes()) { // node order: the LLM graph has loops (no topological order)
    const ir::DataflowNode &node = df.node(n);
    switch (node.kind) {
    case ir::NodeKind::View:
      break; // wiring (a transpose permutes lanes)
    case ir::NodeKind::Fork:
      add(node.name, node.module,
          model::forkResources(static_cast<int64_t>(node.outputs.size()),
                               model::forkTemplate().decode(node).width));
      break;
    case ir::NodeKind::ReadDma:
    case ir::NodeKind::WriteDma: {
      const auto slices = node.attributes.find(ir::kAttrKvSlices);
      if (slices == node.attributes.end() || slices->second < 2) {
        ++numDmas;
        add(node.name, node.module, dmaResources(node));
        break;
      }
      // A striped KV cache (llm/kv_striping.h): the top's ports, a read's one per slice (plus the
      // runtime row loop) with the st_fork of their command and the st_join of their tokens. (The
      // slices' distance in HBM, unknown before the HBM plan, changes no resource.)
      const bool isRead = node.kind == ir::NodeKind::ReadDma;
      const std::vector<ir::HbmTensorLayout> ports = stripedKvPortLayouts(node, 0);
      for (size_t j = 0; j < ports.size(); ++j) {
        ++numDmas;
        add(node.name + (isRead ? "_s" + std::to_string(j) : ""), node.module,
            dmaResources(ports[j], isRead, isRead ? 1 : 0));
      }
      // A read whose kv-head blocks spread over channels of their own (llm::kvBlockChannels on
      // the U55C's channels): an st_channel_claim per slice master.
      const auto blocks = node.attributes.find(llm::kAttrKvBlocks);
      const int64_t spread =
          blocks == node.attributes.end()
              ? 1
              : llm::kvBlockChannels(slices->second, blocks->second, HbmDevice{}.pseudoChannels);
      if (isRead && spread > 1)
        for (size_t j = 0; j < ports.size(); ++j)
          add(node.name + "_s" + std::to_string(j) + " claim", "st_channel_claim",
              model::channelClaimResources(spread));
      if (isRead) {
        add(node.name + " command fork", "st_fork", model::forkResources(slices->second, 1));
        // st_join holds no state: the AND of the slices' valids (a LUT6 per five more inputs)
        // and the one ready they all take.
        model::ResourceEstimate join;
        join.lut = (slices->second - 1 + 4) / 5 + 1;
        add(node.name + " join", "st_join", join);
      }
      break;
    }
    case ir::NodeKind::Converter: {
      const ir::ConverterProgram program = ir::buildConverterProgram(
          node.inputs.at(0).type, node.outputs.at(0).type,
          ir::inferConverterBuffer(node.inputs[0].type, node.outputs[0].type));
      add(node.name, node.module,
          model::layoutConverterResources(ir::converterLimitsOf(program), &program));
      break;
    }
    case ir::NodeKind::Kernel:
      add(node.name, node.module, kernelResources(df, node));
      break;
    }
  }
  for (ir::StreamId s : df.streams()) {
    const ir::Stream &st = df.stream(s);
    // The top gives every FIFO at least depth 2 and leaves its occupancy outputs open.
    const model::ResourceEstimate e =
        model::fifoResources(df.tokenBits(st), std::max<int64_t>(st.fifoDepth, 2), false);
    r.fifos += e;
    add("fifo " + st.name, "st_fifo", e);
  }
  const TopInterface derived = top ? TopInterface{} : topInterfaceOf(df, "design");
  const TopInterface &t = top ? *top : derived;
  uint64_t argIs64 = 0;
  for (size_t a = 0; a < t.args.size() && a < 64; ++a)
    if (t.args[a].isPointer)
      argIs64 |= uint64_t{1} << a;
  model::ResourceEstimate control =
      model::axiLiteCtrlResources(static_cast<int64_t>(t.args.size()), argIs64);
  // The top's DMA sequencing: running_q, and per DMA started_q, done_q and their logic.
  control.ff += 1 + 2 * static_cast<int64_t>(numDmas);
  control.lut += 2 + 3 * static_cast<int64_t>(numDmas);
  add("control", "st_axi_lite_ctrl", control);
  return r;
}

void addLlmSequencers(DesignResources &r, const llm::AcceleratorGraph &g) {
  for (ir::NodeId n : g.dataflow.nodes()) {
    const llm::AcceleratorRole role = g.nodes.at(n).role;
    if (!isLlmDma(role))
      continue;
    model::StepSequencerParams p;
    p.layers = g.nodes.at(n).layers;
    p.gated = role == llm::AcceleratorRole::KvCacheRead;
    const model::ResourceEstimate e = model::stepSequencerResources(p, {llmStepBits, 1, 32});
    r.total += e;
    r.parts.push_back({g.dataflow.node(n).name + " sequencer", "st_step_sequencer", e});
  }
}

} // namespace st::plan
