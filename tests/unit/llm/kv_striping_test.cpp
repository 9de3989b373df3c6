// KV striping (compiler/llm/kv_striping): the slices of a cache token and their pseudo-channels
// for the full-size shapes and the fixtures' odd head dims, the unstriped design at kvStep 0,
// a head wider than two bus words split into tokens of its parts, and one error for a kv step
// that is not a divisor of the kv heads, a split that is not possible, or slices that do not fit;
// the choice of heads per token and packed engine pairs within a DSP budget (kv_step_choice),
// priced as the report prices the design; the AXI masters of a striped cache's DMAs
// (plan::stripedKvPortLayouts); the block-major layout of st_attention's block-major walk.
#include "llm/kv_striping.h"

#include "frontend/decode_builder.h"
#include "ir/hbm_layout.h"
#include "llm/stage_lowering.h"
#include "plan/attention_tile_choice.h"
#include "plan/engine_fifo_choice.h"
#include "plan/kv_step_choice.h"
#include "plan/llm_top_interface.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "support/error.h"

namespace st::llm {
namespace {

TEST(KvStriping, FullSizeShapesCutTokensIntoBusWordParts) {
  // GPT-2 Medium, 8 of its 16 heads per token: two chunks per row, a bus word per head.
  const KvStriping gpt2 = kvStripingOf(16, 64, 8);
  EXPECT_EQ(gpt2.cacheLanes, 512);
  EXPECT_EQ(gpt2.partCodes, 64);
  EXPECT_EQ(gpt2.slices, 8);
  EXPECT_EQ(gpt2.chunks, 2);
  EXPECT_EQ(gpt2.rowBytes, 128);
  // Gemma 3 1B: one kv head of 256 codes, a whole head per token over four channels.
  const KvStriping gemma = kvStripingOf(1, 256, 1);
  EXPECT_EQ(gemma.cacheLanes, 256);
  EXPECT_EQ(gemma.slices, 4);
  EXPECT_EQ(gemma.chunks, 1);
  EXPECT_EQ(gemma.rowBytes, 64);
}

TEST(KvStriping, AWideHeadSplitsIntoTokensOfItsParts) {
  // Gemma 3 1B's head of 256 codes in two tokens: two bus-word parts each, two chunks per row.
  EXPECT_EQ(kvHeadParts(256), 4);
  const KvStriping half = kvStripingOf(1, 256, 1, 2);
  EXPECT_EQ(half.headSplit, 2);
  EXPECT_EQ(half.cacheLanes, 128);
  EXPECT_EQ(half.partCodes, 64);
  EXPECT_EQ(half.slices, 2);
  EXPECT_EQ(half.chunks, 2);
  EXPECT_EQ(half.rowBytes, 128);
  // Two kv heads of 192 codes (three parts) in three tokens would leave one part per token: the
  // unstriped cache does that; 1 is the whole head.
  EXPECT_EQ(kvStripingOf(2, 192, 1, 1).slices, 3);
  EXPECT_THROW(kvStripingOf(2, 192, 1, 3), Error);
  EXPECT_THROW(kvStripingOf(1, 256, 1, 3), Error); // not a divisor of the four parts
  EXPECT_THROW(kvStripingOf(1, 256, 1, 0), Error);
  try {
    kvStripingOf(2, 256, 2, 2);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("one kv head per token"), std::string::npos) << e.what();
  }
}

TEST(KvStriping, ReadsWiderThanAttentionsTokenAreWholeTokensOfIt) {
  // Qwen2.5-0.5B: attention takes one kv head (a bus word) per token; the DMAs read both.
  const KvStriping qwen = kvReadStripingOf(2, 64, 1, 1, 2);
  EXPECT_EQ(qwen.cacheLanes, 128);
  EXPECT_EQ(qwen.slices, 2);
  EXPECT_EQ(qwen.chunks, 1);
  // Gemma 3 1B: attention takes half its head per token, the DMAs the whole head.
  const KvStriping gemma = kvReadStripingOf(1, 256, 1, 2, 1);
  EXPECT_EQ(gemma.cacheLanes, 256);
  EXPECT_EQ(gemma.slices, 4);
  // 0: attention's own token.
  EXPECT_EQ(kvReadStripingOf(16, 64, 8, 1, 0).cacheLanes, 512);
  EXPECT_EQ(kvReadStripingOf(2, 12, 0, 1, 2).cacheLanes, 24); // the unstriped 4-code tokens
  EXPECT_THROW(kvReadStripingOf(4, 64, 1, 1, 3), Error);      // not a divisor of the kv heads
  try {
    kvReadStripingOf(4, 64, 2, 1, 1); // narrower than attention's two heads
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("a whole number of attention's 128-code tokens"),
              std::string::npos)
        << e.what();
  }
}

