// Stage lowering: a DecodeProgram stage graph onto the LLM kernel templates (see
// stage_lowering.h).
#include "llm/stage_lowering.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "frontend/quantized_model.h"
#include "ir/hbm_layout.h"
#include "llm/kv_striping.h"
#include "model/kernel_templates.h"
#include "model/llm_kernel_catalog.h"
#include "model/llm_kernel_params.h"
#include "support/error.h"

namespace st::llm {

namespace {

using ir::DataflowNode;
using ir::ITensorType;
using ir::NodeKind;
using ir::Op;
using ir::TensorId;
using ir::TensorRole;

/// Width of the position sideband of st_rope.
constexpr int64_t kPositionBits = 32;

std::string where(const ir::DecodeStage &stage, const std::string &what) {
  return "stage '" + stage.name + "' " + what;
}

std::string elementTypeOfBits(unsigned bits) {
  return "i" + std::to_string(bits);
}

/// A vector of `length` codes streamed `lanes` at a time.
ITensorType vectorType(int64_t length, int64_t lanes, unsigned bits) {
  ITensorType t;
  t.elementShape = {lanes};
  t.elementType = elementTypeOfBits(bits);
  t.loops = {{length / lanes, lanes}};
  t.iterMap = {0u};
  t.verify();
  return t;
}

/// `rows` records of `bytes` bytes each, streamed `rowsPerToken` records per token (weight words,
/// norm parameter records, KV-cache rows).
ITensorType recordType(int64_t rows, int64_t bytes, int64_t rowsPerToken = 1,
                       int64_t bytesPerToken = 0) {
  if (bytesPerToken == 0)
    bytesPerToken = bytes;
  ITensorType t;
  t.elementShape = {rowsPerToken, bytesPerToken};
  t.elementType = "i8";
  t.loops = {{rows / rowsPerToken, rowsPerToken}};
  t.iterMap = {0u, std::nullopt};
  if (bytesPerToken != bytes) {
    t.loops.push_back({bytes / bytesPerToken, bytesPerToken});
    t.iterMap = {0u, 1u};
  }
  t.verify();
  return t;
}

int64_t largestPowerOfTwoDividing(int64_t n, int64_t limit) {
  int64_t p = 1;
  while (p * 2 <= limit && n % (p * 2) == 0)
    p *= 2;
  return p;
}

/// What a consumer port requires of a streamed tensor's code width, if anything: a GEMV reads
/// A-bit codes, the attention kernel s8, the embedding gather a 32-bit index.
std::optional<unsigned> bitsRequiredBy(const Op &consumer, unsigned activationBits) {
  if (std::holds_alternative<ir::LinearAttrs>(consumer.llm))
    return activationBits;
  if (std::holds_alternative<ir::AttentionAttrs>(consumer.llm))
    return 8u;
  if (std::holds_alternative<ir::EmbeddingAttrs>(consumer.llm))
    return 32u;
  return std::nullopt;
}

/// The code width of every streamed tensor: an op's output by the one per-edge rule
/// (frontend::outputCodeBits), an exchanged stage input as its producer stage writes it (the
/// s16 residual stream; 32-bit token and position). Checks that every consumer gets the width
/// its kernel reads.
std::map<std::string, unsigned> codeBitsOf(const ir::DecodeStage &stage,
                                           numerics::Precision precision) {
  const ir::TensorGraph &g = stage.graph;
  std::map<std::string, unsigned> bits;
  for (TensorId t = 0; t < g.numTensors(); ++t) {
    const ir::TensorInfo &info = g.tensor(t);
    if (info.role == TensorRole::Constant || info.role == TensorRole::State)
      continue;
    auto p = g.producer(t);
    const unsigned b = p ? frontend::outputCodeBits(g, *p, precision)
                         : (info.shape == std::vector<int64_t>{1} ? 32u : 16u);
    for (ir::OpId c : g.consumers(t)) {
      const Op &op = g.op(c);
      // A runtime scalar read as a sideband (RoPE and attention positions) is not a stream.
      if (info.shape == std::vector<int64_t>{1} &&
          !std::holds_alternative<ir::EmbeddingAttrs>(op.llm))
        continue;
      const auto need = bitsRequiredBy(op, numerics::activationBitsOf(precision));
      if (need && *need != b)
        throw Error("lowering", where(stage, "tensor '" + info.name + "'"),
                    std::to_string(*need) + "-bit codes for '" + op.name + "', got " +
                        std::to_string(b));
    }
    bits[info.name] = b;
  }
  return bits;
}

/// Number of distinct RoPE variants (bases or frequency sets) an op takes over the stage's runs.
int64_t ropeVariants(const ir::DecodeStage &stage, const Op &op) {
  std::set<std::vector<double>> variants;
  variants.insert(ir::ropeInverseFrequencies(std::get<ir::RopeAttrs>(op.llm)));
  for (const ir::LayerBinding &b : stage.bindings) {
    auto it = b.attributes.find(op.name);
    if (it != b.attributes.end())
      if (auto *r = std::get_if<ir::RopeAttrs>(&it->second))
        variants.insert(ir::ropeInverseFrequencies(*r));
  }
  return static_cast<int64_t>(variants.size());
}

class StageLowerer {
public:
  StageLowerer(const ir::DecodeStage &stage, const StageLoweringOptions &o)
      : stage_(stage), g_(stage.graph), o_(o) {
    out_.lanes = stageLanes(stage, o.maxLanes, o.gemvEngine);
    out_.codeBits = codeBitsOf(stage, o.precision);
    out_.dataflow.source = &g_;
  }

