// Accelerator graph: the whole LLM accelerator of docs/accelerator.md §1 as one dataflow graph.
// The three stages of a DecodeProgram (prologue, block, epilogue) are lowered (stage_lowering),
// get their forks and LP-sized FIFOs stage by stage, and are joined: the stage-exchange DMAs the
// lowering put at each stage boundary are replaced by streams through the control nodes — the
// token source (prompt ids, then the fed-back argmax), the layer loop around the one block that
// serves every layer, the position source (GPT-2's position embedding), a prompt read DMA and a
// generated-token write DMA — and by debug taps (the logits and each layer's block output written
// to HBM for the testbench's check). The graph has one cycle (the layer loop), so it is emitted
// in node order, not topological order. Every node keeps a record of where it came from (stage,
// stage node, role) for the emitter, which gives each role its commands and sidebands.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/dataflow_graph.h"
#include "ir/decode_program.h"
#include "llm/gemv_engine_join.h"
#include "llm/stage_lowering.h"

namespace st::llm {

/// How the linears are computed (docs/accelerator.md §6).
enum class LinearEngine {
  PerOp, ///< v1: one st_linear and one weight DMA per linear
  Gemv,  ///< v2: one shared st_gemv_engine fed by every pseudo-channel
};
/// "per-op" / "gemv", and back (st::Error naming `field` for another text).
const char *toString(LinearEngine engine);
LinearEngine parseLinearEngine(const std::string &text, const std::string &field);

struct AcceleratorOptions {
  numerics::Precision precision = numerics::Precision::W4A8;
  int64_t maxLanes = 8;
  LinearEngine engine = LinearEngine::Gemv;
  /// The engine's pseudo-channels (one weight read DMA each) and the most 512-bit words each
  /// channel's prefetch FIFO holds (it lets the weights stream on while the engine waits for its
  /// x: norms, attention); never more than a step's words of the channel. 4096 words: one URAM
  /// FIFO of 8 URAM288 per channel (st_fifo's "ultra"), about 5,200 cycles of a channel's words,
  /// which covers attention's passes of a 1B model at context 512 (docs/decisions.md).
  int64_t engineChannels = 32;
  int64_t engineFifoWords = 4096;
  /// Engine channel pairs whose products share their DSP48E2s (numerics::GemvEngineShape::
  /// packedPairs); chooseAttentionKvStep sets it with the kv step.
  int64_t enginePackedPairs = 0;
  /// Rows of every KV-cache region: the longest context (prompt + generated) a run may use.
  int64_t maxContext = 64;
  /// The cache length the FIFO sizing and the per-step prediction of the block assume.
  int64_t sizingCacheLength = 8;
  /// Kv heads per cache token of attention (StageLoweringOptions::attentionKvStep, 0: one DMA per
  /// cache, part of a head per token); the compile command sets it by chooseAttentionKvStep.
  int64_t attentionKvStep = 0;
  /// Cache tokens per kv head with attentionKvStep 1 (StageLoweringOptions::attentionHeadSplit).
  int64_t attentionHeadSplit = 1;
  /// Kv heads per cache token the KV DMAs read (StageLoweringOptions::attentionReadStep).
  int64_t attentionReadStep = 0;
  /// st_attention's block-major walk (StageLoweringOptions::attentionBlockMajor).
  bool attentionBlockMajor = false;
  /// Positions striped over this many slices (StageLoweringOptions::attentionPositionSlices).
  int64_t attentionPositionSlices = 0;
  /// One-pass attention in tiles of this many positions (StageLoweringOptions::
  /// attentionTilePositions; the golden model's too, frontend::applyAttentionTiles); 0: two.
  int64_t attentionTilePositions = 0;
  /// Write each step's logits and each layer's block output to HBM (for the testbench).
  bool debugTaps = true;
  /// Stream name (of the joined graph) -> FIFO depth, overriding the LP's (fault tests).
  std::map<std::string, int64_t> forcedDepths;
};

/// What a node of the joined graph does, beyond its module.
enum class AcceleratorRole {
  Kernel,         ///< a lowered op's kernel (the block's serve every layer)
  Fork,           ///< a broadcast inserted by insert-forks
  WeightStream,   ///< weight / norm-parameter read DMA: layer l at base + l * layer stride
  KvCacheRead,    ///< K or V cache rows of the current layer, from step 1 on
  KvAppend,       ///< K or V row t of the current layer
  Tap,            ///< debug tap: one row per step (epilogue) or per (step, layer) (block)
  PromptRead,     ///< the P prompt ids, one per 64-byte row
  TokenWrite,     ///< the generated ids, one per 64-byte row
  TokenSource,    ///< st_token_source
  LayerLoop,      ///< st_layer_loop
  PositionSource, ///< a step counter streaming t once per step (GPT-2's position embedding)
  Engine,         ///< the shared GEMV engine (LinearEngine::Gemv)
  EngineStream,   ///< one pseudo-channel's weight words for the engine: the whole step, once
};
const char *toString(AcceleratorRole role);

struct AcceleratorNode {
  AcceleratorRole role = AcceleratorRole::Kernel;
  /// The stage it comes from (index into AcceleratorGraph::stages), -1 for control nodes.
  int stage = -1;
  /// Its node in that stage's lowered dataflow graph (stages[stage].dataflow).
  ir::NodeId stageNode = 0;
  /// Runs per step of its stage: the number of layers for the block, else 1.
  int64_t layers = 1;
};

struct AcceleratorGraph {
  /// The joined graph (forks inserted, FIFOs sized; `source` is null: nodes name their stage
  /// graph through `nodes`).
  ir::DataflowGraph dataflow;
  std::map<ir::NodeId, AcceleratorNode> nodes;
  /// The lowered stages, forks inserted and FIFOs sized (their graphs point into the program).
  std::vector<LoweredStage> stages;
  const ir::DecodeProgram *program = nullptr;
  int64_t layers = 1;
  /// Codes per token of the residual vector x between the stages.
  int64_t lanes = 1;
  /// Per stage, the FIFO sizing's predicted cycles of one run at sizingCacheLength.
  std::vector<int64_t> stageCycles;
  /// The shared GEMV engine and its calls (LinearEngine::Gemv; empty calls otherwise).
  EngineUse engine;
  /// One step: prologue + layers x block + epilogue (docs/accelerator.md §5).
  int64_t predictedCyclesPerStep() const;
};

/// `options` with the one lane count of the whole design over `program`'s stages (x crosses
/// every stage boundary unconverted): the options every stage of the design is lowered with.
AcceleratorOptions uniformAcceleratorOptions(const ir::DecodeProgram &program,
                                             const AcceleratorOptions &options);

/// Builds the joined graph. Throws st::Error naming the stage or tensor when the program is not
/// prologue / block / epilogue exchanging `x`, or the stages stream x in different lane counts.
AcceleratorGraph buildAcceleratorGraph(const ir::DecodeProgram &program,
                                       const AcceleratorOptions &options);

/// Stage `index` (0 prologue, 1 block, 2 epilogue) of `program` in `options`' design lowered at
/// `cacheLength` cached rows (clamped to 1 .. maxContext - 1), with the debug taps and forks the
/// joined graph has, FIFOs not sized: the graph buildAcceleratorGraph sizes, for any decode step.
LoweredStage lowerAcceleratorStage(const ir::DecodeProgram &program, int index,
                                   const AcceleratorOptions &options, int64_t cacheLength);

/// The stage graph node (op name, module, parameters) behind joined node `n`.
const ir::DataflowNode &stageNodeOf(const AcceleratorGraph &g, ir::NodeId n);

} // namespace st::llm