TEST(KvStriping, OddHeadDimsTakeTheLargestDivisorPerWord) {
  // gpt2_tiny: 4 heads of 12; all heads per token: four 12-code parts.
  const KvStriping s = kvStripingOf(4, 12, 4);
  EXPECT_EQ(s.cacheLanes, 48);
  EXPECT_EQ(s.partCodes, 12);
  EXPECT_EQ(s.slices, 4);
  EXPECT_EQ(s.chunks, 1);
  // One head of 24 fits a word: not striped, the row packed as before.
  const KvStriping one = kvStripingOf(1, 24, 1);
  EXPECT_FALSE(one.striped());
  EXPECT_EQ(one.cacheLanes, 24);
  EXPECT_EQ(one.rowBytes, 64);
}

TEST(KvStriping, StepZeroIsTheUnstripedCache) {
  const KvStriping s = kvStripingOf(16, 64, 0);
  EXPECT_FALSE(s.striped());
  EXPECT_EQ(s.cacheLanes, 64);
  EXPECT_EQ(s.chunks, 16);
  EXPECT_EQ(s.rowBytes, 1024);
  EXPECT_EQ(kvStripingOf(2, 12, 0).cacheLanes, 4); // a power of two dividing the head
  EXPECT_EQ(kvSliceBufferName("block/attention.k_cache", 1, 0), "block/attention.k_cache");
  EXPECT_EQ(kvSliceBufferName("block/attention.k_cache", 8, 3), "block/attention.k_cache.s3");
}

TEST(KvStriping, KAndVSlicesTakeDistinctChannels) {
  for (int64_t slices : {2, 3, 4, 6, 8, 16}) {
    SCOPED_TRACE(slices);
    std::set<int64_t> used;
    for (bool value : {false, true})
      for (int64_t j = 0; j < slices; ++j) {
        const int64_t c = kvSliceChannel(j, slices, value, 32);
        EXPECT_GE(c, 0);
        EXPECT_LT(c, 32);
        EXPECT_TRUE(used.insert(c).second) << "channel " << c << " twice";
        if (j > 0) // one stride between consecutive slices (the append's address loop)
          EXPECT_EQ(c - kvSliceChannel(j - 1, slices, value, 32),
                    kvSliceChannel(1, slices, value, 32) - kvSliceChannel(0, slices, value, 32));
      }
  }
}

