// GEMV engine join: the engine-call nodes of the lowered stages (stage_lowering's gemvEngine
// mode) become one shared st_gemv_engine (docs/gemv-engine.md) in the joined accelerator graph.
// Every call's x stream goes to an engine x port (consecutive calls reading the same vector share
// one port and the later ones reuse the loaded x, so q/k/v and gate/up load x once), every call's
// y stream leaves an engine y port of its own, and one read DMA per pseudo-channel streams the
// channel's slice of every call of every layer, back to back, into the engine's weight ports
// through a deep prefetch FIFO. The engine runs the calls in program order: the block's calls
// for each layer, then the epilogue's (the LM head).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/dataflow_graph.h"
#include "ir/decode_program.h"
#include "numerics/gemv_stream.h"

namespace st::llm {

struct AcceleratorGraph;
struct AcceleratorOptions;

/// One linear as the engine runs it.
struct EngineCall {
  int stage = 1;            ///< 1 block (run once per layer), 2 epilogue
  ir::NodeId stageNode = 0; ///< the call node in that stage's lowered graph
  std::string op;           ///< the linear op's name
  int64_t k = 0, nOut = 0;  ///< the layer is nOut x k
  int64_t nDeliver = 0;     ///< rows on y (nOut padded to the lanes)
  int64_t groupSize = 0;    ///< 0: per output channel
  int64_t outputBits = 8;   ///< the call's output code width
  unsigned xPort = 0;       ///< engine x port it loads x from
  bool reuseX = false;      ///< takes the x the call before it loaded
  unsigned yPort = 0;       ///< engine y port its rows leave on
  int64_t channelWords = 0; ///< words of one invocation in each channel's stream
};

/// The engine of a joined graph (AcceleratorGraph::engine).
struct EngineUse {
  ir::NodeId node = 0;                 ///< the st_gemv_engine node
  numerics::GemvEngineShape shape;     ///< its template parameters
  std::vector<EngineCall> calls;       ///< block calls then epilogue calls, in program order
  std::vector<ir::NodeId> channelDmas; ///< the weight read DMA of pseudo-channel c
  int64_t layers = 1;
  /// Words each channel streams per decode step: layers x block calls + epilogue calls.
  int64_t channelWordsPerStep() const;
  /// The x that calls[index] announces in layer `layer` of a step (the engine loads it while
  /// the call streams, docs/gemv-engine.md): the next call's in step order (the block's calls
  /// per layer, then the epilogue's) when that call loads x rather than reusing it; none after
  /// the step's last call (the next step's first call loads its x after its own D).
  std::optional<numerics::GemvNextX> nextXOf(size_t index, int64_t layer) const;
};

/// The engine's shape for the linears of `program`'s block and epilogue (docs/gemv-engine.md):
/// KLanes the largest power of two up to 512 / WBits dividing every K and compatible with every
/// group size; SegLanes the smallest group size (at most KLanes); MaxK and OutBits the largest
/// (numX, numY are the join's); `packedPairs` channel pairs share their multiplies. Throws
/// st::Error naming a linear whose K no KLanes of at least the lanes divides, and the shape's
/// error for packed pairs it cannot take.
numerics::GemvEngineShape gemvEngineShapeOf(const ir::DecodeProgram &program,
                                            numerics::Precision precision, int64_t lanes,
                                            int64_t channels, int64_t packedPairs = 0);

/// Depth of each channel's prefetch FIFO: options.engineFifoWords, at most a step's words of the
/// channel (a tiny model's whole step), at least 2.
int64_t engineFifoDepth(const EngineUse &engine, const AcceleratorOptions &options);

/// Replaces the call nodes of `g` (joined ids in `joinedOf`: (stage, stage node) -> node) with
/// one engine, its channel DMAs and prefetch FIFOs (depth engineFifoDepth). Sets
/// g.engine. Throws st::Error when no call exists or a call's stream is not as lowered.
void joinGemvEngine(AcceleratorGraph &g,
                    const std::map<std::pair<int, ir::NodeId>, ir::NodeId> &joinedOf,
                    const AcceleratorOptions &options);

} // namespace st::llm