  LoweredStage run() {
    for (ir::OpId id : g_.topologicalOrder())
      lowerOp(id);
    for (TensorId t = 0; t < g_.numTensors(); ++t)
      if (g_.tensor(t).role == TensorRole::Output)
        addStageOutput(t);
    return std::move(out_);
  }

private:
  ir::DataflowGraph &df() { return out_.dataflow; }
  const ir::TensorInfo &tensor(TensorId t) const { return g_.tensor(t); }
  unsigned bits(TensorId t) const { return out_.codeBits.at(tensor(t).name); }
  /// Codes streamed for tensor `t`: its elements, or a GEMV engine call's padded rows.
  int64_t length(TensorId t) const {
    auto padded = paddedLength_.find(t);
    return padded != paddedLength_.end() ? padded->second : tensor(t).numElements();
  }
  ITensorType vectorOf(TensorId t) const {
    if (length(t) > 1 && length(t) % out_.lanes != 0)
      throw Error("lowering", where(stage_, "tensor '" + tensor(t).name + "'"),
                  "a length that " + std::to_string(out_.lanes) + " lanes divide, got " +
                      std::to_string(length(t)));
    return vectorType(length(t), length(t) == 1 ? 1 : out_.lanes, bits(t));
  }

  /// Connects the stream of tensor `t` (its producer's output, or a stage-input DMA) to `dst`.
  void feed(TensorId t, ir::PortRef dst) {
    auto it = producedBy_.find(t);
    if (it == producedBy_.end()) {
      const ir::TensorInfo &info = tensor(t);
      if (info.role != TensorRole::Input)
        throw Error("lowering", where(stage_, "tensor '" + info.name + "'"),
                    "a stage input or an op's output");
      DataflowNode dma = ir::readDmaNode("in_" + info.name, vectorOf(t));
      dma.tensor = t;
      dma.attributes[kAttrStageInput] = 1;
      it = producedBy_.emplace(t, ir::PortRef{df().addNode(std::move(dma)), 0}).first;
    }
    df().connect(it->second, dst, tensor(t).name + "_to_" + df().node(dst.node).name);
  }

  ir::NodeId addReadDma(const std::string &name, TensorId t, ITensorType type,
                        const char *attribute) {
    DataflowNode dma = ir::readDmaNode(name, std::move(type));
    dma.tensor = t;
    dma.attributes[attribute] = 1;
    return df().addNode(std::move(dma));
  }

  ir::NodeId addWriteDma(const std::string &name, TensorId t, ir::PortRef src,
                         const char *attribute) {
    DataflowNode dma = ir::writeDmaNode(name, df().node(src.node).outputs.at(src.port).type);
    dma.tensor = t;
    dma.attributes[attribute] = 1;
    const ir::NodeId n = df().addNode(std::move(dma));
    df().connect(src, {n, 0}, name);
    return n;
  }

  void addStageOutput(TensorId t) {
    auto it = producedBy_.find(t);
    if (it == producedBy_.end())
      throw Error("lowering", where(stage_, "output '" + tensor(t).name + "'"),
                  "a tensor produced by an op");
    addWriteDma("out_" + stage_.exportedName(tensor(t).name), t, it->second, kAttrStageOutput);
  }