TEST(KvStriping, BlocksSpreadOverTheChannelsNextToTheirSlicesWithinAMiniSwitch) {
  // GPT-2 Medium (8 slices, 2 blocks): K slice j on 4j, its blocks on 4j and 4j + 1, V on 4j + 2
  // and 4j + 3; Qwen2.5-0.5B's position slices (2 slices, 2 blocks) and TinyLlama-1.1B's (4, 4).
  EXPECT_EQ(kvBlockChannels(8, 2, 32), 2);
  EXPECT_EQ(kvBlockChannels(2, 2, 32), 2);
  EXPECT_EQ(kvBlockChannels(4, 4, 32), 4);
  // More blocks than the spacing leaves, or than a mini-switch holds; one slice; one block.
  EXPECT_EQ(kvBlockChannels(8, 4, 32), 1);
  EXPECT_EQ(kvBlockChannels(2, 8, 32), 1);
  EXPECT_EQ(kvBlockChannels(16, 2, 32), 1);
  EXPECT_EQ(kvBlockChannels(1, 2, 32), 1);
  EXPECT_EQ(kvBlockChannels(8, 1, 32), 1);
  // A spacing that is not a power of two (32 / (2 x 5) = 3) could cross a mini-switch.
  EXPECT_EQ(kvBlockChannels(5, 2, 32), 1);
  // Every spread block stays in its slice's mini-switch, clear of the other cache's slices.
  for (int64_t slices : {2, 4, 8})
    for (int64_t blocks : {2, 4}) {
      const int64_t spread = kvBlockChannels(slices, blocks, 32);
      if (spread < 2)
        continue;
      std::set<int64_t> used;
      for (bool value : {false, true})
        for (int64_t j = 0; j < slices; ++j)
          for (int64_t b = 0; b < spread; ++b) {
            const int64_t c = kvSliceChannel(j, slices, value, 32) + b;
            EXPECT_EQ(c / 4, kvSliceChannel(j, slices, value, 32) / 4);
            EXPECT_TRUE(used.insert(c).second) << "channel " << c << " twice";
          }
    }
}

TEST(KvStriping, BadStepsAndTooManySlicesAreOneError) {
  EXPECT_THROW(kvStripingOf(4, 64, 3), Error);
  EXPECT_THROW(kvStripingOf(4, 64, -1), Error);
  EXPECT_THROW(kvSliceChannel(0, 17, false, 32), Error);
  try {
    kvStripingOf(16, 64, 5);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("divisor of the 16 kv heads"), std::string::npos)
        << e.what();
  }
}

/// 70 % of the U55C's kernel resources (compile's budget for the choice; constraints/u55c.yaml).
model::ResourceEstimate u55cShare70() {
  model::ResourceEstimate budget;
  budget.lut = 802368;
  budget.ff = 1604736;
  budget.dsp = 5863;
  budget.bram36 = 1243.2;
  budget.uram = 672;
  return budget;
}

/// The shapes of a full-size config (no weights).
frontend::LoadedModel configShapes(const std::string &name) {
  return frontend::loadModel(std::string(ST_CONFIG_DIR) + "/" + name,
                             frontend::WeightSource::ShapeOnly);
}

/// The choice for a full-size config at its default context (4096 positions), within `budget`.
plan::AttentionParallelism chosenFor(const std::string &config,
                                     const model::ResourceEstimate &budget = u55cShare70()) {
  const frontend::LoadedModel m = configShapes(config);
  AcceleratorOptions o;
  o.maxContext = 4096;
  return plan::chooseAttentionParallelism(m.program, o, budget);
}

/// Each st_width_converter of `g` with the KV read before it and the attention after it.
struct CacheReadPath {
  const ir::DataflowNode *converter, *read, *attention;
};
std::vector<CacheReadPath> cacheReadPaths(const AcceleratorGraph &g) {
  std::vector<CacheReadPath> paths;
  for (ir::NodeId n : g.dataflow.nodes()) {
    if (g.dataflow.node(n).module != "st_width_converter")
      continue;
    paths.push_back(
        {&g.dataflow.node(n),
         &g.dataflow.node(g.dataflow.stream(*g.dataflow.streamInto({n, 0})).src.node),
         &g.dataflow.node(g.dataflow.stream(g.dataflow.streamsFrom({n, 0}).at(0)).dst.node)});
  }
  return paths;
}

