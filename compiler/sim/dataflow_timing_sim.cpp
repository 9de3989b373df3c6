// The abstract timing model and its cycle-by-cycle simulator (see dataflow_timing_sim.h).
#include "sim/dataflow_timing_sim.h"

#include "support/error.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <tuple>

namespace st::sim {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

std::string nodeWhere(const std::string &name) {
  return "node '" + name + "'";
}

/// The tokens of port p that output k needs, clamped to what the port carries.
int64_t needed(const model::KernelTiming &t, size_t p, int64_t k) {
  return std::clamp<int64_t>(t.inputTokensNeeded[p](k), 0, t.inputTokens[p]);
}

/// needed() for every port and output, evaluated once (the std::function is too slow to call
/// in every cycle of a million-cycle run).
std::vector<std::vector<int64_t>> neededTable(const model::KernelTiming &t) {
  std::vector<std::vector<int64_t>> table(t.inputTokens.size());
  for (size_t p = 0; p < table.size(); ++p) {
    table[p].resize(size_t(std::max<int64_t>(0, t.outputTokens)));
    for (int64_t k = 0; k < t.outputTokens; ++k)
      table[p][size_t(k)] = needed(t, p, k);
  }
  return table;
}

/// The input order of a kernel: the cycle at which each input token is needed at the latest
/// when the outputs come at D + k II (token j of port p by output k(j)'s cycle - lambda, at
/// one token per cycle per port). Tokens no output needs come after the last needed one.
std::vector<std::vector<int64_t>> inputOrder(const model::KernelTiming &t,
                                             const std::vector<std::vector<int64_t>> &need,
                                             int64_t lambda) {
  std::vector<std::vector<int64_t>> order(t.inputTokens.size());
  for (size_t p = 0; p < order.size(); ++p) {
    std::vector<int64_t> &rank = order[p];
    rank.assign(size_t(t.inputTokens[p]), 0);
    const int64_t neededByAll = t.outputTokens > 0 ? need[p][size_t(t.outputTokens - 1)] : 0;
    int64_t k = t.outputTokens - 1;
    int64_t next = kNever;
    for (int64_t j = neededByAll - 1; j >= 0; --j) {
      while (k > 0 && need[p][size_t(k - 1)] > j)
        --k;
      rank[size_t(j)] =
          std::min(next == kNever ? next : next - 1, t.firstOutputDelay + t.spanTo(k) - lambda);
      next = rank[size_t(j)];
    }
    const int64_t after = neededByAll > 0 ? rank[size_t(neededByAll - 1)] : 0;
    for (int64_t j = neededByAll; j < t.inputTokens[p]; ++j)
      rank[size_t(j)] = after + (j - neededByAll) + (neededByAll > 0 ? 1 : 0);
  }
  return order;
}

/// The pseudo-channels' token buckets (ChannelBandwidth), served as the testbench memory serves
/// its ports (tb/axi_memory.cpp): a node that wants a word of a channel queues on it, and the
/// channel gives its word to the queue's first node once it holds a whole word. A node with
/// several channels takes a word of each at once, when it is first in every queue.
class ChannelBuckets {
public:
  ChannelBuckets(const ChannelBandwidth &b, size_t channels)
      : rate_(b.wordsPerCycle), capacity_(b.capacityWords), level_(channels, b.capacityWords),
        at_(channels, 0), queue_(channels) {}
  /// Node v wants a word of each of `chans` from cycle `from` on: it queues where it is not yet,
  /// behind the nodes that go first and, unless it goes `first` too, behind every node.
  void want(size_t v, const std::vector<int> &chans, bool first) {
    if (first)
      first_.insert(v);
    for (int c : chans) {
      std::deque<size_t> &q = queue_[size_t(c)];
      if (std::find(q.begin(), q.end(), v) != q.end())
        continue;
      if (!first) {
        q.push_back(v);
        continue;
      }
      auto at = q.begin();
      while (at != q.end() && first_.count(*at))
        ++at;
      q.insert(at, v);
    }
  }
  /// The first cycle >= `from` at which v may take its words if nothing else changes: `from`
  /// + 1 while another node is before it in a queue (it looks again then), else when every
  /// channel holds a word.
  int64_t readyAt(size_t v, const std::vector<int> &chans, int64_t from) const {
    int64_t at = from;
    for (int c : chans) {
      const std::deque<size_t> &q = queue_[size_t(c)];
      if (!q.empty() && q.front() != v)
        return from + 1;
      const double missing = 1.0 - levelAt(size_t(c), from);
      if (missing > kEpsilon)
        at = std::max(at, from + static_cast<int64_t>(std::ceil(missing / rate_ - kEpsilon)));
    }
    return at;
  }
  /// v takes a word of each of its channels in cycle `now` (readyAt(v, chans, now) == now).
  void draw(size_t v, const std::vector<int> &chans, int64_t now) {
    for (int c : chans) {
      level_[size_t(c)] = levelAt(size_t(c), now) - 1.0;
      at_[size_t(c)] = now;
      std::deque<size_t> &q = queue_[size_t(c)];
      if (!q.empty() && q.front() == v)
        q.pop_front();
    }
  }

private:
  static constexpr double kEpsilon = 1e-9;
  double levelAt(size_t c, int64_t now) const {
    return std::min(capacity_, level_[c] + rate_ * static_cast<double>(now - at_[c]));
  }
  double rate_, capacity_;
  std::vector<double> level_;
  std::vector<int64_t> at_;
  std::vector<std::deque<size_t>> queue_;
  std::set<size_t> first_; ///< the nodes that go first
};

/// What the simulator asks of a node's run state, cycle by cycle: a kernel's (NodeRun) or a
/// sequenced engine's (EngineRun).
class RunState {
public:
  virtual ~RunState() = default;
  virtual size_t ports() const = 0;
  /// May port p pop a token offered in cycle `now`?
  virtual bool wantsPopAt(size_t p, int64_t now) = 0;
  /// The first cycle the next output may go, space aside (kNever: not before an input).
  virtual int64_t emitReadyAt() const = 0;
  /// Another time-based wait that ends a pop's hold (kNever: none).
  virtual int64_t wakeAt() const { return kNever; }
  /// The output port of the next output.
  virtual size_t outputPort() const { return 0; }
  virtual std::string emitBlocker(int64_t now) const = 0;
  virtual void pop(size_t p, int64_t now) = 0;
  virtual void emit(int64_t now) = 0;
  virtual bool done() const = 0;
  virtual int64_t consumed(size_t p) const = 0;
  virtual int64_t lastEvent() const = 0;
  virtual int64_t firstInput() const = 0;
  virtual std::vector<int64_t> takeEmitCycles() = 0;
  virtual std::vector<std::vector<int64_t>> takeConsumeCycles() = 0;
  /// The kernel run behind this state, if it is one (the streaming shortcut reads it).
  virtual class NodeRun *generic() { return nullptr; }
};

/// One node's run state under the rules of the header. Inputs and outputs are abstract: the
/// caller says, per cycle, which ports offer a token and whether every output has a free slot.
class NodeRun final : public RunState {
public:
  NodeRun(const model::KernelTiming &timing, int64_t lambda, int64_t window,
          const std::vector<std::vector<int64_t>> &order,
          const std::vector<std::vector<int64_t>> &need)
      : t_(timing), lambda_(lambda), window_(window), order_(order), need_(need),
        consumed_(timing.inputTokens.size(), 0), consumeCycle_(timing.inputTokens.size()),
        rankedBefore_(timing.inputTokens.size() * timing.inputTokens.size(), 0) {
    for (size_t p = 0; p < consumeCycle_.size(); ++p)
      consumeCycle_[p].reserve(size_t(timing.inputTokens[p]));
    emitCycle_.reserve(size_t(std::max<int64_t>(0, timing.outputTokens)));
  }

