// The abstract timing model of a dataflow graph (docs/fifo-sizing.md) and its token-level
// simulator.
//
// A TimingGraph is a DAG of nodes (kernels, DMAs, forks), each described only by its
// model::KernelTiming, joined by edges (FIFOs) that carry a known number of tokens. The
// simulator runs it cycle by cycle with FIFOs of given depths and reports the makespan, each
// FIFO's high-water mark, or a deadlock naming the blocked nodes and edges. The FIFO-sizing LP
// (fifo_sizing.h) reads the same model through deriveKernelCurves(), so the depths it computes
// and the simulation that checks them agree on every rule below.
//
// The kernel rules (one clock, snapshot semantics: every decision of cycle t reads the state at
// the start of t; a token pushed in t can be popped from t + 1; a slot freed in t can be filled
// from t + 1, so a FIFO needs depth 2 for one token per cycle):
//  - a node pops at most one token per input port per cycle, in order, and only tokens that the
//    outputs in its window need: outputs emitted .. emitted + window - 1 (model C below);
//  - across ports it takes inputs in its input order: token j of port p ranks at the latest
//    cycle it is needed if outputs came at D + k II (output k(j)'s cycle - lambda, one token per
//    cycle); it is popped only after every other port has taken its tokens of lower rank. A norm
//    thus reads its second pass only after its first; a join reads its inputs in step;
//  - it emits output k (one token on every output edge at once: a fork) when every port p has
//    consumed inputTokensNeeded[p](k) tokens, the last of them at least `lambda` cycles ago;
//    at least II after output k - 1; at least D after its first input handshake (a source: after
//    cycle 0); and every output edge has a free slot;
//  - lambda = D - (cycle at which, with ideal inputs, the tokens output 0 needs are all in) and
//    window = the smallest number of outputs in flight with which the node alone, fed ideally,
//    meets its own D and L. Both are derived per node; a KernelTiming no rule can reproduce is
//    an st::Error naming the node.
// A node with outputTokens == 0 (a sink that only writes) pops freely and is done at its last pop.
// The makespan is the number of cycles from cycle 0 (sources start) to the last node's last
// event inclusive.
//
// The simulator is event driven with the semantics of a cycle-by-cycle loop: in each cycle it
// looks only at the nodes whose state or neighbourhood changed in the cycle before (they acted,
// a producer pushed to them, a consumer popped from them) and at nodes whose time-based wait
// (pipeline, II or rate gap, D) ends in that cycle; when no node can act it jumps to the next
// such end. A full-size GEMV streaming 10^6 words thus costs a few node visits per cycle, and
// the long waits of vector-wide kernels cost nothing.
#pragma once

#include "model/kernel_timing.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace st::sim {

/// A node that runs invocations one after another on one datapath (the shared GEMV engine,
/// docs/gemv-engine.md; model/gemv_engine_model.h has the rules this reproduces). Per
/// invocation it takes a header token from its word port, then the invocation's x tokens from
/// its x port (one a cycle; none when it reuses the last x; an x the invocation before announced,
/// Invocation::preloadsNext, from the cycle after that one's own x was whole, beside its words),
/// then its words (one a cycle). The last word of block b is taken no earlier than `handoff`
/// after the previous block's last word (a block's outputs leave the output buffer one a cycle).
/// Block b's outputs go to the invocation's output port from `outputDelay` cycles after its last
/// word, one a cycle. Unlike a kernel node its outputs go to different ports (edges carry their
/// port's outputs only) and it may sit on cycles of the graph (the engine's y feeds kernels whose
/// outputs are its next x).
struct SequencedEngine {
  struct Invocation {
    size_t xPort = 0;    ///< input port of its x
    int64_t xTokens = 0; ///< 0: it reuses the x of the invocation before
    /// Per block: the words after the header up to and including the block's last word.
    std::vector<int64_t> blockWords;
    std::vector<int64_t> blockTokens; ///< per block: its outputs
    size_t outputPort = 0;
    /// Its header announces the next invocation's x, which the engine then loads (into its
    /// other x buffer) from the cycle after this invocation's own x is complete, one token a
    /// cycle beside the words; the next header then waits only for what is still missing.
    bool preloadsNext = false;
  };
  size_t wordPort = 0;      ///< input port of the header and words
  size_t outputPorts = 1;   ///< output ports (each invocation names one)
  int64_t outputDelay = 11; ///< last word of a block -> its first output
  std::vector<Invocation> invocations;
  /// Tokens each output port carries over the run.
  std::vector<int64_t> portOutputs() const;
};