TEST(KvStepChoice, MostHeadsThatFitWithFewestPackedPairs) {
  const frontend::LoadedModel m = configShapes("gpt2-medium");
  AcceleratorOptions o;
  o.maxContext = 1024;
  // 70 % of the U55C's kernel resources: 8 of 16 heads (16 would need 78 kernel arguments),
  // within the DSPs unpacked (5,833 of 5,863).
  const model::ResourceEstimate budget = u55cShare70();
  const plan::AttentionParallelism chosen = plan::chooseAttentionParallelism(m.program, o, budget);
  EXPECT_EQ(chosen.kvStep, 8);
  EXPECT_EQ(chosen.packedPairs, 0);
  EXPECT_EQ(chosen.readStep, 0);  // 16 heads per read would need 78 kernel arguments
  EXPECT_TRUE(chosen.blockMajor); // two blocks of 8 heads, each read at attention's token
  // 100 DSPs fewer: one packed engine pair makes room.
  model::ResourceEstimate fewerDsps = budget;
  fewerDsps.dsp -= 100;
  EXPECT_EQ(plan::chooseAttentionParallelism(m.program, o, fewerDsps).kvStep, 8);
  EXPECT_EQ(plan::chooseAttentionParallelism(m.program, o, fewerDsps).packedPairs, 1);
  // DSPs to spare: no packing.
  model::ResourceEstimate roomy = budget;
  roomy.dsp = 100000;
  EXPECT_EQ(plan::chooseAttentionParallelism(m.program, o, roomy).kvStep, 8);
  EXPECT_EQ(plan::chooseAttentionParallelism(m.program, o, roomy).packedPairs, 0);
  // Fewer LUTs: fewer heads per token.
  model::ResourceEstimate narrow = roomy;
  narrow.lut = 700000;
  EXPECT_LT(plan::chooseAttentionParallelism(m.program, o, narrow).kvStep, 8);
  // Nothing fits: the unstriped cache; and the per-op design keeps it.
  model::ResourceEstimate tiny = budget;
  tiny.dsp = 100;
  EXPECT_EQ(plan::chooseAttentionParallelism(m.program, o, tiny).kvStep, 0);
  o.engine = LinearEngine::PerOp;
  EXPECT_EQ(plan::chooseAttentionParallelism(m.program, o, roomy).kvStep, 0);
}

TEST(KvStepChoice, PricesTheDesignAsTheReportDoes) {
  // Llama-3.2-1B at its default context: 2 of its 8 kv heads per token with 3 packed pairs, the
  // cache read 4 heads wide, fits 70 % of the U55C by the report's estimate (LUTs 799,564 of
  // 802,368). Pricing every DMA as a generic two-loop stream of whole words put even 2 heads per
  // token 9,000 LUTs over; pricing a one-token-per-word DMA's token select as a multiplexer
  // (512 LUTs that Yosys does not find) left no room for the wider read (783,130 without it).
  const plan::AttentionParallelism chosen = chosenFor("llama-3.2-1b");
  EXPECT_EQ(chosen.kvStep, 2);
  EXPECT_EQ(chosen.packedPairs, 3);
  EXPECT_EQ(chosen.readStep, 4);
}

TEST(KvStepChoice, FourPositionSlicesWhereTheyFitAndPredictAShorterStep) {
  // TinyLlama-1.1B: four slices fit 70 % of the U55C and predict a shorter step at 512 than two
  // (each slice channel carries a quarter of a pass's rows beside the engine's refill, not half).
  const plan::AttentionParallelism tiny = chosenFor("tinyllama-1.1b");
  EXPECT_EQ(tiny.kvStep, 1);
  EXPECT_EQ(tiny.positionSlices, 4);
  EXPECT_EQ(tiny.readStep, 0);
  EXPECT_TRUE(tiny.blockMajor);
  // One LUT short of the four-slice design: two slices.
  const frontend::LoadedModel m = configShapes("tinyllama-1.1b");
  AcceleratorOptions o;
  o.maxContext = 4096;
  tiny.applyTo(o);
  model::ResourceEstimate tight = u55cShare70();
  tight.lut = plan::designNeedsOf(m.program, o).resources.lut - 1;
  EXPECT_EQ(chosenFor("tinyllama-1.1b", tight).positionSlices, 2);
  // Qwen2.5-0.5B's four-slice design fits too, but its step is longer by prediction: two.
  const plan::AttentionParallelism qwen = chosenFor("qwen2.5-0.5b");
  EXPECT_EQ(qwen.positionSlices, 2);
  plan::AttentionParallelism qwenFour = qwen;
  qwenFour.positionSlices = 4;
  AcceleratorOptions q;
  q.maxContext = 4096;
  qwenFour.applyTo(q);
  const model::ResourceEstimate qwenFourNeeds =
      plan::designNeedsOf(configShapes("qwen2.5-0.5b").program, q).resources;
  EXPECT_LE(qwenFourNeeds.lut, u55cShare70().lut);
  EXPECT_LE(qwenFourNeeds.dsp, u55cShare70().dsp);
}