  size_t ports() const override { return consumed_.size(); }
  bool isSource() const { return consumed_.empty(); }
  /// wantsPop, and for a kernel that declares its own schedule (KernelTiming::inputRanks) the
  /// ranks are cycles: a token goes no earlier than `rank difference` cycles after the token just
  /// before it in rank order among those it depends on (attention's value pass waits for the
  /// softmax after its score pass, not only for the score pass's tokens).
  bool wantsPopAt(size_t p, int64_t now) override {
    if (!wantsPop(p))
      return false;
    if (!timedRanks_)
      return true;
    // The gap is kept to the token just before it in rank order among its port's previous token
    // and the last token of an earlier phase of every other port: the others were only waited
    // for in the kernel's own schedule because that one was. A token of the same phase on
    // another port runs beside it (a block-major attention's value pass beside the next block's
    // score pass) and holds it to nothing. (order_ holds the phases here; the ranks are the
    // timing's.)
    const std::vector<std::vector<int64_t>> &ranks = t_.inputRanks;
    const size_t index = size_t(consumed_[p]);
    const int64_t rank = ranks[p][index], phase = order_[p][index];
    int64_t before = -1, earliest = 0;
    for (size_t q = 0; q < ports(); ++q) {
      if (!t_.waitsFor(p, q))
        continue;
      // The reference token of port q: its previous token, or its last one of an earlier phase
      // (all of them taken: wantsPop saw to it). A buffered port's tokens all count from the
      // phase that needs them, at the rank that needs them.
      const bool buffered = q != p && bufferedPhase(q) > 0;
      const int64_t ref = q == p     ? consumed_[q] - 1
                          : buffered ? (bufferedPhase(q) <= phase ? t_.inputTokens[q] - 1 : -1)
                                     : std::lower_bound(order_[q].begin(), order_[q].end(), phase) -
                                           order_[q].begin() - 1;
      if (ref < 0 || ref >= consumed_[q])
        continue;
      const int64_t last = buffered ? t_.inputBuffered[q].rank : ranks[q][size_t(ref)];
      if (last > rank || last < before)
        continue;
      const int64_t at = consumeCycle_[q][size_t(ref)] + (rank - last);
      earliest = last > before ? at : std::max(earliest, at);
      before = last;
    }
    if (earliest <= now)
      return true;
    wake_ = std::min(wake_, earliest);
    return false;
  }
  int64_t wakeAt() const override { return wake_; }
  NodeRun *generic() override { return this; }

  /// May port p pop a token if one is offered? (Depends on the node's own state only.)
  bool wantsPop(size_t p) {
    if (consumed_[p] >= t_.inputTokens[p])
      return false;
    const int64_t lastInWindow = emitted() + window_ - 1;
    const int64_t limit = (t_.outputTokens == 0 || lastInWindow >= t_.outputTokens)
                              ? t_.inputTokens[p]
                              : need_[p][size_t(lastInWindow)];
    if (consumed_[p] >= limit)
      return false;
    // Input order: every port has taken the tokens the kernel needs before this one. The rank
    // of port p's next token only grows, so the count of port q's tokens ranked below it is
    // kept per (p, q) and advanced, not searched for again.
    const int64_t rank = order_[p][size_t(consumed_[p])];
    for (size_t q = 0; q < ports(); ++q) {
      if (q == p || !t_.waitsFor(p, q))
        continue;
      if (bufferedPhase(q) > 0) { // all of it from its phase on, none of it before
        if (bufferedPhase(q) <= rank && consumed_[q] < t_.inputTokens[q])
          return false;
        continue;
      }
      int64_t &before = rankedBefore_[p * ports() + q];
      const std::vector<int64_t> &ranks = order_[q];
      while (before < int64_t(ranks.size()) && ranks[size_t(before)] < rank)
        ++before;
      if (consumed_[q] < before)
        return false;
    }
    return true;
  }

  /// The first cycle from which the next output may go, space aside, if nothing else changes:
  /// the latest of its time-based waits (pipeline lambda after its last needed input, II or rate
  /// gap after the previous output, D after the first input). kNever when it must first get
  /// tokens (or has emitted everything): only an input can change that.
  int64_t emitReadyAt() const override {
    const int64_t k = emitted();
    if (k >= t_.outputTokens)
      return kNever;
    int64_t at = 0;
    for (size_t p = 0; p < ports(); ++p) {
      const int64_t n = need_[p][size_t(k)];
      if (n == 0)
        continue;
      if (consumed_[p] < n)
        return kNever;
      at = std::max(at, consumeCycle_[p][size_t(n - 1)] + lambda_);
    }
    if (k > 0)
      at = std::max(at, emitCycle_.back() + t_.gapBefore(k));
    if (!t_.notBefore.empty())
      at = std::max(at, t_.notBefore[size_t(k)]);
    if (isSource())
      return std::max(at, t_.firstOutputDelay);
    if (firstInput_ < 0)
      return kNever;
    return std::max(at, firstInput_ + t_.firstOutputDelay);
  }

  /// Why the next output cannot go in cycle `now` (space aside), or "" if it can. For a port that
  /// lacks tokens the text is "port <p>"; other reasons are plain words. (Deadlock reports.)
  std::string emitBlocker(int64_t now) const override {
    const int64_t k = emitted();
    if (k >= t_.outputTokens)
      return "all outputs emitted";
    for (size_t p = 0; p < ports(); ++p) {
      const int64_t n = need_[p][size_t(k)];
      if (n == 0)
        continue;
      if (consumed_[p] < n)
        return "port " + std::to_string(p);
      if (consumeCycle_[p][size_t(n - 1)] + lambda_ > now)
        return "pipeline";
    }
    if (k > 0 && now < emitCycle_.back() + t_.gapBefore(k))
      return "II";
    if (!t_.notBefore.empty() && now < t_.notBefore[size_t(k)])
      return "schedule";
    if (isSource())
      return now >= t_.firstOutputDelay ? "" : "D";
    if (firstInput_ < 0)
      return "no input yet";
    return now >= firstInput_ + t_.firstOutputDelay ? "" : "D";
  }

  /// Ideal inputs, every port but p fully consumed, p popping in cycle `now` and no output due
  /// then: the cycles from `now` in which p keeps popping one token a cycle and no output can go
  /// (its window's end, or the next output's earliest cycle): the ideal run's steady state.
  int64_t aloneStretch(size_t p, int64_t now) const {
    const int64_t k = emitted();
    const int64_t lastInWindow = k + window_ - 1;
    const int64_t limit = (t_.outputTokens == 0 || lastInWindow >= t_.outputTokens)
                              ? t_.inputTokens[p]
                              : need_[p][size_t(lastInWindow)];
    int64_t stretch = limit - consumed_[p];
    if (k < t_.outputTokens) {
      int64_t at = (firstInput_ < 0 ? now : firstInput_) + t_.firstOutputDelay;
      if (k > 0)
        at = std::max(at, emitCycle_.back() + t_.gapBefore(k));
      if (!t_.notBefore.empty())
        at = std::max(at, t_.notBefore[size_t(k)]);
      for (size_t q = 0; q < ports(); ++q) {
        const int64_t n = need_[q][size_t(k)];
        if (n == 0)
          continue;
        const int64_t in = q == p && consumed_[p] < n ? now + (n - 1 - consumed_[p])
                                                      : consumeCycle_[q][size_t(n - 1)];
        at = std::max(at, in + lambda_);
      }
      stretch = std::min(stretch, at - now);
    }
    return stretch;
  }

  /// Pops `count` tokens of port p in cycles now .. now + count - 1.
  void popRun(size_t p, int64_t now, int64_t count) {
    wake_ = kNever;
    for (int64_t i = 0; i < count; ++i)
      consumeCycle_[p].push_back(now + i);
    consumed_[p] += count;
    if (firstInput_ < 0)
      firstInput_ = now;
    lastEvent_ = std::max(lastEvent_, now + count - 1);
  }