struct TimingNode {
  std::string name;
  /// A kernel's timing; for a sequenced engine only inputTokens (per port) and outputTokens
  /// (all ports) are read.
  model::KernelTiming timing;
  std::shared_ptr<const SequencedEngine> engine; ///< set: this node is a sequenced engine
  /// A memory source whose every output draws one word of bandwidth from each of these
  /// pseudo-channels (TimingGraph::bandwidth); empty: none.
  std::vector<int> channels;
  /// Runs of blockOutputs outputs on other channels: output k draws on
  /// blockChannels[(k / blockOutputs) mod blockChannels.size()] instead (MemoryRead's). Empty:
  /// every output on `channels`.
  std::vector<std::vector<int>> blockChannels;
  int64_t blockOutputs = 0;
  /// Queues on its channels ahead of every node without channelFirst (ChannelBandwidth).
  bool channelFirst = false;
  /// Its first outputs, fetched before the simulation's start, draw none.
  int64_t prefetchedOutputs = 0;
  /// A memory source that a full output edge (its DMA's buffer) stopped resumes only once
  /// `restartRoom` slots are free again, `restartDelay` cycles later (the DMA's next burst:
  /// its AR and the read latency); 0: at once.
  int64_t restartRoom = 0;
  int64_t restartDelay = 0;
  /// A zero-latency pass-through (the RTL's fork or view: combinational wiring between the FIFO
  /// before it and the FIFOs after it): one input port, as many outputs as inputs; in every
  /// cycle in which its input edge holds a token and each output edge has room (both at the
  /// start of the cycle) it takes the token and pushes it on every output edge, in that cycle.
  /// Its timing's D and L are not read. false: a node under the kernel rules (a fork's nominal
  /// D = 1, as the FIFO-sizing LP sees it).
  bool wire = false;
};

/// Pseudo-channel bandwidth shared by the memory sources that read a channel, as the testbench
/// memory serves it (tb/axi_memory.h): each channel is a token bucket refilled with
/// wordsPerCycle words a cycle up to capacityWords; a source's word goes only when every
/// channel it draws from holds a whole word, and takes it. A source alone keeps its own rate
/// (model/memory_read_model.h's cadence is below the refill); two on one channel share it in
/// turn, unless one goes first (TimingNode::channelFirst).
struct ChannelBandwidth {
  double wordsPerCycle = 0; ///< 0: channels are not modelled
  double capacityWords = 2;
};

struct TimingEdge {
  std::string name;
  size_t src = 0;     ///< index into TimingGraph::nodes
  size_t dst = 0;     ///< index into TimingGraph::nodes
  size_t dstPort = 0; ///< input port of dst (index into its KernelTiming::inputTokens)
  int64_t tokens = 0; ///< tokens carried in one run: src's outputTokens, dst's inputTokens[port]
  int64_t tokenBits = 0;
  /// Output port of src: only a sequenced engine has several (tokens is then that port's).
  size_t srcPort = 0;
};

struct TimingGraph {
  std::vector<TimingNode> nodes;
  std::vector<TimingEdge> edges;
  ChannelBandwidth bandwidth; ///< for the nodes with channels
};

