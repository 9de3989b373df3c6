// Tests of the memory stages of HBM read DMAs (sim/memory_stages.h): a DMA that serves one
// read after another (a block-stage DMA's commands, layer by layer) delivers the second read's
// first word only after the first read's last, also when its consumer is ready long before;
// alone on its channel each read keeps the memory's rate; a read whose first words the DMA
// fetched before the start (the previous step's tail) delivers them at once, without drawing
// bandwidth, and the rest at the rate; drawn memory delays (model::MemoryDraws) are the means
// under the deterministic memory and average to them under a random one; a read that names a later
// read as the one before it is an st::Error naming the node.
#include "sim/memory_stages.h"

#include "model/dma_stream_model.h"
#include "model/memory_read_model.h"
#include "support/error.h"

#include <gtest/gtest.h>

namespace st::passes {
namespace {

/// Two read DMAs of `words` words each into a sink of their own, the second served after the
/// first when `chained`; both on pseudo-channel 0.
struct TwoReads {
  sim::TimingGraph graph;
  std::vector<int64_t> depths;
  std::vector<sim::MemoryRead> reads;
};
TwoReads twoReads(int64_t words, bool chained) {
  TwoReads t;
  for (const char *name : {"layer0/rd_k", "layer1/rd_k"})
    t.graph.nodes.push_back({name, model::readDmaStreamTiming(words, words), nullptr, {}});
  t.graph.nodes.push_back({"sink0", model::writeDmaStreamTiming(words), nullptr, {}});
  t.graph.nodes.push_back({"sink1", model::writeDmaStreamTiming(words), nullptr, {}});
  t.graph.edges.push_back({"k0", 0, 2, 0, words, 512, 0});
  t.graph.edges.push_back({"k1", 1, 3, 0, words, 512, 0});
  t.depths = {2, 2};
  t.graph.bandwidth.wordsPerCycle = 0.9;
  for (size_t v = 0; v < 2; ++v) {
    sim::MemoryRead r;
    r.node = v;
    r.words = words;
    r.startDelay = 40;
    r.channels = {0};
    t.reads.push_back(r);
  }
  if (chained)
    t.reads[1].after = 0;
  return t;
}

TEST(MemoryStages, AReadServedAfterAnotherStartsAfterItsLastWord) {
  const int64_t words = 600;
  const model::Cadence rate{4, 5};
  TwoReads chained = twoReads(words, true);
  sim::addMemoryStages(chained.graph, chained.depths, chained.reads, rate);
  ASSERT_EQ(chained.graph.nodes.size(), 6u); // two memory nodes appended, in read order
  const sim::TimingSimResult r = sim::simulateDataflowTiming(chained.graph, chained.depths);
  ASSERT_FALSE(r.deadlock) << r.deadlockReport;
  const std::vector<int64_t> &first = r.emitCycle[4], &second = r.emitCycle[5];
  ASSERT_EQ(first.size(), size_t(words));
  ASSERT_EQ(second.size(), size_t(words));
  EXPECT_EQ(second.front(), first.back() + 2); // taken the cycle after its push, lambda 1
  // Each read alone on the channel keeps the memory's rate: 600 words in 750 cycles.
  EXPECT_NEAR(double(first.back() - first.front()), 749, 2);
  EXPECT_NEAR(double(second.back() - second.front()), 749, 2);
  EXPECT_NEAR(double(r.makespan), 40 + 2 * 750, 12);

  // Unchained, both start at once and share the channel (the model before: every layer's read
  // of one DMA in flight at the step's start).
  TwoReads parallel = twoReads(words, false);
  sim::addMemoryStages(parallel.graph, parallel.depths, parallel.reads, rate);
  const sim::TimingSimResult p = sim::simulateDataflowTiming(parallel.graph, parallel.depths);
  ASSERT_FALSE(p.deadlock) << p.deadlockReport;
  EXPECT_LT(p.emitCycle[5].front(), 100);
  EXPECT_GT(p.emitCycle[4].back(), 1200); // the first read got about half of the 0.9
}

TEST(MemoryStages, PrefetchedWordsComeAtOnceAndDrawNoBandwidth) {
  const int64_t words = 600, prefetched = model::kReadDmaBufferWords;
  const model::Cadence rate{4, 5};
  TwoReads t = twoReads(words, false);
  t.reads[1].channels = {1}; // the other read keeps out of the way
  t.reads[0].prefetchedWords = prefetched;
  sim::addMemoryStages(t.graph, t.depths, t.reads, rate);
  const sim::TimingSimResult r = sim::simulateDataflowTiming(t.graph, t.depths);
  ASSERT_FALSE(r.deadlock) << r.deadlockReport;
  const std::vector<int64_t> &memory = r.emitCycle[4];
  ASSERT_EQ(memory.size(), size_t(words));
  // In the buffer at the start: no start delay, one a cycle, although the channel's bucket
  // refills at 0.9 words a cycle; then the memory's rate (344 words in 430 cycles).
  EXPECT_EQ(memory.front(), 0);
  EXPECT_EQ(memory[size_t(prefetched - 1)], prefetched - 1);
  EXPECT_NEAR(double(memory.back() - memory[size_t(prefetched - 1)]), 430, 2);

  // A chained read cannot have prefetched words: the DMA fetches them in the earlier read.
  TwoReads chained = twoReads(64, true);
  chained.reads[1].prefetchedWords = 8;
  EXPECT_THROW(sim::addMemoryStages(chained.graph, chained.depths, chained.reads, rate), Error);
}

TEST(MemoryDraws, DeterministicDrawsAreTheMeansAndRandomOnesAverageToThem) {
  // Bursts of a re-streamed pattern and a long read: under the deterministic memory a drawn
  // schedule is the mean one; under sim's default memory the draws average to the means (the
  // latency U{0 .. 40} to 20, the R beats to the word rate) and one run differs from another.
  const std::vector<int64_t> bursts = {1, 1, 1, 1, 1, 1, 64, 64, 3};
  model::MemoryTiming fixed;
  fixed.readLatencyJitter = 0;
  fixed.readyProbability = 1;
  model::MemoryDraws none(fixed, 7);
  EXPECT_EQ(model::readDmaWordSchedule(bursts, fixed, &none),
            model::readDmaWordSchedule(bursts, fixed));
  const model::MemoryTiming sim;
  const std::vector<int64_t> mean = model::readDmaWordSchedule(bursts, sim);
  double first = 0, last = 0;
  constexpr int kRuns = 2000;
  for (int i = 0; i < kRuns; ++i) {
    model::MemoryDraws draws(sim, uint64_t(i));
    const std::vector<int64_t> run = model::readDmaWordSchedule(bursts, sim, &draws);
    ASSERT_EQ(run.size(), mean.size());
    first += double(run.front()) / kRuns;
    last += double(run.back()) / kRuns;
  }
  EXPECT_NEAR(first, double(mean.front()), 1.0);
  EXPECT_NEAR(last, double(mean.back()), 0.02 * double(mean.back()));
  model::MemoryDraws a(sim, 1), b(sim, 2);
  EXPECT_NE(model::readDmaWordSchedule(bursts, sim, &a),
            model::readDmaWordSchedule(bursts, sim, &b));
}

TEST(MemoryStages, AReadAfterALaterReadIsAnErrorNamingTheNode) {
  TwoReads t = twoReads(64, false);
  t.reads[0].after = 1;
  try {
    sim::addMemoryStages(t.graph, t.depths, t.reads, model::Cadence{4, 5});
    FAIL() << "expected st::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("layer0/rd_k"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace st::passes