  void pop(size_t p, int64_t now) override {
    wake_ = kNever;
    consumeCycle_[p].push_back(now);
    ++consumed_[p];
    if (firstInput_ < 0)
      firstInput_ = now;
    lastEvent_ = std::max(lastEvent_, now);
  }
  /// Emits `count` outputs in cycles now .. now + count - 1.
  void emitRun(int64_t now, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      emitCycle_.push_back(now + i);
    lastEvent_ = std::max(lastEvent_, now + count - 1);
  }
  /// A source that may emit one output every cycle (II 1, no cadence or schedule).
  bool streamsEveryCycle() const {
    return isSource() && t_.ii == 1 && t_.rateTokens == 0 && t_.notBefore.empty();
  }
  int64_t outputsLeft() const { return t_.outputTokens - emitted(); }
  bool othersConsumed(size_t p) const {
    for (size_t q = 0; q < ports(); ++q)
      if (q != p && consumed_[q] < t_.inputTokens[q])
        return false;
    return true;
  }

  void emit(int64_t now) override {
    emitCycle_.push_back(now);
    lastEvent_ = std::max(lastEvent_, now);
  }

  bool done() const override {
    if (emitted() < std::max<int64_t>(0, t_.outputTokens))
      return false;
    for (size_t p = 0; p < ports(); ++p)
      if (consumed_[p] < t_.inputTokens[p])
        return false;
    return true;
  }

  int64_t emitted() const { return int64_t(emitCycle_.size()); }
  /// The phase from which port q's tokens are needed, if the kernel buffers them ahead of their
  /// use (KernelTiming::inputBuffered), else 0.
  int64_t bufferedPhase(size_t q) const {
    return q < t_.inputBuffered.size() ? t_.inputBuffered[q].phase : 0;
  }
  int64_t consumed(size_t p) const override { return consumed_[p]; }
  int64_t lastEvent() const override { return lastEvent_; }
  int64_t firstInput() const override { return firstInput_; }
  const std::vector<int64_t> &emitCycles() const { return emitCycle_; }
  const std::vector<std::vector<int64_t>> &consumeCycles() const { return consumeCycle_; }
  /// The recorded cycles, moved out (the run is over).
  std::vector<int64_t> takeEmitCycles() override { return std::move(emitCycle_); }
  std::vector<std::vector<int64_t>> takeConsumeCycles() override {
    return std::move(consumeCycle_);
  }

private:
  const model::KernelTiming &t_;
  bool timedRanks_ = !t_.inputRanks.empty();
  int64_t wake_ = kNever; ///< the earliest cycle a rank-timed pop was held to, if any
  int64_t lambda_;
  int64_t window_;
  const std::vector<std::vector<int64_t>> &order_;
  const std::vector<std::vector<int64_t>> &need_;
  std::vector<int64_t> consumed_;
  std::vector<std::vector<int64_t>> consumeCycle_;
  std::vector<int64_t> rankedBefore_; ///< per (p, q): port q's tokens ranked below p's next
  std::vector<int64_t> emitCycle_;
  int64_t firstInput_ = -1;
  int64_t lastEvent_ = -1;
};

/// A sequenced engine's run state (SequencedEngine in the header). Its x loader fills the x
/// buffer the next invocation reads: for an invocation that loads x, from its header on unless
/// the invocation before announced it (SequencedEngine::Invocation::preloadsNext), in which case
/// from the cycle after that invocation's own x was complete.
class EngineRun final : public RunState {
public:
  EngineRun(const SequencedEngine &e, size_t ports)
      : e_(e), consumed_(ports, 0), consumeCycle_(ports) {}

  size_t ports() const override { return consumed_.size(); }

  bool wantsPopAt(size_t p, int64_t now) override {
    if (p == loaderPort())
      return true;
    if (inv_ >= e_.invocations.size() || p != e_.wordPort)
      return false;
    switch (phase_) {
    case Phase::Header:
      return true;
    case Phase::X:
      return false; // the loader's
    case Phase::Words:
      return now >= holdUntil();
    }
    return false;
  }

  /// The port the header and words come from while the front wants one (SIZE_MAX: none).
  size_t wantedPort() const {
    if (inv_ >= e_.invocations.size() || phase_ == Phase::X)
      return SIZE_MAX;
    return e_.wordPort;
  }

  /// The x port the loader takes a token from (SIZE_MAX: it has nothing to load).
  size_t loaderPort() const {
    if (loaderInv_ == SIZE_MAX)
      return SIZE_MAX;
    const SequencedEngine::Invocation &inv = e_.invocations[loaderInv_];
    return loaded_ < inv.xTokens ? inv.xPort : SIZE_MAX;
  }

  int64_t emitReadyAt() const override {
    if (pending_.empty())
      return kNever;
    return emitted_ > 0 ? std::max(pending_.front().first, lastEmit_ + 1) : pending_.front().first;
  }

  int64_t wakeAt() const override {
    const int64_t hold = phase_ == Phase::Words ? holdUntil() : kNever;
    return hold > 0 ? hold : kNever;
  }

  size_t outputPort() const override { return pending_.empty() ? 0 : pending_.front().second; }

  std::string emitBlocker(int64_t now) const override {
    if (!pending_.empty())
      return emitReadyAt() <= now ? "" : "pipeline";
    if (inv_ >= e_.invocations.size())
      return "all outputs emitted";
    switch (phase_) {
    case Phase::Header:
    case Phase::Words:
      return now >= holdUntil() ? "port " + std::to_string(e_.wordPort) : "output buffer";
    case Phase::X:
      return "port " + std::to_string(e_.invocations[inv_].xPort);
    }
    return "";
  }

  /// The loader's pop comes before the front's in a cycle with both (the RTL's header sees a
  /// load its last token completes in the same cycle).
  void pop(size_t p, int64_t now) override {
    consumeCycle_[p].push_back(now);
    ++consumed_[p];
    if (firstInput_ < 0)
      firstInput_ = now;
    lastEvent_ = std::max(lastEvent_, now);
    if (p != e_.wordPort) {
      ++loaded_;
      if (phase_ == Phase::X && loaderInv_ == inv_ && loaded_ == e_.invocations[inv_].xTokens)
        startWords();
      return;
    }
    const SequencedEngine::Invocation &inv = e_.invocations[inv_];
    switch (phase_) {
    case Phase::Header:
      words_ = 0;
      block_ = 0;
      if (inv.xTokens == 0) {
        startWords();
      } else if (loaderInv_ == inv_ && loaded_ == inv.xTokens) {
        startWords();
      } else {
        if (loaderInv_ != inv_) { // not announced: the load starts now
          loaderInv_ = inv_;
          loaded_ = 0;
        }
        phase_ = Phase::X;
      }
      return;
    case Phase::X:
      return;
    case Phase::Words:
      ++words_;
      if (words_ == inv.blockWords[block_]) {
        const int64_t tokens = inv.blockTokens[block_];
        for (int64_t t = 0; t < tokens; ++t)
          pending_.push_back({now + e_.outputDelay + t, inv.outputPort});
        lastBlockWord_ = now;
        lastBlockTokens_ = tokens;
        if (++block_ == inv.blockWords.size()) {
          ++inv_;
          phase_ = Phase::Header;
        }
      }
      return;
    }
  }

  void emit(int64_t now) override {
    pending_.pop_front();
    emitCycle_.push_back(now);
    lastEmit_ = now;
    ++emitted_;
    lastEvent_ = std::max(lastEvent_, now);
  }

  bool done() const override { return inv_ >= e_.invocations.size() && pending_.empty(); }
  int64_t consumed(size_t p) const override { return consumed_[p]; }
  int64_t lastEvent() const override { return lastEvent_; }
  int64_t firstInput() const override { return firstInput_; }
  std::vector<int64_t> takeEmitCycles() override { return std::move(emitCycle_); }
  std::vector<std::vector<int64_t>> takeConsumeCycles() override {
    return std::move(consumeCycle_);
  }

private:
  enum class Phase { Header, X, Words };