/// Checks indices, token counts against both ends' timing, that every input port has exactly one
/// edge, and that the graph is acyclic (unless `allowCycles`: the graph of a design with a
/// sequenced engine). Returns a topological order of the nodes (with cycles: an order in which
/// each node comes after the producers it does not reach back to).
std::vector<size_t> checkTimingGraph(const TimingGraph &graph, bool allowCycles = false);

/// The node's behaviour alone with ideal inputs (every port always offers a token) and an output
/// that never blocks, under the rules above; cycle 0 = its first input handshake.
struct KernelCurves {
  int64_t lambda = 0; ///< cycles from the last needed input of an output to the output
  int64_t window = 1; ///< outputs whose inputs the node may take before the oldest is emitted
  std::vector<int64_t> emitCycle;                 ///< per output token
  std::vector<std::vector<int64_t>> consumeCycle; ///< per input port, per token
  int64_t doneCycle = 0;                          ///< last event
  /// Per input port, per token: its rank in the kernel's input order (the latest cycle it is
  /// needed when the outputs come at D + k II). A token is popped only after every other port
  /// has taken its tokens of lower rank.
  std::vector<std::vector<int64_t>> inputOrder;
  /// Per input port, per output token k: the tokens of the port output k needs
  /// (KernelTiming::inputTokensNeeded, clamped to the port's tokens), tabled once.
  std::vector<std::vector<int64_t>> needed;
};

/// Derives lambda and window from the timing and returns the ideal curves. Throws st::Error
/// naming `nodeName` when D, L and the token needs are inconsistent.
KernelCurves deriveKernelCurves(const std::string &nodeName, const model::KernelTiming &timing);

struct TimingSimResult {
  bool deadlock = false;
  int64_t makespan = 0;           ///< valid when !deadlock
  std::vector<int64_t> highWater; ///< per edge: most tokens held at once
  std::string blockedNode;        ///< on deadlock: a node that waits for space
  std::string blockedEdge;        ///< on deadlock: the full edge it waits on
  std::string deadlockReport;     ///< on deadlock: every unfinished node and what it waits on
  int64_t nodeVisits = 0;         ///< how many node evaluations the event-driven run made (cost)
  /// Per node, when !deadlock: the cycle of each output token, of each input token per port, of
  /// its first input (sources: 0) and of its last event. The FIFO-sizing LP shifts these curves.
  std::vector<std::vector<int64_t>> emitCycle;
  std::vector<std::vector<std::vector<int64_t>>> consumeCycle;
  std::vector<int64_t> startCycle;
  std::vector<int64_t> doneCycle;
};

/// Derived curves, shared: the same kernel timing in several graphs (the FIFO sizing's and the
/// prediction's, every cache length of a step table, identical linears) is derived once.
using SharedCurves = std::shared_ptr<const KernelCurves>;

/// deriveKernelCurves, memoized over the process by the timing's scalars and token needs (the
/// name only names errors): a full-size GEMV's derivation runs over a million cycles.
SharedCurves sharedKernelCurves(const std::string &nodeName, const model::KernelTiming &timing);

/// Simulates the graph with FIFO depths `depths` (per edge, each >= 1). `curves` are the nodes'
/// derived curves (in node order; a sequenced engine's are not read); the overload derives them.
/// A graph with a sequenced engine may have cycles through it.
TimingSimResult simulateDataflowTiming(const TimingGraph &graph,
                                       const std::vector<SharedCurves> &curves,
                                       const std::vector<int64_t> &depths);
TimingSimResult simulateDataflowTiming(const TimingGraph &graph,
                                       const std::vector<int64_t> &depths);

/// Every node's curves (in node order), through sharedKernelCurves.
std::vector<SharedCurves> deriveAllCurves(const TimingGraph &graph);

/// KernelTiming::inputTokensNeeded for every port and output, clamped to the port's tokens (the
/// table KernelCurves::needed holds). Two timings with equal scalars and equal tables have
/// equal curves.
std::vector<std::vector<int64_t>> neededTokenTable(const model::KernelTiming &timing);

} // namespace st::sim
