// Synthetic timing graphs for the FIFO-sizing and timing-simulator tests: kernels described only
// by their model::KernelTiming (streaming pipelines, GEMV-like kernels that need a whole input
// vector, DMAs) and the shapes issue 3 names (chain, diamond with unequal arms, residual around a
// three-kernel path, fork/join, a GEMV beside a streaming sibling).
#pragma once

#include "model/elementwise_model.h"
#include "model/linear_model.h"
#include "model/norm_model.h"
#include "sim/dataflow_timing_sim.h"

#include <algorithm>
#include <string>

namespace st::passes::testing {

/// A read DMA: `tokens` tokens, the first after `delay` cycles, one every `ii`.
inline model::KernelTiming dmaRead(int64_t tokens, int64_t delay = 4, int64_t ii = 1) {
  model::KernelTiming t;
  t.firstOutputDelay = delay;
  t.ii = ii;
  t.outputTokens = tokens;
  t.totalLatency = delay + (tokens - 1) * ii;
  return t;
}

/// A streaming pipeline on `ports` inputs of `tokens` tokens each: output k needs input k of
/// every port, D = depth, II = ii.
inline model::KernelTiming pipeline(int64_t tokens, int64_t depth, int ports = 1, int64_t ii = 1) {
  model::KernelTiming t;
  t.firstOutputDelay = depth;
  t.ii = ii;
  t.outputTokens = tokens;
  t.totalLatency = depth + (tokens - 1) * ii;
  for (int p = 0; p < ports; ++p) {
    t.inputTokens.push_back(tokens);
    t.inputTokensNeeded.push_back([tokens](int64_t k) { return std::min(k + 1, tokens); });
  }
  return t;
}

/// A GEMV-like kernel (as st_linear): port 0 is x (all `xTokens` needed before output 0), port 1
/// the weight stream (`blockWords` words per output token, consumed one per cycle).
inline model::KernelTiming gemv(int64_t xTokens, int64_t outTokens, int64_t blockWords,
                                int64_t pipelineDepth = 6) {
  model::KernelTiming t;
  t.firstOutputDelay = xTokens + blockWords - 1 + pipelineDepth;
  t.ii = blockWords;
  t.outputTokens = outTokens;
  t.totalLatency = t.firstOutputDelay + (outTokens - 1) * blockWords;
  t.inputTokens = {xTokens, outTokens * blockWords};
  t.inputTokensNeeded = {[xTokens](int64_t) { return xTokens; },
                         [blockWords](int64_t k) { return (k + 1) * blockWords; }};
  return t;
}

/// A write DMA taking `tokens` tokens: an output token (the write) per input token.
inline model::KernelTiming dmaWrite(int64_t tokens) {
  return pipeline(tokens, 2);
}

/// Builds graphs by name.
class GraphBuilder {
public:
  size_t node(const std::string &name, model::KernelTiming timing) {
    graph_.nodes.push_back({name, std::move(timing)});
    return graph_.nodes.size() - 1;
  }
  void edge(size_t src, size_t dst, size_t port = 0, int64_t bits = 32) {
    const std::string name = graph_.nodes[src].name + "->" + graph_.nodes[dst].name;
    graph_.edges.push_back({name, src, dst, port, graph_.nodes[src].timing.outputTokens, bits});
  }
  const sim::TimingGraph &graph() const { return graph_; }

private:
  sim::TimingGraph graph_;
};

/// read -> k0 -> k1 -> k2 -> write, every stage a pipeline of `tokens` tokens.
inline sim::TimingGraph chainGraph(int64_t tokens) {
  GraphBuilder b;
  size_t prev = b.node("read", dmaRead(tokens));
  for (int i = 0; i < 3; ++i) {
    const size_t k = b.node("k" + std::to_string(i), pipeline(tokens, 3 + 2 * i));
    b.edge(prev, k);
    prev = k;
  }
  b.edge(prev, b.node("write", dmaWrite(tokens)));
  return b.graph();
}

/// read -> fork; fork -> a0 -> a1 -> a2 (long arm, deep pipelines); fork -> b0 (short arm);
/// join(a2, b0) -> write.
inline sim::TimingGraph diamondGraph(int64_t tokens) {
  GraphBuilder b;
  const size_t read = b.node("read", dmaRead(tokens));
  const size_t fork = b.node("fork", pipeline(tokens, 1));
  b.edge(read, fork);
  const size_t a0 = b.node("a0", pipeline(tokens, 20));
  const size_t a1 = b.node("a1", pipeline(tokens, 35));
  const size_t a2 = b.node("a2", pipeline(tokens, 12));
  const size_t b0 = b.node("b0", pipeline(tokens, 5));
  const size_t join = b.node("join", pipeline(tokens, 2, 2));
  b.edge(fork, a0, 0, 16);
  b.edge(a0, a1);
  b.edge(a1, a2);
  b.edge(fork, b0, 0, 16);
  b.edge(a2, join, 0);
  b.edge(b0, join, 1, 8);
  b.edge(join, b.node("write", dmaWrite(tokens)));
  return b.graph();
}

/// A residual around a three-kernel path whose middle kernel is a norm-like kernel (needs its
/// whole input before output 0): x -> fork -> norm-like -> gemv -> act -> add(., x) -> write.
/// Every stream carries `tokens` tokens; the GEMV's weights come from their own DMA.
inline sim::TimingGraph residualGraph(int64_t tokens, int64_t blockWords = 3) {
  GraphBuilder b;
  const size_t read = b.node("x_read", dmaRead(tokens));
  const size_t fork = b.node("fork", pipeline(tokens, 1));
  b.edge(read, fork);
  model::KernelTiming norm = pipeline(tokens, tokens + 4);
  norm.inputTokensNeeded = {[tokens](int64_t) { return tokens; }};
  const size_t n = b.node("norm", norm);
  const size_t w = b.node("w_read", dmaRead(tokens * blockWords, 8));
  const size_t mv = b.node("gemv", gemv(tokens, tokens, blockWords));
  const size_t act = b.node("act", pipeline(tokens, 7));
  const size_t add = b.node("add", pipeline(tokens, 3, 2));
  b.edge(fork, n, 0, 64);
  b.edge(n, mv, 0, 64);
  b.edge(w, mv, 1, 128);
  b.edge(mv, act, 0, 32);
  b.edge(act, add, 0, 32);
  b.edge(fork, add, 1, 64);
  b.edge(add, b.node("write", dmaWrite(tokens)));
  return b.graph();
}

/// Fork/join: one read feeding three arms of different depths that a 3-input kernel joins.
inline sim::TimingGraph forkJoinGraph(int64_t tokens) {
  GraphBuilder b;
  const size_t read = b.node("read", dmaRead(tokens));
  const size_t fork = b.node("fork", pipeline(tokens, 1));
  b.edge(read, fork);
  const size_t join = b.node("join3", pipeline(tokens, 4, 3));
  const int64_t depths[3] = {2, 9, 30};
  for (int i = 0; i < 3; ++i) {
    const size_t arm = b.node("arm" + std::to_string(i), pipeline(tokens, depths[i]));
    b.edge(fork, arm);
    b.edge(arm, join, size_t(i));
  }
  b.edge(join, b.node("write", dmaWrite(tokens)));
  return b.graph();
}

/// A GEMV that needs all of x before its first output while its sibling streams x through a
/// pipeline: x -> fork -> gemv(x, w) -> add; fork -> scale -> add -> write.
inline sim::TimingGraph gemvSiblingGraph(int64_t tokens, int64_t blockWords = 4) {
  GraphBuilder b;
  const size_t read = b.node("x_read", dmaRead(tokens));
  const size_t fork = b.node("fork", pipeline(tokens, 1));
  b.edge(read, fork);
  const size_t w = b.node("w_read", dmaRead(tokens * blockWords, 10));
  const size_t mv = b.node("gemv", gemv(tokens, tokens, blockWords));
  const size_t scale = b.node("scale", pipeline(tokens, 4));
  const size_t add = b.node("add", pipeline(tokens, 3, 2));
  b.edge(fork, mv, 0, 64);
  b.edge(w, mv, 1, 128);
  b.edge(fork, scale, 0, 64);
  b.edge(mv, add, 0, 32);
  b.edge(scale, add, 1, 32);
  b.edge(add, b.node("write", dmaWrite(tokens)));
  return b.graph();
}

/// A pre-norm residual block from the real template models: x -> fork -> st_norm (port 1: its
/// gamma/beta parameter stream from a DMA, read in pass 2) -> st_linear (int4 weights from their
/// DMA) -> st_residual_add(., x) -> write. 64 elements in 16 tokens of 4.
inline sim::TimingGraph modelResidualGraph() {
  model::NormParams normParams;
  normParams.n = 64;
  normParams.lanes = 4;
  model::LinearParams linearParams;
  linearParams.k = 64;
  linearParams.lanes = 4;
  linearParams.nOut = 64;
  linearParams.rows = 4;
  model::ResidualAddParams addParams;
  addParams.n = 64;
  addParams.lanes = 4;
  const model::KernelTiming linear = model::linearTiming(linearParams);
  GraphBuilder b;
  const size_t read = b.node("x_read", dmaRead(16));
  const size_t fork = b.node("fork", pipeline(16, 1));
  b.edge(read, fork, 0, 64);
  const size_t norm = b.node("st_norm", model::normTiming(normParams));
  const size_t w = b.node("w_read", dmaRead(linear.inputTokens[1], 12));
  const size_t mv = b.node("st_linear", linear);
  const size_t add = b.node("st_residual_add", model::residualAddTiming(addParams));
  const size_t params = b.node("param_read", dmaRead(16, 6));
  b.edge(fork, norm, 0, 64);
  b.edge(params, norm, 1, 64);
  b.edge(norm, mv, 0, 32);
  b.edge(w, mv, 1, linearParams.wordBits);
  b.edge(mv, add, 0, 32);
  b.edge(fork, add, 1, 64);
  b.edge(add, b.node("write", dmaWrite(16)), 0, 64);
  return b.graph();
}

} // namespace st::passes::testing