  /// The invocation's x is complete: its words go from the next cycle, and the loader turns to
  /// the next invocation when this one announces it.
  void startWords() {
    phase_ = Phase::Words;
    loaderInv_ = SIZE_MAX;
    if (e_.invocations[inv_].preloadsNext && inv_ + 1 < e_.invocations.size()) {
      loaderInv_ = inv_ + 1;
      loaded_ = 0;
    }
  }

  /// The first cycle the next word may go: a block's last word waits until the block before
  /// has left the output buffer (its outputs, one a cycle, after its own last word).
  int64_t holdUntil() const {
    if (phase_ != Phase::Words || lastBlockTokens_ == 0)
      return 0;
    const SequencedEngine::Invocation &inv = e_.invocations[inv_];
    if (words_ + 1 != inv.blockWords[block_])
      return 0;
    return lastBlockWord_ + lastBlockTokens_;
  }

  const SequencedEngine &e_;
  std::vector<int64_t> consumed_;
  std::vector<std::vector<int64_t>> consumeCycle_;
  std::vector<int64_t> emitCycle_;
  std::deque<std::pair<int64_t, size_t>> pending_; ///< outputs due: (earliest cycle, port)
  size_t inv_ = 0, block_ = 0;
  Phase phase_ = Phase::Header;
  int64_t words_ = 0;
  size_t loaderInv_ = SIZE_MAX; ///< the invocation whose x the loader fills (SIZE_MAX: none)
  int64_t loaded_ = 0;          ///< its x tokens taken so far
  int64_t lastBlockWord_ = 0, lastBlockTokens_ = 0;
  int64_t lastEmit_ = -1, emitted_ = 0;
  int64_t firstInput_ = -1, lastEvent_ = -1;
};

/// Runs one node alone with ideal inputs and a never-blocking output (skipping the cycles in
/// which it only waits).
KernelCurves runAlone(const model::KernelTiming &t, const std::vector<std::vector<int64_t>> &need,
                      int64_t lambda, int64_t window) {
  const std::vector<std::vector<int64_t>> order =
      t.inputRanks.empty() ? inputOrder(t, need, lambda) : t.inputPhases;
  NodeRun run(t, lambda, window, order, need);
  int64_t limit = t.totalLatency + t.outputTokens * (t.ii + 1) + 16;
  for (int64_t in : t.inputTokens)
    limit += in;
  std::vector<char> pops(run.ports());
  for (int64_t now = 0; now <= limit && !run.done();) {
    const int64_t readyAt = run.emitReadyAt();
    bool any = readyAt <= now;
    for (size_t p = 0; p < run.ports(); ++p) {
      pops[p] = run.wantsPopAt(p, now);
      any = any || pops[p];
    }
    if (!any) { // only time can help: jump to the end of the wait (or give up)
      const int64_t until = std::min(readyAt, run.wakeAt());
      if (until == kNever || until <= now)
        break;
      now = until;
      continue;
    }
    // One port streaming alone (a GEMV's weights once x is in): take its stretch at once.
    size_t popping = 0, streamer = 0;
    bool othersDone = true;
    for (size_t p = 0; p < run.ports(); ++p) {
      if (pops[p]) {
        ++popping;
        streamer = p;
      } else if (run.consumed(p) < t.inputTokens[p]) {
        othersDone = false;
      }
    }
    if (popping == 1 && othersDone && readyAt > now) {
      const int64_t stretch = run.aloneStretch(streamer, now);
      if (stretch >= 2) {
        run.popRun(streamer, now, stretch);
        now += stretch;
        continue;
      }
    }
    for (size_t p = 0; p < run.ports(); ++p)
      if (pops[p])
        run.pop(p, now);
    if (readyAt <= now)
      run.emit(now);
    ++now;
  }
  KernelCurves c;
  c.lambda = lambda;
  c.window = window;
  c.emitCycle = run.emitCycles();
  c.consumeCycle = run.consumeCycles();
  c.doneCycle = run.done() ? run.lastEvent() : -1;
  c.inputOrder = order;
  return c;
}

/// Does the node alone, at this window, give its first output at D and its last by L? A larger
/// window only lets inputs in earlier, so the last output comes no later: the smallest window
/// that meets L is the one whose run ends exactly at L when any does (a kernel whose L the
/// input rules cannot reproduce exactly, as a per-head norm that waits for a free bank between
/// heads, gets the window that comes closest without being slower).
bool meetsTiming(const KernelCurves &c, const model::KernelTiming &t) {
  if (c.doneCycle < 0)
    return false;
  if (t.outputTokens == 0)
    return true;
  return c.emitCycle.front() == t.firstOutputDelay && c.emitCycle.back() <= t.totalLatency;
}

} // namespace