  /// A kernel of template `descriptor` with parameters `params` for `op`, its output the op's.
  template <typename Params>
  ir::NodeId addKernel(const Op &op, const model::TemplateDescriptor<Params> &descriptor,
                       const Params &params, std::vector<ir::NodePort> inputs) {
    DataflowNode k;
    k.kind = NodeKind::Kernel;
    k.module = descriptor.module();
    k.name = op.name;
    k.params = descriptor.encode(params);
    k.inputs = std::move(inputs);
    k.outputs = {{"out", vectorOf(op.output.tensor)}};
    const ir::NodeId n = df().addNode(std::move(k));
    producedBy_[op.output.tensor] = {n, 0};
    return n;
  }

  void lowerOp(ir::OpId id) {
    const Op &op = g_.op(id);
    if (op.kind != ir::OpKind::Llm)
      throw Error("lowering", where(stage_, "op '" + op.name + "'"),
                  "a named LLM op (ir/llm_ops.h), got a " + ir::toString(op.kind) + " op");
    std::visit([&](const auto &a) { lower(op, a); }, op.llm);
  }

  void lower(const Op &op, const std::monostate &) {
    throw Error("lowering", where(stage_, "op '" + op.name + "'"), "LLM attributes");
  }

  void lower(const Op &op, const ir::EmbeddingAttrs &) {
    const TensorId table = op.inputs[0].tensor, index = op.inputs[1].tensor;
    model::EmbeddingParams p; // the AXI master's widths and bursts at their defaults
    p.dim = tensor(table).shape.at(1);
    p.lanes = out_.lanes;
    p.outBits = bits(op.output.tensor);
    const ir::NodeId n = addKernel(op, model::embeddingTemplate(), p, {{"index", vectorOf(index)}});
    df().node(n).tensor = table; // the table the kernel's own AXI master reads
    feed(index, {n, 0});
  }

  void lower(const Op &op, const ir::NormAttrs &a) {
    const TensorId x = op.inputs[0].tensor;
    model::NormParams p;
    p.layerNorm = a.kind == ir::NormKind::LayerNorm;
    p.n = length(x) / a.groups;
    p.lanes = out_.lanes;
    p.inBits = bits(x);
    p.outBits = bits(op.output.tensor);
    // Per lane: gamma s16, and for LayerNorm beta in output LSBs with 8 fraction bits, in a
    // power-of-two slot (the image's layout).
    p.paramSlotBits = model::normParamSlotBits(p.layerNorm, p.outBits);
    const ITensorType paramType = recordType(p.n, p.paramSlotBits / 8, out_.lanes);
    const ir::NodeId k =
        addKernel(op, model::normTemplate(), p, {{"in", vectorOf(x)}, {"param", paramType}});
    df().node(k).attributes[model::kAttrInvocations] = a.groups;
    feed(x, {k, 0});
    // A per-head norm reads the same head-sized parameters once per head.
    ITensorType streamed = paramType;
    if (a.groups > 1) {
      streamed.loops.insert(streamed.loops.begin(), ir::ITensorLoop{a.groups, 1});
      streamed.iterMap = {1u, std::nullopt};
      streamed.verify();
      df().node(k).inputs[1].type = streamed;
    }
    const ir::NodeId dma =
        addReadDma("rd_" + op.name + "_param", op.inputs[1].tensor, streamed, kAttrWeightStream);
    df().connect({dma, 0}, {k, 1}, op.name + "_param");
  }

  void lower(const Op &op, const ir::LinearAttrs &) {
    const TensorId x = op.inputs[0].tensor, w = op.inputs[1].tensor;
    const int64_t k = tensor(w).shape.at(1), nOut = tensor(w).shape.at(0);
    const numerics::WeightFormat format =
        frontend::weightFormatFor(o_.precision, static_cast<size_t>(k));
    if (o_.gemvEngine) {
      lowerEngineCall(op, x, k, nOut, format);
      return;
    }
    model::LinearParams p;
    try {
      p = model::linearKernelParamsForLanes(
          k, nOut, format.bits, bits(x),
          format.groupSize == static_cast<size_t>(k) ? 0 : static_cast<int64_t>(format.groupSize),
          bits(op.output.tensor), out_.lanes);
    } catch (const Error &e) {
      throw Error("lowering", where(stage_, "linear '" + op.name + "'"), e.expected());
    }
    const ir::NodeId n = addKernel(
        op, model::linearTemplate(), p,
        {{"x", vectorOf(x)},
         {"w", recordType((p.nOut / p.rows) * model::linearBlockWords(p), p.wordBits / 8)}});
    feed(x, {n, 0});
    const ir::NodeId dma =
        addReadDma("rd_" + op.name + "_w", w, df().node(n).inputs[1].type, kAttrWeightStream);
    df().connect({dma, 0}, {n, 1}, op.name + "_w");
  }

