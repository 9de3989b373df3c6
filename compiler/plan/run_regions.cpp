// The run regions in the HBM image plan: the tokens and tap buffers, and the run layout read
// back from a plan (see run_regions.h).
#include "plan/run_regions.h"

#include "numerics/embedding.h"
#include "support/error.h"
#include "support/int_math.h"

namespace st::plan {

namespace {

const char *const kTokensName = "run/tokens";
const char *const kTokensKind = "run_tokens";
const char *const kTapKind = "run_tap";

std::string tapName(const llm::TapSpec &tap) {
  return tap.stage + "/" + tap.op + ".tap";
}

const ir::DecodeStage &stageOf(const ir::DecodeProgram &program, const llm::TapSpec &tap) {
  for (const ir::DecodeStage &stage : program.stages)
    if (stage.name == tap.stage)
      return stage;
  throw Error("run taps", "tap '" + tap.stage + "/" + tap.op + "'",
              "a stage of the decode program");
}

const ir::DecodeStage &stageNamed(const ir::DecodeProgram &program, const std::string &name) {
  for (const ir::DecodeStage &stage : program.stages)
    if (stage.name == name)
      return stage;
  throw Error("run layout", "stage '" + name + "'", "a stage of the decode program");
}

/// The tap's region without its address: length, bits, rows per step, row bytes.
llm::TapRegion tapShape(const ir::DecodeProgram &program, const frontend::QuantizedModel &model,
                        const llm::TapSpec &tap, int64_t maxSteps) {
  const ir::DecodeStage &stage = stageOf(program, tap);
  const ir::TensorGraph &g = stage.graph;
  for (ir::OpId o = 0; o < g.numOps(); ++o) {
    const ir::Op &op = g.op(o);
    if (op.name != tap.op)
      continue;
    llm::TapRegion r;
    r.stage = tap.stage;
    r.op = tap.op;
    r.name = tapName(tap);
    r.length = g.tensor(op.output.tensor).numElements();
    r.bits = model.op(tap.stage, 0, tap.op).outputBits;
    for (int64_t run = 1; run < stage.repeat; ++run)
      if (model.op(tap.stage, run, tap.op).outputBits != r.bits)
        throw Error("run taps", "tap '" + r.stage + "/" + r.op + "'",
                    "one code width in every run, got " + std::to_string(r.bits) + " and " +
                        std::to_string(model.op(tap.stage, run, tap.op).outputBits));
    if (r.bits != 8 && r.bits != 16 && r.bits != 32)
      throw Error("run taps", "tap '" + r.stage + "/" + r.op + "'",
                  "codes of 8, 16 or 32 bits, got " + std::to_string(r.bits));
    r.rowsPerStep = stage.repeat;
    r.paddedLength = std::max(r.length, tap.codes);
    r.rowBytes =
        roundUp(static_cast<uint64_t>(r.paddedLength) * r.bits / 8, numerics::kHbmWordBytes);
    r.maxSteps = maxSteps;
    return r;
  }
  throw Error("run taps", "tap '" + tap.stage + "/" + tap.op + "'",
              "an op of stage '" + tap.stage + "'");
}

const HbmBuffer &bufferNamed(const HbmImagePlan &plan, const std::string &name,
                             const std::string &kind) {
  for (const HbmBuffer &b : plan.buffers)
    if (b.name == name && b.kind == kind)
      return b;
  throw Error("run layout", "buffer '" + name + "'",
              "a " + kind + " buffer in the HBM plan (plan::addRunRegions)");
}

} // namespace

void addRunRegions(HbmImagePlan &plan, const ir::DecodeProgram &program,
                   const frontend::QuantizedModel &model, const std::vector<llm::TapSpec> &taps,
                   int64_t tapRingBytes) {
  HbmBuffer tokens;
  tokens.name = kTokensName;
  tokens.kind = kTokensKind;
  tokens.stage = "run";
  tokens.op = "tokens";
  tokens.rowBytes = llm::kTokenRowBytes;
  tokens.layerBytes = plan.maxContext * llm::kTokenRowBytes;
  tokens.format = "generated token ids, u32 little endian, one per 64-byte row (up to " +
                  std::to_string(plan.maxContext) + ")";
  addRunBuffer(plan, tokens);
  for (const llm::TapSpec &tap : taps) {
    llm::TapRegion r = tapShape(program, model, tap, plan.maxContext);
    // The whole context's rows, or a ring of the last 2^k steps that fits tapRingBytes.
    const int64_t stepBytes = r.rowsPerStep * static_cast<int64_t>(r.rowBytes);
    if (plan.maxContext * stepBytes > tapRingBytes) {
      r.maxSteps = 1;
      while (2 * r.maxSteps * stepBytes <= tapRingBytes)
        r.maxSteps *= 2;
      r.ring = true;
    }
    HbmBuffer b;
    b.name = r.name;
    b.kind = kTapKind;
    b.stage = r.stage;
    b.op = r.op;
    b.rowBytes = static_cast<int64_t>(r.rowBytes);
    b.paddedCodes = r.paddedLength > r.length ? r.paddedLength : 0;
    b.layerBytes = r.maxSteps * r.rowsPerStep * b.rowBytes;
    b.ringSteps = r.ring ? r.maxSteps : 0;
    const std::string row = r.ring ? "(t mod " + std::to_string(r.maxSteps) + ")" : "t";
    b.format =
        std::to_string(r.length) + " s" + std::to_string(r.bits) + " codes per row" +
        (r.paddedLength > r.length ? " and " + std::to_string(r.paddedLength - r.length) +
                                         " padding codes (the most "
                                         "negative code)"
                                   : std::string()) +
        ", packed little endian, zero padded to " + std::to_string(r.rowBytes) + " bytes; " +
        (r.perLayer() ? "row " + row + " * " + std::to_string(r.rowsPerStep) + " + layer for step t"
                      : "row " + row + " for step t") +
        (r.ring ? " (the last " + std::to_string(r.maxSteps) + " steps)" : "");
    addRunBuffer(plan, b);
  }
}

llm::RunLayout runLayoutOf(const HbmImagePlan &plan, const ir::DecodeProgram &program,
                           const frontend::QuantizedModel &model,
                           const std::vector<llm::TapSpec> &taps) {
  llm::RunLayout layout;
  layout.maxContext = plan.maxContext;
  for (const ir::DecodeStage &stage : program.stages)
    layout.stages.push_back({stage.name, stage.repeat});
  const HbmBuffer &tokens = bufferNamed(plan, kTokensName, kTokensKind);
  layout.tokensAddress = static_cast<uint64_t>(tokens.address);
  layout.tokensStride = static_cast<uint64_t>(tokens.rowBytes);
  layout.tokensCapacity = tokens.layerBytes / tokens.rowBytes;
  for (const HbmBuffer &b : plan.buffers) {
    if (b.kind != "k_cache" && b.kind != "v_cache")
      continue;
    llm::KvRegion r;
    r.stage = b.stage;
    r.op = b.op;
    r.kind = b.kind;
    r.name = b.name;
    r.layers = b.layers;
    r.address = static_cast<uint64_t>(b.address);
    r.layerStride = static_cast<uint64_t>(b.layerStride);
    r.rowBytes = static_cast<uint64_t>(b.rowBytes);
    r.rows = plan.maxContext;
    r.appendOp = llm::kvAppendOp(stageNamed(program, b.stage), b.op, b.kind);
    r.width = static_cast<int64_t>(
        model.get<frontend::QuantizedAttentionOp>(b.stage, 0, b.op).shape.kvSize());
    r.slices = b.kvSlices;
    r.slice = b.kvSlice;
    r.partCodes = b.kvPartCodes;
    r.positionSlices = b.kvPositionSlices;
    if (r.positionSlices > 1)
      r.rows = plan.maxContext / r.positionSlices;
    // Codes a row holds: every slice's part of each word, or (positions striped) a kv head a word.
    const uint64_t partsPerWord =
        static_cast<uint64_t>(r.positionSlices > 1 ? r.partCodes : r.slices * r.partCodes);
    const uint64_t held =
        r.slices > 1 ? r.rowBytes / llm::kTokenRowBytes * partsPerWord : r.rowBytes;
    if (r.rowBytes == 0 || static_cast<uint64_t>(r.width) > held ||
        (r.slices > 1 && static_cast<uint64_t>(r.width) != held))
      throw Error("run layout", "buffer '" + b.name + "'",
                  "rows holding " + std::to_string(r.width) + " codes");
    // A block-major slice: a region per kv-head block, each a row per position of its chunks.
    r.blocks = b.kvBlocks;
    if (r.blocks > 1 &&
        (r.slices < 2 || r.rowBytes % (static_cast<uint64_t>(r.blocks) *
                                       static_cast<uint64_t>(llm::kTokenRowBytes)) !=
                             0))
      throw Error("run layout", "buffer '" + b.name + "'",
                  "kv-head blocks of whole bus words of a striped row, got " +
                      std::to_string(r.blocks));
    r.rowBytes /= static_cast<uint64_t>(r.blocks);
    for (int64_t block = 0; block < r.blocks; ++block) {
      llm::KvRegion region = r;
      region.block = block;
      region.address += static_cast<uint64_t>(block * b.kvBlockStride());
      layout.kv.push_back(region);
    }
  }
  for (llm::TapSpec tap : taps) {
    // The image says how many codes the design writes per row (an engine's padded rows).
    const HbmBuffer &b = bufferNamed(plan, tapName(tap), kTapKind);
    tap.codes = std::max(tap.codes, b.paddedCodes);
    llm::TapRegion r = tapShape(program, model, tap, plan.maxContext);
    if (b.ringSteps > 0) {
      r.maxSteps = b.ringSteps;
      r.ring = true;
    }
    if (static_cast<uint64_t>(b.rowBytes) != r.rowBytes ||
        b.layerBytes < r.maxSteps * r.rowsPerStep * b.rowBytes)
      throw Error("run layout", "buffer '" + b.name + "'",
                  std::to_string(r.maxSteps * r.rowsPerStep) + " rows of " +
                      std::to_string(r.rowBytes) + " bytes");
    r.address = static_cast<uint64_t>(b.address);
    layout.taps.push_back(r);
  }
  return layout;
}

} // namespace st::plan