KernelCurves deriveKernelCurves(const std::string &nodeName, const model::KernelTiming &t) {
  const std::string where = nodeWhere(nodeName);
  if (t.ii < 1)
    throw Error(where, "II", "a positive II, got " + std::to_string(t.ii));
  if (t.rateTokens != 0 && (t.rateTokens < 1 || t.rateCycles < t.rateTokens || t.ii != 1))
    throw Error(where, "rate",
                "rateCycles >= rateTokens >= 1 with II 1, got " + std::to_string(t.rateCycles) +
                    " cycles per " + std::to_string(t.rateTokens) + " tokens at II " +
                    std::to_string(t.ii));
  if (t.outputTokens < 0)
    throw Error(where, "outputTokens", "a count >= 0, got " + std::to_string(t.outputTokens));
  if (!t.notBefore.empty() && int64_t(t.notBefore.size()) != t.outputTokens)
    throw Error(where, "notBefore",
                "one cycle per output (" + std::to_string(t.outputTokens) + "), got " +
                    std::to_string(t.notBefore.size()));
  if (t.inputTokensNeeded.size() != t.inputTokens.size())
    throw Error(where, "inputTokensNeeded",
                "one curve per input port (" + std::to_string(t.inputTokens.size()) + "), got " +
                    std::to_string(t.inputTokensNeeded.size()));
  if (t.inputTokens.empty() && t.outputTokens == 0)
    throw Error(where, "outputTokens", "a node with neither inputs nor outputs to do something");
  for (size_t p = 0; p < t.inputTokens.size(); ++p) {
    int64_t previous = 0;
    for (int64_t k = 0; k < t.outputTokens; ++k) {
      const int64_t n = t.inputTokensNeeded[p](k);
      if (n < previous || n > t.inputTokens[p])
        throw Error(where,
                    "inputTokensNeeded[" + std::to_string(p) + "](" + std::to_string(k) + ")",
                    "a non-decreasing count <= " + std::to_string(t.inputTokens[p]) + ", got " +
                        std::to_string(n));
      previous = n;
    }
  }
  if (t.outputTokens > 0 && t.totalLatency < t.firstOutputDelay + t.spanTo(t.outputTokens - 1))
    throw Error(where, "totalLatency",
                "L >= D + (outputTokens - 1) * II = " +
                    std::to_string(t.firstOutputDelay + t.spanTo(t.outputTokens - 1)) + ", got " +
                    std::to_string(t.totalLatency));
  if (!t.inputRanks.empty()) {
    bool ok =
        t.inputRanks.size() == t.inputTokens.size() && t.inputPhases.size() == t.inputTokens.size();
    for (size_t p = 0; ok && p < t.inputRanks.size(); ++p)
      ok = int64_t(t.inputRanks[p].size()) == t.inputTokens[p] &&
           int64_t(t.inputPhases[p].size()) == t.inputTokens[p] &&
           std::is_sorted(t.inputRanks[p].begin(), t.inputRanks[p].end()) &&
           std::is_sorted(t.inputPhases[p].begin(), t.inputPhases[p].end());
    if (!ok)
      throw Error(where, "inputRanks",
                  "per input port one non-decreasing rank and phase per token, or none");
    ok = t.inputBuffered.empty() || t.inputBuffered.size() == t.inputTokens.size();
    for (size_t p = 0; ok && p < t.inputBuffered.size(); ++p)
      ok = t.inputBuffered[p].phase >= 0 &&
           (t.inputBuffered[p].phase == 0 ||
            std::all_of(t.inputPhases[p].begin(), t.inputPhases[p].end(),
                        [](int64_t phase) { return phase == 0; }));
    if (!ok)
      throw Error(where, "inputBuffered",
                  "none, or per input port a phase >= 0 (> 0 only for a port of phase 0)");
    ok = t.inputWaitsFor.empty() || t.inputWaitsFor.size() == t.inputTokens.size();
    for (size_t p = 0; ok && p < t.inputWaitsFor.size(); ++p)
      ok = t.inputWaitsFor[p].empty() || t.inputWaitsFor[p].size() == t.inputTokens.size();
    if (!ok)
      throw Error(where, "inputWaitsFor", "none, or per input port none or one flag per port");
  } else if (!t.inputBuffered.empty() || !t.inputWaitsFor.empty()) {
    throw Error(where, "inputBuffered", "none without inputRanks");
  }
  const std::vector<std::vector<int64_t>> need = neededTable(t);

  // lambda: D minus the cycle at which output 0's inputs are all in when fed ideally.
  int64_t lastNeededForFirst = 0;
  if (t.outputTokens > 0)
    for (size_t p = 0; p < t.inputTokens.size(); ++p)
      if (need[p][0] > 0)
        lastNeededForFirst = std::max(
            lastNeededForFirst,
            t.inputRanks.empty() ? need[p][0] - 1 : t.inputRanks[p][size_t(need[p][0] - 1)]);
  const int64_t lambda = t.inputTokens.empty() ? 0 : t.firstOutputDelay - lastNeededForFirst;
  if (!t.inputTokens.empty() && t.outputTokens > 0 && lambda < 1)
    throw Error(where, "firstOutputDelay",
                "D > " + std::to_string(lastNeededForFirst) +
                    " (output 0 needs input tokens up to that cycle), got " +
                    std::to_string(t.firstOutputDelay));

  // window: the smallest number of outputs in flight that meets D and L alone (meetsTiming;
  // monotone in the window). Kernels need a few outputs in flight, so the search doubles from 1
  // and then bisects, rather than bisecting from every output.
  const int64_t most = std::max<int64_t>(1, t.outputTokens);
  int64_t lo = 1, hi = 1;
  KernelCurves best;
  for (;;) {
    best = runAlone(t, need, lambda, hi);
    if (meetsTiming(best, t))
      break;
    if (hi == most)
      throw Error(where, "timing",
                  "D = " + std::to_string(t.firstOutputDelay) +
                      " and L = " + std::to_string(t.totalLatency) +
                      " reachable from its token needs at one token per port per cycle, got "
                      "first output at " +
                      (best.emitCycle.empty() ? std::string("never")
                                              : std::to_string(best.emitCycle.front())) +
                      " and last at " +
                      (best.emitCycle.empty() ? std::string("never")
                                              : std::to_string(best.emitCycle.back())));
    lo = hi + 1;
    hi = std::min(most, 2 * hi);
  }
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    KernelCurves trial = runAlone(t, need, lambda, mid);
    if (meetsTiming(trial, t)) {
      hi = mid;
      best = std::move(trial);
    } else {
      lo = mid + 1;
    }
  }
  best.needed = need;
  return best;
}

std::vector<int64_t> SequencedEngine::portOutputs() const {
  std::vector<int64_t> tokens(outputPorts, 0);
  for (const Invocation &inv : invocations)
    for (int64_t t : inv.blockTokens)
      tokens.at(inv.outputPort) += t;
  return tokens;
}

std::vector<size_t> checkTimingGraph(const TimingGraph &g, bool allowCycles) {
  std::vector<std::vector<size_t>> inEdgeOfPort(g.nodes.size());
  for (size_t v = 0; v < g.nodes.size(); ++v)
    inEdgeOfPort[v].assign(g.nodes[v].timing.inputTokens.size(), SIZE_MAX);
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const TimingEdge &edge = g.edges[e];
    const std::string where = "edge '" + edge.name + "'";
    if (edge.src >= g.nodes.size() || edge.dst >= g.nodes.size())
      throw Error(where, "src/dst", "node indices below " + std::to_string(g.nodes.size()));
    const model::KernelTiming &src = g.nodes[edge.src].timing;
    const model::KernelTiming &dst = g.nodes[edge.dst].timing;
    if (edge.dstPort >= dst.inputTokens.size())
      throw Error(where, "dstPort",
                  "an input port of node '" + g.nodes[edge.dst].name + "' (it has " +
                      std::to_string(dst.inputTokens.size()) + "), got " +
                      std::to_string(edge.dstPort));
    const SequencedEngine *engine = g.nodes[edge.src].engine.get();
    if (engine ? edge.srcPort >= engine->outputPorts : edge.srcPort != 0)
      throw Error(where, "srcPort",
                  "an output port of node '" + g.nodes[edge.src].name + "', got " +
                      std::to_string(edge.srcPort));
    const int64_t srcTokens = engine ? engine->portOutputs()[edge.srcPort] : src.outputTokens;
    if (edge.tokens != srcTokens || edge.tokens != dst.inputTokens[edge.dstPort])
      throw Error(where, "tokens",
                  "the source port's outputs (" + std::to_string(srcTokens) +
                      ") = the destination port's inputTokens (" +
                      std::to_string(dst.inputTokens[edge.dstPort]) + ") = the edge's, got " +
                      std::to_string(edge.tokens));
    if (edge.tokenBits < 1)
      throw Error(where, "tokenBits", "a positive width, got " + std::to_string(edge.tokenBits));
    if (inEdgeOfPort[edge.dst][edge.dstPort] != SIZE_MAX)
      throw Error(where, "dstPort",
                  "one edge per input port, but port " + std::to_string(edge.dstPort) +
                      " of node '" + g.nodes[edge.dst].name + "' also has edge '" +
                      g.edges[inEdgeOfPort[edge.dst][edge.dstPort]].name + "'");
    inEdgeOfPort[edge.dst][edge.dstPort] = e;
  }
  for (const TimingNode &n : g.nodes)
    if (n.wire && (n.engine || n.timing.inputTokens.size() != 1 ||
                   n.timing.inputTokens[0] != n.timing.outputTokens))
      throw Error(nodeWhere(n.name), "wire",
                  "one input port carrying as many tokens as it outputs (a fork or a view)");
  for (size_t v = 0; v < g.nodes.size(); ++v)
    for (size_t p = 0; p < inEdgeOfPort[v].size(); ++p)
      if (inEdgeOfPort[v][p] == SIZE_MAX)
        throw Error(nodeWhere(g.nodes[v].name), "input port " + std::to_string(p),
                    "an edge feeding it, got none");
  // Kahn's algorithm; what remains lies on a cycle.
  std::vector<size_t> indegree(g.nodes.size(), 0);
  for (const TimingEdge &e : g.edges)
    ++indegree[e.dst];
  std::deque<size_t> ready;
  for (size_t v = 0; v < g.nodes.size(); ++v)
    if (indegree[v] == 0)
      ready.push_back(v);
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t v = ready.front();
    ready.pop_front();
    order.push_back(v);
    for (const TimingEdge &e : g.edges)
      if (e.src == v && --indegree[e.dst] == 0)
        ready.push_back(e.dst);
  }
  if (order.size() != g.nodes.size()) {
    for (size_t v = 0; v < g.nodes.size() && !allowCycles; ++v)
      if (indegree[v] != 0)
        throw Error(nodeWhere(g.nodes[v].name), "edges",
                    "an acyclic graph, got a cycle through it");
    for (size_t v = 0; v < g.nodes.size(); ++v) // on or behind a cycle: in index order
      if (indegree[v] != 0)
        order.push_back(v);
  }
  return order;
}