  /// A linear on the shared GEMV engine: a call node, x in, y (padded to the lanes) out; its
  /// weights come through the engine's channel streams, not a DMA of its own.
  void lowerEngineCall(const Op &op, TensorId x, int64_t k, int64_t nOut,
                       const numerics::WeightFormat &format) {
    const TensorId y = op.output.tensor;
    const int64_t delivered = (nOut + out_.lanes - 1) / out_.lanes * out_.lanes;
    if (delivered != nOut)
      paddedLength_[y] = delivered;
    model::GemvCallParams p;
    p.k = k;
    p.nOut = nOut;
    p.nDeliver = delivered;
    p.weightBits = format.bits;
    p.activationBits = bits(x);
    p.groupSize =
        format.groupSize == static_cast<size_t>(k) ? 0 : static_cast<int64_t>(format.groupSize);
    p.outputBits = bits(y);
    p.lanes = out_.lanes;
    p.channels = o_.engineShape.channels;
    p.kLanes = o_.engineShape.kLanes;
    p.segLanes = o_.engineShape.segLanes;
    DataflowNode call;
    call.kind = NodeKind::Kernel;
    call.module = model::gemvCallTemplate().module();
    call.name = op.name;
    call.params = model::gemvCallTemplate().encode(p);
    call.attributes[kAttrEngineCall] = 1;
    call.inputs = {{"x", vectorOf(x)}};
    call.outputs = {{"y", vectorOf(y)}};
    const ir::NodeId n = df().addNode(std::move(call));
    producedBy_[y] = {n, 0};
    feed(x, {n, 0});
  }

  void lower(const Op &op, const ir::RopeAttrs &a) {
    const TensorId x = op.inputs[0].tensor;
    model::RopeParams p;
    p.numHeads = a.numHeads;
    p.headDim = a.headDim;
    p.lanes = out_.lanes;
    p.inBits = bits(x);
    p.outBits = bits(op.output.tensor);
    p.posBits = kPositionBits;
    p.numTables = ropeVariants(stage_, op);
    const ir::NodeId k = addKernel(op, model::ropeTemplate(), p, {{"in", vectorOf(x)}});
    feed(x, {k, 0});
  }

  /// A KV cache DMA's attributes: how the cache it reads or appends to is striped.
  static void markKvCacheDma(DataflowNode &dma, const KvStriping &reading) {
    if (reading.striped()) {
      dma.attributes[ir::kAttrKvSlices] = reading.slices;
      dma.attributes[kAttrKvPartCodes] = reading.partCodes;
    }
    if (reading.blockMajor())
      dma.attributes[kAttrKvBlocks] = reading.blocks;
    if (reading.positionSlices > 1)
      dma.attributes[kAttrKvPositionSlices] = reading.positionSlices;
  }