TEST(KvStepChoice, OneHeadPerTokenStripesItsPositionsWhereTheDmasFit) {
  // Qwen2.5-0.5B: two kv heads per token do not fit attention's LUTs; at one per token its
  // positions striped over two slices (two slice DMAs and a converter per cache) do, walked
  // block-major; the read two heads wide (wider reads) would fit too.
  const plan::AttentionParallelism chosen = chosenFor("qwen2.5-0.5b");
  EXPECT_EQ(chosen.kvStep, 1);
  EXPECT_EQ(chosen.positionSlices, 2);
  EXPECT_EQ(chosen.readStep, 0);
  EXPECT_TRUE(chosen.blockMajor);
  // Without the LUTs of the two slice DMAs and converters (a LUT budget between the design's
  // needs unstriped and striped): attention's own token, neither striping.
  const auto lutsWith = [](plan::AttentionParallelism p) {
    AcceleratorOptions q;
    q.maxContext = 4096;
    p.applyTo(q);
    return plan::designNeedsOf(configShapes("qwen2.5-0.5b").program, q).resources.lut;
  };
  plan::AttentionParallelism unstriped = chosen;
  unstriped.positionSlices = 0;
  unstriped.blockMajor = false;
  const double plainLuts = lutsWith(unstriped), stripedLuts = lutsWith(chosen);
  ASSERT_LT(plainLuts, stripedLuts);
  model::ResourceEstimate tight = u55cShare70();
  tight.lut = (plainLuts + stripedLuts) / 2;
  EXPECT_EQ(chosenFor("qwen2.5-0.5b", tight).kvStep, 1);
  EXPECT_EQ(chosenFor("qwen2.5-0.5b", tight).readStep, 0);
  EXPECT_EQ(chosenFor("qwen2.5-0.5b", tight).positionSlices, 0);
  // The lowering puts an st_width_converter between each cache's read and attention.
  const frontend::LoadedModel m = configShapes("qwen2.5-0.5b");
  AcceleratorOptions o;
  o.maxContext = 4096;
  o.attentionKvStep = 1;
  o.attentionReadStep = 2;
  const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
  const std::vector<CacheReadPath> wide = cacheReadPaths(g);
  EXPECT_EQ(wide.size(), 2u);
  for (const CacheReadPath &c : wide) {
    EXPECT_EQ(c.converter->param("InWidth"), 1024);
    EXPECT_EQ(c.converter->param("OutWidth"), 512);
    EXPECT_EQ(c.read->attributes.at(ir::kAttrKvSlices), 2);
    EXPECT_EQ(c.attention->module, "st_attention");
    EXPECT_EQ(c.attention->param("CacheLanes"), 64);
  }
  // Positions striped over four slices: a read token is four positions of one kv head, split
  // for attention, which walks block-major and drops the pad of ceil(cache_len / 4) tokens.
  o.attentionReadStep = 0;
  o.attentionBlockMajor = true;
  o.attentionPositionSlices = 4;
  o.sizingCacheLength = 9;
  const AcceleratorGraph p = buildAcceleratorGraph(m.program, o);
  const std::vector<CacheReadPath> striped = cacheReadPaths(p);
  EXPECT_EQ(striped.size(), 2u);
  for (const CacheReadPath &c : striped) {
    EXPECT_EQ(c.converter->param("InWidth"), 2048);
    EXPECT_EQ(c.converter->param("OutWidth"), 512);
    EXPECT_EQ(c.read->attributes.at(ir::kAttrKvSlices), 4);
    EXPECT_EQ(c.read->attributes.at(kAttrKvPositionSlices), 4);
    EXPECT_EQ(c.read->attributes.at(kAttrKvBlocks), 2);
    EXPECT_EQ(c.read->outputs.at(0).type.numTokens(), 2 * 3); // 2 blocks of ceil(9 / 4) tokens
    EXPECT_EQ(c.attention->param("CacheLanes"), 64);
    EXPECT_EQ(c.attention->param("BlockMajor"), 1);
    EXPECT_EQ(c.attention->param("CacheRound"), 4);
  }
}