std::vector<std::vector<int64_t>> neededTokenTable(const model::KernelTiming &timing) {
  return neededTable(timing);
}

SharedCurves sharedKernelCurves(const std::string &nodeName, const model::KernelTiming &timing) {
  struct Entry {
    model::KernelTiming timing;
    SharedCurves curves;
  };
  static std::mutex mutex;
  // By (D, L, outputs, first input's tokens); the full comparison below decides.
  static std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, std::vector<Entry>> known;
  const auto key =
      std::make_tuple(timing.firstOutputDelay, timing.totalLatency, timing.outputTokens,
                      timing.inputTokens.empty() ? -1 : timing.inputTokens[0]);
  std::vector<std::vector<int64_t>> needed;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(key);
    if (it != known.end())
      for (const Entry &e : it->second) {
        const model::KernelTiming &t = e.timing;
        if (t.ii != timing.ii || t.rateTokens != timing.rateTokens ||
            t.rateCycles != timing.rateCycles || t.rateFrom != timing.rateFrom ||
            t.inputTokens != timing.inputTokens || t.notBefore != timing.notBefore ||
            t.inputRanks != timing.inputRanks || t.inputPhases != timing.inputPhases ||
            t.inputBuffered != timing.inputBuffered || t.inputWaitsFor != timing.inputWaitsFor)
          continue;
        if (needed.empty() && !timing.inputTokens.empty())
          needed = neededTable(timing);
        if (e.curves->needed == needed)
          return e.curves;
      }
  }
  auto curves = std::make_shared<const KernelCurves>(deriveKernelCurves(nodeName, timing));
  const std::lock_guard<std::mutex> lock(mutex);
  Entry entry;
  entry.timing = timing;
  entry.timing.inputTokensNeeded.clear(); // the table in the curves stands for them
  entry.curves = curves;
  known[key].push_back(std::move(entry));
  return curves;
}

std::vector<SharedCurves> deriveAllCurves(const TimingGraph &graph) {
  std::vector<SharedCurves> curves;
  curves.reserve(graph.nodes.size());
  for (const TimingNode &n : graph.nodes) {
    if (n.engine) { // its rules are its own (EngineRun)
      auto c = std::make_shared<KernelCurves>();
      c->needed.resize(n.timing.inputTokens.size());
      curves.push_back(std::move(c));
      continue;
    }
    curves.push_back(sharedKernelCurves(n.name, n.timing));
  }
  return curves;
}

TimingSimResult simulateDataflowTiming(const TimingGraph &graph,
                                       const std::vector<int64_t> &depths) {
  return simulateDataflowTiming(graph, deriveAllCurves(graph), depths);
}

namespace {

/// One run of simulateDataflowTiming: the graph's run states, FIFOs, channel buckets and the
/// event-driven loop over them (the rules of dataflow_timing_sim.h).
class TimingRun {
public:
  TimingRun(const TimingGraph &g, const std::vector<SharedCurves> &curves,
            const std::vector<int64_t> &depths, std::vector<size_t> order);
  TimingSimResult run();

private:
  struct Decision {
    size_t node;
    bool emit;
    uint64_t pops;            ///< bit p: pop port p (a kernel has far fewer than 64 inputs)
    size_t port = SIZE_MAX;   ///< an engine's front pop (it may have more than 64 ports)
    size_t loader = SIZE_MAX; ///< an engine's x loader pop
  };

  void makeRuns(const std::vector<SharedCurves> &curves);
  void makeBuckets();
  /// The channels node v's next output draws on (null: none, or fetched before the start).
  const std::vector<int> *channelsOf(size_t v) const;
  /// Room on every edge of the port the node's next output goes to.
  bool spaceOnAll(size_t v) const;
  /// A memory source with a restart rule (TimingNode::restartRoom): stopped by a full buffer,
  /// the cycle it may emit again once a burst's room is free (kNever: not yet free).
  int64_t restartReadyAt(size_t v);
  void flag(size_t v);
  void noteDone(size_t v);
  /// Node v's decision for this cycle, or its next wake.
  void decide(size_t v);
  /// A source streaming into one consumer that takes a token a cycle and emits nothing, with
  /// nothing else due: the same two events repeat each cycle (a GEMV's weights), so the whole
  /// stretch is taken at once. False when the two decisions are not such a pair.
  bool takeStretch();
  /// Applies the cycle's decisions (pops, channel draws, emits), then moves to the next cycle.
  void applyDecisions();
  void reportDeadlock();