  void lower(const Op &op, const ir::AttentionAttrs &a) {
    const TensorId q = op.inputs[0].tensor, kNew = op.inputs[1].tensor, vNew = op.inputs[2].tensor,
                   kCache = op.inputs[3].tensor, vCache = op.inputs[4].tensor;
    const int64_t kvWidth = a.numKvHeads * a.headDim;
    KvStriping striping, reading;
    try {
      const AttentionStripings s = attentionStripingsOf(
          a.numKvHeads, a.headDim, o_.attentionKvStep, o_.attentionHeadSplit, o_.attentionReadStep,
          o_.attentionBlockMajor, o_.attentionPositionSlices);
      striping = s.kernel;
      reading = s.reading;
    } catch (const Error &e) {
      throw Error("lowering", where(stage_, "attention '" + op.name + "'"), e.expected());
    }
    const int64_t cacheLanes = striping.cacheLanes;
    if (o_.cacheLength < 1 || o_.cacheLength >= o_.maxContext)
      throw Error("lowering", where(stage_, "attention '" + op.name + "'"),
                  "a cache length in 1 .. " + std::to_string(o_.maxContext - 1) + ", got " +
                      std::to_string(o_.cacheLength));
    // Positions striped over S slices are read S at a time: the cache length rounded up to S,
    // the pad dropped by attention (CacheRound).
    const int64_t positionSlices = reading.positionSlices;
    if (positionSlices > 1 && a.slidingWindow > 0)
      throw Error("lowering", where(stage_, "attention '" + op.name + "'"),
                  "no sliding window with positions striped over slices (a window's first row "
                  "falls mid-token), got a window of " +
                      std::to_string(a.slidingWindow));
    if (o_.maxContext % positionSlices != 0)
      throw Error("lowering", where(stage_, "attention '" + op.name + "'"),
                  "a max context that is a multiple of the " + std::to_string(positionSlices) +
                      " slices its positions are striped over, got " +
                      std::to_string(o_.maxContext));
    const int64_t readPositions =
        (o_.cacheLength + positionSlices - 1) / positionSlices * positionSlices;
    const ITensorType cacheType = recordType(readPositions, kvWidth, 1, cacheLanes);
    model::AttentionParams p;
    p.numHeads = a.numHeads;
    p.numKvHeads = a.numKvHeads;
    p.headDim = a.headDim;
    p.maxContext = o_.maxContext;
    p.lanes = out_.lanes;
    p.cacheLanes = cacheLanes;
    p.outBits = bits(op.output.tensor);
    p.blockMajor = reading.blockMajor();
    p.cacheRound = positionSlices;
    if (const int64_t tile = o_.attentionTilePositions; tile > 0) {
      if (!attentionOnePassApplies(a.headDim, cacheLanes, reading.blockMajor()))
        throw Error("lowering", where(stage_, "attention '" + op.name + "'"),
                    "one-pass attention (a tile of " + std::to_string(tile) +
                        " positions) on the block-major walk over cache tokens of whole kv "
                        "heads of >= 4 codes; this design walks " +
                        (reading.blockMajor() ? "block-major" : "position-major") +
                        " over tokens of " + std::to_string(cacheLanes) + " codes of heads of " +
                        std::to_string(a.headDim));
      if (tile < 2 || tile > o_.maxContext || (tile & (tile - 1)) != 0)
        throw Error("lowering", where(stage_, "attention '" + op.name + "'"),
                    "a one-pass tile that is a power of two 2 .. " + std::to_string(o_.maxContext) +
                        " (the max context), got " + std::to_string(tile));
      p.onePass = true;
      p.tilePositions = tile;
    }
    const ir::NodeId k = addKernel(op, model::attentionTemplate(), p,
                                   {{"q", vectorOf(q)},
                                    {"k_new", vectorOf(kNew)},
                                    {"v_new", vectorOf(vNew)},
                                    {"k_cache", cacheType},
                                    {"v_cache", cacheType}});
    df().node(k).attributes[model::kAttrCacheLength] = o_.cacheLength;
    feed(q, {k, 0});
    feed(kNew, {k, 1});
    feed(vNew, {k, 2});
    // The DMAs read the cache as `reading` lays it out; tokens wider than attention's leave
    // an st_width_converter one attention token at a time (lowest codes first: the order of
    // the cache stream).
    const ITensorType readType =
        recordType(readPositions / positionSlices, positionSlices * kvWidth, 1, reading.cacheLanes);
    for (unsigned port : {3u, 4u}) {
      const TensorId cache = port == 3 ? kCache : vCache;
      const ir::NodeId dma =
          addReadDma("rd_" + tensor(cache).name, cache, readType, kAttrKvCacheRead);
      markKvCacheDma(df().node(dma), reading);
      ir::PortRef rows{dma, 0};
      if (reading.cacheLanes != cacheLanes) {
        DataflowNode cvt;
        cvt.kind = NodeKind::Kernel;
        cvt.module = model::widthConverterTemplate().module();
        cvt.name = "narrow_" + tensor(cache).name;
        cvt.params =
            model::widthConverterTemplate().encode({reading.cacheLanes * 8, cacheLanes * 8});
        cvt.inputs = {{"in", readType}};
        cvt.outputs = {{"out", cacheType}};
        const ir::NodeId c = df().addNode(std::move(cvt));
        df().connect(rows, {c, 0}, tensor(cache).name + "_read");
        rows = {c, 0};
      }
      df().connect(rows, {k, port}, tensor(cache).name + "_rows");
    }
    // The new token's K and V are appended to the caches in HBM (every slice of a striped one).
    for (const auto &[cache, row] : {std::pair{kCache, kNew}, std::pair{vCache, vNew}}) {
      const ir::NodeId dma =
          addWriteDma("wr_" + tensor(cache).name, cache, producedBy_.at(row), kAttrKvAppend);
      markKvCacheDma(df().node(dma), reading);
    }
  }