TEST(KvStepChoice, AWideHeadSplitsWhenAWholeOneDoesNotFit) {
  // Gemma 3 1B (one kv head of 256 codes): the whole head per token (four slices) needs about
  // 900 k LUTs; half a head per token (two slices) fits with the packed pairs its DSPs need.
  const plan::AttentionParallelism chosen = chosenFor("gemma-3-1b");
  EXPECT_EQ(chosen.kvStep, 1);
  EXPECT_EQ(chosen.headSplit, 2);
  EXPECT_GT(chosen.packedPairs, 0);
  EXPECT_EQ(chosen.readStep, 1); // the DMAs read the whole head
  // Room for the whole head: no split.
  model::ResourceEstimate roomy = u55cShare70();
  roomy.lut *= 2;
  roomy.dsp *= 2;
  EXPECT_EQ(chosenFor("gemma-3-1b", roomy).headSplit, 1);
  EXPECT_EQ(chosenFor("gemma-3-1b", roomy).kvStep, 1);
}

TEST(KvStriping, BlockMajorLaysEachBlockOutAsOneRun) {
  // GPT-2 Medium at 8 heads per token: two blocks, a bus word per (block, position) in each of
  // the 8 slices; the same bytes per row as position-major.
  const KvStriping blocks = kvReadStripingOf(16, 64, 8, 1, 0, true);
  EXPECT_EQ(blocks.blocks, 2);
  EXPECT_EQ(blocks.slices, 8);
  EXPECT_EQ(blocks.rowBytes, 128);
  EXPECT_EQ(blocks.blockRowBytes(), 64);
  EXPECT_TRUE(kvBlockMajorApplies(16, 64, 8, 1, 0));
  EXPECT_TRUE(kvBlockMajorApplies(16, 64, 8, 1, 8)); // a read of attention's own token
  // One block, an unstriped cache, a wider read: position-major only, one error naming it.
  EXPECT_FALSE(kvBlockMajorApplies(16, 64, 16, 1, 0));
  EXPECT_FALSE(kvBlockMajorApplies(2, 64, 1, 1, 0));
  EXPECT_FALSE(kvBlockMajorApplies(8, 64, 2, 1, 4));
  EXPECT_FALSE(kvBlockMajorApplies(16, 64, 0, 1, 0));
  try {
    kvReadStripingOf(8, 64, 2, 1, 4, true);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("reads of attention's own token"), std::string::npos)
        << e.what();
  }
  // The lowering: st_attention's BlockMajor, the DMAs' blocks; the read walks block, (rows), word
  // and the append block, word, slice.
  const frontend::LoadedModel m = configShapes("gpt2-medium");
  AcceleratorOptions o;
  o.maxContext = 1024;
  o.attentionKvStep = 8;
  o.attentionBlockMajor = true;
  const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
  int checked = 0;
  for (ir::NodeId n : g.dataflow.nodes()) {
    const ir::DataflowNode &node = g.dataflow.node(n);
    if (node.module == "st_attention") {
      EXPECT_EQ(node.param("BlockMajor"), 1);
      ++checked;
    } else if (node.name == "block_rd_k_cache") {
      EXPECT_EQ(node.attributes.at(kAttrKvBlocks), 2);
      // A block's one chunk per position: no loop of one trip (the emitter adds the rows inside).
      const ir::HbmTensorLayout read = plan::stripedKvPortLayouts(node, 0, 65536).at(0);
      ASSERT_EQ(read.loops.size(), 1u);
      EXPECT_EQ(read.loops[0].tripCount, 2);
      EXPECT_EQ(read.loops[0].strideBytes, 65536);
      EXPECT_EQ(read.runs, 2);
      ++checked;
    } else if (node.name == "block_wr_v_cache") {
      const ir::HbmTensorLayout append = plan::stripedKvPortLayouts(node, 4096, 65536).at(0);
      ASSERT_EQ(append.loops.size(), 3u);
      EXPECT_EQ(append.loops[0].tripCount, 2);
      EXPECT_EQ(append.loops[0].strideBytes, 65536);
      EXPECT_EQ(append.loops[1].tripCount, 8);
      EXPECT_EQ(append.loops[1].strideBytes, 4096);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
}

TEST(KvStriping, StripedCacheDmasHaveAMasterPerSlice) {
  const frontend::LoadedModel m = configShapes("gpt2-medium");
  AcceleratorOptions o;
  o.maxContext = 1024;
  o.attentionKvStep = 8; // 512-code tokens, 8 slices of 64 codes, 2 chunks per row
  const AcceleratorGraph g = buildAcceleratorGraph(m.program, o);
  int checked = 0;
  for (ir::NodeId n : g.dataflow.nodes()) {
    const ir::DataflowNode &node = g.dataflow.node(n);
    if (node.name == "block_rd_k_cache") {
      const std::vector<ir::HbmTensorLayout> ports = plan::stripedKvPortLayouts(node, 0);
      ASSERT_EQ(ports.size(), 8u);
      EXPECT_EQ(ports[3].tokenBits, 64 * 8);
      EXPECT_EQ(ports[3].runs, 2);
      ++checked;
    } else if (node.name == "block_wr_v_cache") {
      const std::vector<ir::HbmTensorLayout> ports = plan::stripedKvPortLayouts(node, 4096);
      ASSERT_EQ(ports.size(), 1u);
      EXPECT_EQ(ports[0].runs, 2 * 8); // a word per chunk and slice
      EXPECT_EQ(ports[0].loops.at(1).strideBytes, 4096);
      ++checked;
    } else if (node.name == "block_rd_attn_norm_param") {
      EXPECT_THROW(plan::stripedKvPortLayouts(node, 0), Error); // not a striped cache
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
}

TEST(KvStriping, PositionsStripedOverSlicesReadSeveralPositionsOfOneBlockPerToken) {
  // TinyLlama-1.1B: 4 kv heads of 64, positions over 4 slices: a read token is 4 positions of
  // one head (a word of each slice), a slice row one word per block.
  const KvStriping t = kvPositionStripingOf(4, 64, 4);
  EXPECT_EQ(t.cacheLanes, 256);
  EXPECT_EQ(t.slices, 4);
  EXPECT_EQ(t.positionSlices, 4);
  EXPECT_EQ(t.partCodes, 64);
  EXPECT_EQ(t.blocks, 4);
  EXPECT_EQ(t.chunks, 4);
  EXPECT_EQ(t.rowBytes, 256);
  EXPECT_EQ(t.blockRowBytes(), 64);
  EXPECT_TRUE(t.striped());
  EXPECT_TRUE(t.blockMajor());
  EXPECT_EQ(kvStripingOf(4, 64, 1).positionSlices, 1);
  EXPECT_THROW(kvPositionStripingOf(1, 64, 2), Error);  // one block
  EXPECT_THROW(kvPositionStripingOf(2, 128, 2), Error); // a head of two words
  try {
    kvPositionStripingOf(2, 64, 3);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("a power of two from 2 to 16"), std::string::npos)
        << e.what();
  }
}

/// `config`'s options at `maxContext` with the attention parallelism compile chooses.
AcceleratorOptions chosenOptions(const frontend::LoadedModel &m, int64_t maxContext) {
  AcceleratorOptions o;
  o.maxContext = maxContext;
  plan::chooseAttentionParallelism(m.program, o, u55cShare70()).applyTo(o);
  return o;
}

TEST(EngineFifoChoice, TheDeeperFifoOnlyWhereItShortensTheStep) {
  // Qwen2.5-0.5B: 8,192 words per channel predict a shorter step at 512 (180,117 cycles against
  // 181,251), within 70 % of the URAMs; with fewer URAMs, 4,096.
  const frontend::LoadedModel qwen = configShapes("qwen2.5-0.5b");
  const AcceleratorOptions q = chosenOptions(qwen, 4096);
  EXPECT_EQ(plan::chooseEngineFifoWords(qwen.program, q, {4096, 8192}, u55cShare70()), 8192);
  model::ResourceEstimate fewUrams = u55cShare70();
  fewUrams.uram = 400;
  EXPECT_EQ(plan::chooseEngineFifoWords(qwen.program, q, {4096, 8192}, fewUrams), 4096);
  // GPT-2 Medium: the deeper FIFO's refill slows its K/V passes (150,917 against 149,848).
  const frontend::LoadedModel gpt2 = configShapes("gpt2-medium");
  EXPECT_EQ(plan::chooseEngineFifoWords(gpt2.program, chosenOptions(gpt2, 1024), {4096, 8192},
                                        u55cShare70()),
            4096);
  EXPECT_EQ(plan::engineFifoChoiceContext(4096), 512);
  EXPECT_EQ(plan::engineFifoChoiceContext(64), 64);
}

TEST(AttentionTileChoice, OnePassWhereItAppliesFitsAndShortensTheStep) {
  // GPT-2 Medium (block-major over tokens of 8 whole kv heads): one pass in tiles of 128, whose
  // step at 512 is shorter than the two-pass form's; tiles of 64 (shorter than a merge of its
  // 64-code heads and the pipeline) are not weighed; within a budget the one-pass design
  // exceeds (its LUTs), two passes.
  const frontend::LoadedModel gpt2 = configShapes("gpt2-medium");
  AcceleratorOptions g = chosenOptions(gpt2, 1024);
  ASSERT_TRUE(g.attentionBlockMajor);
  EXPECT_TRUE(plan::attentionOnePassAppliesTo(gpt2.program, g));
  EXPECT_EQ(plan::chooseAttentionTile(gpt2.program, g, {0, 64, 128, 256}, u55cShare70()), 128);
  AcceleratorOptions onePass = g;
  onePass.attentionTilePositions = 128;
  EXPECT_LT(plan::choiceContextCycles(gpt2.program, onePass),
            plan::choiceContextCycles(gpt2.program, g));
  model::ResourceEstimate tight = u55cShare70();
  tight.lut = plan::designNeedsOf(gpt2.program, onePass).resources.lut - 1;
  ASSERT_GE(tight.lut, plan::designNeedsOf(gpt2.program, g).resources.lut);
  EXPECT_EQ(plan::chooseAttentionTile(gpt2.program, g, {0, 64, 128, 256}, tight), 0);
  // Llama-3.2-1B walks position-major (its reads are wider than attention's token): no one pass.
  const frontend::LoadedModel llama = configShapes("llama-3.2-1b");
  const AcceleratorOptions l = chosenOptions(llama, 4096);
  EXPECT_FALSE(plan::attentionOnePassAppliesTo(llama.program, l));
  EXPECT_EQ(plan::chooseAttentionTile(llama.program, l, {0, 64, 128, 256}, u55cShare70()), 0);
}

} // namespace
} // namespace st::llm