  const TimingGraph &g_;
  const std::vector<int64_t> &depths_;
  const std::vector<size_t> order_;
  const size_t nodeCount_;
  std::vector<std::vector<size_t>> inEdge_, outEdges_;
  /// Per node and output port, the edges out of it (a kernel has one port).
  std::vector<std::vector<std::vector<size_t>>> portEdges_;
  std::vector<std::unique_ptr<RunState>> runs_;
  int64_t longestWait_ = 2;
  std::unique_ptr<ChannelBuckets> buckets_;
  TimingSimResult result_;
  std::vector<int64_t> occupancy_;
  std::vector<char> stopped_;
  std::vector<int64_t> resumeAt_;
  // The nodes to look at in the current cycle, those flagged for the next, and the ends of
  // time-based waits (a node visited more often than needed only finds nothing to do).
  std::vector<size_t> active_, next_;
  std::vector<char> flagged_;
  using Wake = std::pair<int64_t, size_t>;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> wakes_;
  std::vector<Decision> decisions_;
  std::vector<size_t> pushed_;
  size_t doneCount_ = 0;
  std::vector<char> isDone_;
  int64_t lastEvent_ = -1;
  int64_t now_ = 0;
  std::vector<int64_t> activeAt_; ///< the cycle a node was last put in active_
};

TimingRun::TimingRun(const TimingGraph &g, const std::vector<SharedCurves> &curves,
                     const std::vector<int64_t> &depths, std::vector<size_t> order)
    : g_(g), depths_(depths), order_(std::move(order)), nodeCount_(g.nodes.size()),
      inEdge_(nodeCount_), outEdges_(nodeCount_), portEdges_(nodeCount_),
      occupancy_(g.edges.size(), 0), stopped_(nodeCount_, 0), resumeAt_(nodeCount_, kNever),
      active_(nodeCount_), flagged_(nodeCount_, 0), isDone_(nodeCount_, 0),
      activeAt_(nodeCount_, 0) {
  for (size_t v = 0; v < nodeCount_; ++v) {
    inEdge_[v].resize(g.nodes[v].timing.inputTokens.size());
    portEdges_[v].resize(g.nodes[v].engine ? g.nodes[v].engine->outputPorts : 1);
  }
  for (size_t e = 0; e < g.edges.size(); ++e) {
    inEdge_[g.edges[e].dst][g.edges[e].dstPort] = e;
    outEdges_[g.edges[e].src].push_back(e);
    portEdges_[g.edges[e].src][g.edges[e].srcPort].push_back(e);
  }
  makeRuns(curves);
  makeBuckets();
  result_.highWater.assign(g.edges.size(), 0);
  for (size_t v = 0; v < nodeCount_; ++v)
    active_[v] = v;
}

void TimingRun::makeRuns(const std::vector<SharedCurves> &curves) {
  runs_.reserve(nodeCount_);
  for (size_t v = 0; v < nodeCount_; ++v) {
    // A kernel's pops are a 64-bit mask; an engine pops at most its front's port and its x
    // loader's a cycle (Decision::port, Decision::loader).
    if (g_.nodes[v].timing.inputTokens.size() > 64 && !g_.nodes[v].engine)
      throw Error(nodeWhere(g_.nodes[v].name), "inputs", "at most 64 input ports");
    const KernelCurves &c = *curves[v];
    if (c.needed.size() != g_.nodes[v].timing.inputTokens.size())
      throw Error(nodeWhere(g_.nodes[v].name), "curves",
                  "curves from deriveKernelCurves (with the needed-token table)");
    if (const SequencedEngine *engine = g_.nodes[v].engine.get()) {
      runs_.push_back(std::make_unique<EngineRun>(*engine, g_.nodes[v].timing.inputTokens.size()));
      longestWait_ = std::max(longestWait_, engine->outputDelay + 2);
      for (const SequencedEngine::Invocation &inv : engine->invocations)
        for (int64_t t : inv.blockTokens)
          longestWait_ = std::max(longestWait_, t + 2); // a held block's wait
      continue;
    }
    runs_.push_back(
        std::make_unique<NodeRun>(g_.nodes[v].timing, c.lambda, c.window, c.inputOrder, c.needed));
    const model::KernelTiming &t = g_.nodes[v].timing;
    longestWait_ = std::max(longestWait_, t.firstOutputDelay + t.gapBefore(1) + c.lambda + 2);
    for (size_t k = 1; k < t.notBefore.size(); ++k) // a source's schedule may pause longer
      longestWait_ = std::max(longestWait_, t.notBefore[k] - t.notBefore[k - 1] + 2);
  }
}

void TimingRun::makeBuckets() {
  // Shared pseudo-channel bandwidth, if any node draws on it.
  int channels = -1;
  auto note = [&](const TimingNode &n, const std::vector<int> &chans) {
    for (int c : chans) {
      if (c < 0)
        throw Error(nodeWhere(n.name), "channels", "channel indices >= 0");
      channels = std::max(channels, c);
    }
  };
  for (const TimingNode &n : g_.nodes) {
    note(n, n.channels);
    if (!n.blockChannels.empty() && n.blockOutputs < 1)
      throw Error(nodeWhere(n.name), "block channels", "at least one output per block");
    for (const std::vector<int> &chans : n.blockChannels)
      note(n, chans);
  }
  if (channels >= 0 && g_.bandwidth.wordsPerCycle > 0) {
    if (g_.bandwidth.capacityWords < 1)
      throw Error("timing simulation", "channel bandwidth", "a bucket of at least one word");
    buckets_ = std::make_unique<ChannelBuckets>(g_.bandwidth, size_t(channels) + 1);
    longestWait_ += static_cast<int64_t>(std::ceil(1.0 / g_.bandwidth.wordsPerCycle)) + 1;
  }
}

const std::vector<int> *TimingRun::channelsOf(size_t v) const {
  const TimingNode &n = g_.nodes[v];
  if (!buckets_ || (n.channels.empty() && n.blockChannels.empty()))
    return nullptr;
  const NodeRun *run = runs_[v]->generic();
  const int64_t next = run ? run->emitted() : 0;
  // Outputs fetched before the start drew their bandwidth then.
  if (next < n.prefetchedOutputs)
    return nullptr;
  if (!n.blockChannels.empty())
    return &n.blockChannels[static_cast<size_t>(next / n.blockOutputs) % n.blockChannels.size()];
  return &n.channels;
}

bool TimingRun::spaceOnAll(size_t v) const {
  for (size_t e : portEdges_[v][runs_[v]->outputPort()])
    if (occupancy_[e] >= depths_[e])
      return false;
  return true;
}

int64_t TimingRun::restartReadyAt(size_t v) {
  if (!spaceOnAll(v)) {
    stopped_[v] = 1;
    resumeAt_[v] = kNever;
    return kNever;
  }
  if (!stopped_[v])
    return 0;
  if (resumeAt_[v] == kNever) {
    int64_t room = std::numeric_limits<int64_t>::max();
    for (size_t e : portEdges_[v][runs_[v]->outputPort()])
      room = std::min(room, depths_[e] - occupancy_[e]);
    if (room < g_.nodes[v].restartRoom)
      return kNever; // a pop flags it again
    resumeAt_[v] = now_ + g_.nodes[v].restartDelay;
  }
  return resumeAt_[v];
}

void TimingRun::flag(size_t v) {
  if (!flagged_[v]) {
    flagged_[v] = 1;
    next_.push_back(v);
  }
}

void TimingRun::noteDone(size_t v) {
  if (runs_[v]->done() && !isDone_[v]) {
    isDone_[v] = 1;
    ++doneCount_;
  }
}

void TimingRun::decide(size_t v) {
  result_.nodeVisits++;
  RunState &run = *runs_[v];
  if (isDone_[v])
    return;
  int64_t readyAt = run.emitReadyAt();
  if (g_.nodes[v].restartRoom > 0 && readyAt != kNever) {
    const int64_t gate = restartReadyAt(v);
    readyAt = gate == kNever ? kNever : std::max(readyAt, gate);
  }
  if (const std::vector<int> *chans = channelsOf(v); chans && readyAt != kNever) {
    if (readyAt <= now_ && spaceOnAll(v))
      buckets_->want(v, *chans, g_.nodes[v].channelFirst);
    readyAt = buckets_->readyAt(v, *chans, std::max(readyAt, now_));
  }
  Decision d{v, readyAt <= now_ && spaceOnAll(v), 0};
  if (g_.nodes[v].wire) { // pop and push in one cycle (TimingNode::wire)
    d.emit = occupancy_[inEdge_[v][0]] > 0 && spaceOnAll(v);
    d.pops = d.emit ? 1 : 0;
  } else if (g_.nodes[v].engine) {
    const EngineRun &engine = static_cast<EngineRun &>(run);
    const size_t p = engine.wantedPort(), x = engine.loaderPort();
    if (p != SIZE_MAX && occupancy_[inEdge_[v][p]] > 0 && run.wantsPopAt(p, now_))
      d.port = p;
    if (x != SIZE_MAX && occupancy_[inEdge_[v][x]] > 0)
      d.loader = x;
  } else {
    for (size_t p = 0; p < run.ports(); ++p)
      if (occupancy_[inEdge_[v][p]] > 0 && run.wantsPopAt(p, now_))
        d.pops |= uint64_t(1) << p;
  }
  if (d.emit || d.pops || d.port != SIZE_MAX || d.loader != SIZE_MAX) {
    decisions_.push_back(d);
  } else {
    const int64_t wake = std::min(readyAt > now_ ? readyAt : kNever, run.wakeAt());
    if (wake != kNever && wake > now_)
      wakes_.push({wake, v});
  }
}

bool TimingRun::takeStretch() {
  if (decisions_.size() != 2)
    return false;
  const Decision *src = &decisions_[0], *dst = &decisions_[1];
  if (!src->emit)
    std::swap(src, dst);
  const size_t S = src->node, C = dst->node;
  NodeRun *source = runs_[S]->generic(), *consumer = runs_[C]->generic();
  if (!(source && consumer && src->emit && src->pops == 0 && !dst->emit &&
        outEdges_[S].size() == 1 && source->streamsEveryCycle() &&
        g_.edges[outEdges_[S][0]].dst == C))
    return false;
  const size_t e = outEdges_[S][0], p = g_.edges[e].dstPort;
  if (dst->pops != (uint64_t(1) << p) || !consumer->othersConsumed(p))
    return false;
  int64_t stretch = std::min(source->outputsLeft(), consumer->aloneStretch(p, now_));
  if (!wakes_.empty())
    stretch = std::min(stretch, wakes_.top().first - now_);
  if (stretch < 2)
    return false;
  source->emitRun(now_, stretch);
  consumer->popRun(p, now_, stretch);
  result_.nodeVisits += 2 * stretch;
  result_.highWater[e] = std::max(result_.highWater[e], occupancy_[e]);
  for (size_t v : {S, C})
    noteDone(v);
  lastEvent_ = now_ + stretch - 1;
  now_ += stretch;
  for (size_t v : next_)
    flagged_[v] = 0;
  next_.clear();
  active_ = {S, C};
  for (size_t v : active_)
    activeAt_[v] = now_;
  return true;
}

void TimingRun::applyDecisions() {
  pushed_.clear();
  for (const Decision &d : decisions_) {
    RunState &run = *runs_[d.node];
    // The port is read before the pops: an engine's pop may queue outputs for another port.
    const size_t port = run.outputPort();
    auto popPort = [&](size_t p) {
      run.pop(p, now_);
      const size_t e = inEdge_[d.node][p];
      --occupancy_[e];
      flag(g_.edges[e].src); // a slot is free
    };
    if (d.loader != SIZE_MAX)
      popPort(d.loader);
    if (d.port != SIZE_MAX)
      popPort(d.port);
    else
      for (size_t p = 0; d.pops >> p; ++p)
        if (d.pops >> p & 1)
          popPort(p);
    bool emit = d.emit;
    if (const std::vector<int> *chans = channelsOf(d.node); emit && chans) {
      // Another node of this cycle may have taken the channel's word first.
      const int64_t at = buckets_->readyAt(d.node, *chans, now_);
      if (at > now_) {
        emit = false;
        wakes_.push({at, d.node});
      } else {
        buckets_->draw(d.node, *chans, now_);
      }
    }
    if (emit) {
      run.emit(now_);
      stopped_[d.node] = 0;
      for (size_t e : portEdges_[d.node][port]) {
        ++occupancy_[e];
        pushed_.push_back(e);
        flag(g_.edges[e].dst); // a token is there
      }
    }
    flag(d.node); // its own state changed
    noteDone(d.node);
  }
  for (size_t e : pushed_)
    result_.highWater[e] = std::max(result_.highWater[e], occupancy_[e]);
  if (!decisions_.empty())
    lastEvent_ = now_;
  ++now_;
  active_.swap(next_);
  next_.clear();
  for (size_t v : active_) {
    flagged_[v] = 0;
    activeAt_[v] = now_;
  }
}

TimingSimResult TimingRun::run() {
  for (size_t v = 0; v < nodeCount_; ++v)
    noteDone(v);
  for (;;) {
    if (doneCount_ == nodeCount_)
      break;
    // The waits that end now join the nodes flagged by the last cycle.
    while (!wakes_.empty() && wakes_.top().first <= now_) {
      const size_t v = wakes_.top().second;
      wakes_.pop();
      if (activeAt_[v] != now_) {
        activeAt_[v] = now_;
        active_.push_back(v);
      }
    }
    if (active_.empty()) {
      // Nothing can act before the next wait ends. A wait longer than any timing rule allows
      // (or none at all) means a deadlock, reported at the cycle a cycle-by-cycle loop would
      // give up: longestWait + 1 cycles after the last event.
      const int64_t giveUp = lastEvent_ + longestWait_ + 1;
      if (wakes_.empty() || wakes_.top().first > giveUp) {
        now_ = giveUp;
        break;
      }
      now_ = wakes_.top().first;
      continue;
    }
    // Decide from the state at the start of the cycle, then apply.
    decisions_.clear();
    for (size_t v : active_)
      decide(v);
    if (takeStretch())
      continue;
    applyDecisions();
  }
  if (doneCount_ != nodeCount_) {
    reportDeadlock();
    return std::move(result_);
  }
  int64_t last = 0;
  for (std::unique_ptr<RunState> &run : runs_) {
    last = std::max(last, run->lastEvent());
    result_.startCycle.push_back(std::max<int64_t>(0, run->firstInput()));
    result_.doneCycle.push_back(run->lastEvent());
    result_.emitCycle.push_back(run->takeEmitCycles());
    result_.consumeCycle.push_back(run->takeConsumeCycles());
  }
  result_.makespan = last + 1;
  return std::move(result_);
}

void TimingRun::reportDeadlock() {
  // Nothing has moved for longer than any timing rule can hold a node: a deadlock. Each
  // unfinished node waits for one other (the consumer of its full FIFO or the producer of its
  // empty one); following these waits ends in a cycle, and the cycle's first node that waits
  // for space names the FIFO that is too shallow.
  result_.deadlock = true;
  std::vector<size_t> waitsForNode(nodeCount_, SIZE_MAX), waitsOnEdge(nodeCount_, SIZE_MAX);
  std::vector<bool> waitsForSpace(nodeCount_, false);
  for (size_t v : order_) {
    const RunState &run = *runs_[v];
    if (run.done())
      continue;
    std::string why;
    const std::string blocker = run.emitBlocker(now_ + 1);
    if (blocker.empty()) {
      for (size_t e : portEdges_[v][run.outputPort()])
        if (occupancy_[e] >= depths_[e]) {
          why = "waits for space on edge '" + g_.edges[e].name + "' (full at depth " +
                std::to_string(depths_[e]) + ")";
          waitsForNode[v] = g_.edges[e].dst;
          waitsOnEdge[v] = e;
          waitsForSpace[v] = true;
          break;
        }
    } else if (blocker.rfind("port ", 0) == 0) {
      const size_t p = std::stoul(blocker.substr(5));
      const size_t e = inEdge_[v][p];
      why = "waits for token " + std::to_string(run.consumed(p)) + " on edge '" + g_.edges[e].name +
            "' (empty)";
      waitsForNode[v] = g_.edges[e].src;
      waitsOnEdge[v] = e;
    } else {
      why = "waits (" + blocker + ")";
    }
    result_.deadlockReport += "node '" + g_.nodes[v].name + "' " + why + "; ";
  }
  for (size_t first : order_) {
    if (waitsForNode[first] == SIZE_MAX)
      continue;
    std::vector<bool> seen(nodeCount_, false);
    size_t v = first;
    while (v != SIZE_MAX && !seen[v]) {
      seen[v] = true;
      v = waitsForNode[v];
    }
    if (v == SIZE_MAX)
      continue;
    // v is on a cycle: pick the cycle's topologically first space-waiting node.
    std::vector<bool> onCycle(nodeCount_, false);
    for (size_t c = v; !onCycle[c]; c = waitsForNode[c])
      onCycle[c] = true;
    for (size_t c : order_)
      if (onCycle[c] && (waitsForSpace[c] || result_.blockedNode.empty())) {
        result_.blockedNode = g_.nodes[c].name;
        result_.blockedEdge = g_.edges[waitsOnEdge[c]].name;
        if (waitsForSpace[c])
          break;
      }
    break;
  }
  result_.deadlockReport =
      "deadlock at cycle " + std::to_string(now_) + ": " + result_.deadlockReport;
}

} // namespace

TimingSimResult simulateDataflowTiming(const TimingGraph &g,
                                       const std::vector<SharedCurves> &curves,
                                       const std::vector<int64_t> &depths) {
  bool anyEngine = false;
  for (const TimingNode &n : g.nodes)
    anyEngine = anyEngine || n.engine != nullptr;
  std::vector<size_t> order = checkTimingGraph(g, anyEngine);
  if (depths.size() != g.edges.size())
    throw Error("timing simulation", "depths",
                "one depth per edge (" + std::to_string(g.edges.size()) + "), got " +
                    std::to_string(depths.size()));
  for (size_t e = 0; e < g.edges.size(); ++e)
    if (depths[e] < 1)
      throw Error("edge '" + g.edges[e].name + "'", "depth",
                  "a depth >= 1, got " + std::to_string(depths[e]));
  if (curves.size() != g.nodes.size())
    throw Error("timing simulation", "curves",
                "one per node (" + std::to_string(g.nodes.size()) + "), got " +
                    std::to_string(curves.size()));
  return TimingRun(g, curves, depths, std::move(order)).run();
}

} // namespace st::sim