  void lower(const Op &op, const ir::ActivationAttrs &a) {
    const TensorId x = op.inputs[0].tensor;
    model::ActivationParams p;
    p.function = model::elementwiseFunctionOf(a.kind);
    p.lanes = out_.lanes;
    p.inBits = bits(x);
    p.outBits = bits(op.output.tensor);
    const ir::NodeId k = addKernel(op, model::activationTemplate(), p, {{"in", vectorOf(x)}});
    df().node(k).attributes[model::kAttrVectorLength] = length(x);
    feed(x, {k, 0});
  }

  void lower(const Op &op, const ir::GatedAttrs &a) {
    const TensorId gate = op.inputs[0].tensor, up = op.inputs[1].tensor;
    if (bits(gate) != bits(up))
      throw Error("lowering", where(stage_, "gated '" + op.name + "'"),
                  "gate and up of one code width");
    model::GatedActivationParams p;
    p.function = model::elementwiseFunctionOf(a.kind);
    p.lanes = out_.lanes;
    p.inBits = bits(gate);
    p.outBits = bits(op.output.tensor);
    const ir::NodeId k = addKernel(op, model::gatedActivationTemplate(), p,
                                   {{"gate", vectorOf(gate)}, {"up", vectorOf(up)}});
    df().node(k).attributes[model::kAttrVectorLength] = length(gate);
    feed(gate, {k, 0});
    feed(up, {k, 1});
  }

  void lower(const Op &op, const ir::AddAttrs &) {
    const TensorId a = op.inputs[0].tensor, b = op.inputs[1].tensor;
    model::ResidualAddParams p;
    p.lanes = out_.lanes;
    p.aBits = bits(a);
    p.bBits = bits(b);
    p.outBits = bits(op.output.tensor);
    const ir::NodeId k =
        addKernel(op, model::residualAddTemplate(), p, {{"a", vectorOf(a)}, {"b", vectorOf(b)}});
    df().node(k).attributes[model::kAttrVectorLength] = length(a);
    feed(a, {k, 0});
    feed(b, {k, 1});
  }

  void lower(const Op &op, const ir::ArgmaxAttrs &) {
    const TensorId x = op.inputs[0].tensor;
    model::ArgmaxParams p;
    p.lanes = out_.lanes;
    p.elemBits = bits(x);
    p.maxLen = length(x);
    const ir::NodeId k = addKernel(op, model::argmaxTemplate(), p, {{"in", vectorOf(x)}});
    df().node(k).attributes[model::kAttrVectorLength] = length(x);
    feed(x, {k, 0});
  }

  const ir::DecodeStage &stage_;
  const ir::TensorGraph &g_;
  const StageLoweringOptions &o_;
  LoweredStage out_;
  /// The output port streaming each tensor produced so far.
  std::map<TensorId, ir::PortRef> producedBy_;
  /// Tensors streamed longer than their elements (an engine call's padded y).
  std::map<TensorId, int64_t> paddedLength_;
};

} // namespace

int64_t stageLanes(const ir::DecodeStage &stage, int64_t maxLanes, bool paddedLinearOutputs) {
  const ir::TensorGraph &g = stage.graph;
  int64_t common = 64;
  for (TensorId t = 0; t < g.numTensors(); ++t) {
    const ir::TensorInfo &info = g.tensor(t);
    if (info.role == TensorRole::Constant || info.role == TensorRole::State ||
        info.shape.size() != 1 || info.shape[0] == 1)
      continue;
    const auto producer = g.producer(t);
    if (paddedLinearOutputs && producer &&
        std::holds_alternative<ir::LinearAttrs>(g.op(*producer).llm))
      continue;
    common = std::gcd(common, info.shape[0]);
  }
  for (ir::OpId id = 0; id < g.numOps(); ++id) {
    const Op &op = g.op(id);
    if (auto *r = std::get_if<ir::RopeAttrs>(&op.llm))
      common = std::gcd(common, r->headDim / 2);
    if (auto *a = std::get_if<ir::AttentionAttrs>(&op.llm))
      common = std::gcd(common, a->headDim);
    if (auto *n = std::get_if<ir::NormAttrs>(&op.llm); n && n->groups > 1)
      common = std::gcd(common, g.tensor(op.output.tensor).shape[0] / n->groups);
  }
  return largestPowerOfTwoDividing(common, maxLanes);
}

LoweredStage lowerStage(const ir::DecodeStage &stage, const StageLoweringOptions &options) {
  return StageLowerer(stage, options).run();
}

} // namespace st::llm
