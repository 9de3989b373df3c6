// Run layout: where, in HBM, the LLM accelerator leaves what a decode run produced
// (docs/accelerator.md §4), so that the compiler can check it bit for bit against the golden
// model. Three kinds of region:
//   - tokens: the N generated ids, u32 little endian, one per 64-byte row (the token write DMA
//     writes one bus word per id);
//   - the KV caches of the HBM image (k_cache / v_cache buffers, layer l at address +
//     l * layer_stride, row p at p * RowBytes, s8 codes kv head, then dim; a striped cache's
//     slices each hold their part of every row, KvRegion): after a run of T steps rows
//     0 .. T-1 hold each step's appended k / v, the other rows are still zero;
//   - taps: debug streams the top writes, one row per step (a stage run once per step, e.g. the
//     logits) or one row per (step t, run l) at row t * runs + l (the block's output per layer).
//     A tap whose rows for the whole context would exceed kTapRingBytes (a 262,144-entry logits
//     row at 4096 steps is 2 GB) is a ring of the last R steps (R a power of two): step t at
//     row (t mod R) * runs + l; a run longer than R is checked on its last R steps.
//     A row holds the op's output codes packed little endian at exactly `bits` bits each (8, 16
//     or 32), zero padded to RowBytes (a multiple of 64).
// The tap list is data (TapSpec), not code. plan/run_regions places the tokens and tap buffers
// in the image plan (plan::addRunRegions) and reads every region back from a plan
// (plan::runLayoutOf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/decode_program.h"

namespace st::llm {

/// Bytes between two generated ids in the tokens region: one AXI bus word each.
inline constexpr int64_t kTokenRowBytes = 64;

/// One op whose output codes the design writes to HBM at every step (and run).
struct TapSpec {
  std::string stage, op;
  /// Codes the design writes per row when more than the op's (an engine call's padded rows,
  /// the LM head of an odd vocabulary): the extra codes are the most negative code. 0: the op's.
  int64_t codes = 0;
};

/// The default taps: the output ops of every stage run more than once per step (the block's
/// x_next, one row per layer) and the op producing the program's logits, in program order.
std::vector<TapSpec> defaultRunTaps(const ir::DecodeProgram &program);

/// Most bytes a tap buffer takes before it becomes a ring of the last steps.
inline constexpr int64_t kTapRingBytes = int64_t(256) << 20;

/// A tap's HBM region: `rowsPerStep` rows per step (the stage's runs), row (t, run) at
/// address + ((t mod maxSteps) * rowsPerStep + run) * rowBytes: `maxSteps` is the context, or
/// the ring's steps when the tap keeps only the last ones.
struct TapRegion {
  std::string stage, op;
  std::string name;         ///< the HBM buffer's name, "<stage>/<op>.tap"
  int64_t length = 0;       ///< codes per row
  int64_t paddedLength = 0; ///< codes the design writes per row (>= length; the rest are the
                            ///< most negative code)
  unsigned bits = 16;       ///< bits per code: 8, 16 or 32
  int64_t rowsPerStep = 1;  ///< the stage's runs per step (1: one row per step)
  uint64_t address = 0;
  uint64_t rowBytes = 0;
  int64_t maxSteps = 0;
  bool ring = false; ///< maxSteps < the context: older steps are overwritten
  bool perLayer() const { return rowsPerStep > 1; }
};

/// One KV-cache buffer of the image (kind k_cache or v_cache).
struct KvRegion {
  std::string stage, op; ///< the attention op
  std::string kind;      ///< "k_cache" or "v_cache"
  std::string name;      ///< the HBM buffer's name, e.g. "block/attention.k_cache"
  int64_t layers = 0;
  uint64_t address = 0, layerStride = 0, rowBytes = 0;
  int64_t rows = 0;  ///< max context
  int64_t width = 0; ///< s8 codes per row (kv heads x head dim)
  /// The op whose output codes step t appends as row t (the attention op's k or v input, e.g.
  /// rope_k or v_proj): kvAppendOp.
  std::string appendOp;
  /// A slice of a striped cache (llm/kv_striping.h; the buffer "<cache>.s<slice>"): its row holds,
  /// for each chunk c of the full row, codes (c * slices + slice) * partCodes .. + partCodes in
  /// bus word c. slices 1: the whole row, packed.
  int64_t slices = 1, slice = 0, partCodes = 0;
  /// A block-major slice (plan::HbmBuffer::kvBlocks) is one region per kv-head block: this one
  /// (`address` its start) holds the chunks block * chunks / blocks .. of every row, a row of
  /// rowBytes. blocks 1: the whole row.
  int64_t blocks = 1, block = 0;
  /// Positions striped over the slices (plan::HbmBuffer::kvPositionSlices): region row i holds
  /// position i * positionSlices + slice, each row one bus word of kv head `block` (rows =
  /// max context / positionSlices). 1: row i is position i.
  int64_t positionSlices = 1;
  /// Does the region hold position p's row?
  bool holds(int64_t p) const { return positionSlices < 2 || p % positionSlices == slice; }
  /// The position region row i holds.
  int64_t positionOf(int64_t i) const {
    return positionSlices < 2 ? i : i * positionSlices + slice;
  }
};

/// The op of `stage` whose output the attention op `attentionOp` appends to its `kind`
/// ("k_cache" or "v_cache") cache: the producer of its k (input 1) or v (input 2). Throws
/// st::Error naming the op when there is no such attention op or the input has no producer.
std::string kvAppendOp(const ir::DecodeStage &stage, const std::string &attentionOp,
                       const std::string &kind);

struct RunLayout {
  /// The program's stages in order with their runs per step: the check's order within a step.
  struct StageRuns {
    std::string name;
    int64_t runs = 1;
  };
  std::vector<StageRuns> stages;
  int64_t maxContext = 0; ///< rows of every KV cache; steps of a run are at most this
  uint64_t tokensAddress = 0;
  uint64_t tokensStride = kTokenRowBytes; ///< generated id k at tokensAddress + k * stride
  int64_t tokensCapacity = 0;             ///< ids the tokens region holds (maxContext)
  std::vector<KvRegion> kv;               ///< in program order, K before V of each attention op
  std::vector<TapRegion> taps;
};

} // namespace st::llm
