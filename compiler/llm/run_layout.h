// Run layout: where, in HBM, the LLM accelerator leaves what a decode run produced
// (docs/accelerator.md §4), so that the compiler can check it bit for bit against the golden
// model. Three kinds of region:
//   - tokens: the N generated ids, u32 little endian, back to back;
//   - the KV caches of the HBM image (k_cache / v_cache buffers, layer l at address +
//     l * layer_stride, row p at p * RowBytes, s8 codes kv head, then dim): after a run of T
//     steps rows 0 .. T-1 hold each step's appended k / v, the other rows are still zero;
//   - taps: debug streams the top writes, one row per step (a stage run once per step, e.g. the
//     logits) or one row per (step t, run l) at row t * runs + l (the block's output per layer).
//     A row holds the op's output codes packed little endian at exactly `bits` bits each (8, 16
//     or 32), zero padded to RowBytes (a multiple of 64).
// The tap list is data (TapSpec), not code. addRunRegions places the tokens and tap buffers in
// the image plan (gen::addRunBuffer); runLayoutOf reads every region back from a plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/quantized_model.h"
#include "gen/hbm_image.h"
#include "ir/decode_program.h"

namespace st::llm {

/// One op whose output codes the design writes to HBM at every step (and run).
struct TapSpec {
  std::string stage, op;
};

/// The default taps: the output ops of every stage run more than once per step (the block's
/// x_next, one row per layer) and the op producing the program's logits, in program order.
std::vector<TapSpec> defaultRunTaps(const ir::DecodeProgram &program);

/// A tap's HBM region: `rowsPerStep` rows per step (the stage's runs), row (t, run) at
/// address + (t * rowsPerStep + run) * rowBytes, for `maxSteps` steps.
struct TapRegion {
  std::string stage, op;
  std::string name;        ///< the HBM buffer's name, "<stage>/<op>.tap"
  int64_t length = 0;      ///< codes per row
  unsigned bits = 16;      ///< bits per code: 8, 16 or 32
  int64_t rowsPerStep = 1; ///< the stage's runs per step (1: one row per step)
  uint64_t address = 0;
  uint64_t rowBytes = 0;
  int64_t maxSteps = 0;
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
  int64_t tokensCapacity = 0; ///< ids the tokens region holds (maxContext)
  std::vector<KvRegion> kv;   ///< in program order, K before V of each attention op
  std::vector<TapRegion> taps;
};

/// Adds the run buffers to `plan` (made by gen::planHbmImage for `program` / `model`): the
/// tokens region "run/tokens" (kind run_tokens, plan.maxContext u32 ids) and one buffer
/// "<stage>/<op>.tap" (kind run_tap) per tap, maxContext * runs rows. Throws st::Error naming
/// the tap for an unknown stage or op or a code width other than 8, 16 or 32.
void addRunRegions(gen::HbmImagePlan &plan, const ir::DecodeProgram &program,
                   const frontend::QuantizedModel &model, const std::vector<TapSpec> &taps);

/// Reads the run layout from a plan that addRunRegions has extended. Throws st::Error naming
/// the buffer when the plan lacks the tokens region or a tap.
RunLayout runLayoutOf(const gen::HbmImagePlan &plan, const ir::DecodeProgram &program,
                      const frontend::QuantizedModel &model, const std::vector<TapSpec> &taps);

} // namespace st::llm
