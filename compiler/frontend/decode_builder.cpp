// Decode-program builders for GPT2LMHeadModel, LlamaForCausalLM, MistralForCausalLM,
// Qwen2ForCausalLM, Qwen3ForCausalLM and Gemma3ForCausalLM (see decode_builder.h). The decoder
// block is one pre-norm template:
//   h = norm(x); q,k,v = linear(h) [+ per-head q/k norm] [+ rope]; a = attention(q,k,v,cache)
//   o = linear(a) [+ post-attention norm]; x = x + o
//   h = norm(x); m = mlp(h) [+ post-feed-forward norm]; x = x + m
// with the per-family differences given as options, and per-layer weights and attributes as
// bindings.
#include "frontend/decode_builder.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "frontend/safetensors_reader.h"
#include "support/error.h"
#include "support/parallel.h"
#include "support/scratch_buffer.h"

namespace st::frontend {

using namespace st::ir;

namespace {

/// Adds tensors, named ops and per-run weight bindings to one stage.
class StageBuilder {
public:
  StageBuilder(std::string name, int64_t repeat, WeightStore &weights) : weights_(weights) {
    stage_.name = std::move(name);
    stage_.repeat = repeat;
    stage_.bindings.resize(static_cast<size_t>(repeat));
  }

  TensorId input(const std::string &name, std::vector<int64_t> shape, DType t = DType::F32) {
    return stage_.graph.addTensor({name, std::move(shape), t, TensorRole::Input});
  }
  TensorId state(const std::string &name, std::vector<int64_t> shape) {
    return stage_.graph.addTensor({name, std::move(shape), DType::F32, TensorRole::State});
  }
  /// A constant bound, for run r, to stored weight storedName(r), checked to have `shape`.
  template <typename NameOf>
  TensorId constant(const std::string &name, const std::vector<int64_t> &shape, NameOf storedName) {
    for (int64_t r = 0; r < stage_.repeat; ++r) {
      const std::string stored = storedName(r);
      weights_.require(stored, shape);
      stage_.bindings[static_cast<size_t>(r)].weights[name] = stored;
    }
    return stage_.graph.addTensor({name, shape, DType::F32, TensorRole::Constant});
  }
  TensorId op(const std::string &name, LlmAttributes attrs, const std::vector<TensorId> &inputs,
              std::vector<int64_t> shape, TensorRole role = TensorRole::Intermediate,
              DType t = DType::F32) {
    TensorId out = stage_.graph.addTensor({name, std::move(shape), t, role});
    addLlmOp(stage_.graph, name, std::move(attrs), inputs, out);
    return out;
  }
  void setAttributes(int64_t run, const std::string &opName, LlmAttributes attrs) {
    stage_.bindings[static_cast<size_t>(run)].attributes[opName] = std::move(attrs);
  }
  void exportAs(const std::string &tensor, const std::string &name) {
    stage_.exportAs[tensor] = name;
  }
  DecodeStage take() { return std::move(stage_); }

private:
  DecodeStage stage_;
  WeightStore &weights_;
};

/// The per-family differences of the decoder block.
struct BlockOptions {
  NormAttrs norm;                 ///< all block norms
  bool postAttentionNorm = false; ///< Gemma: norm after o_proj and after the MLP
  bool qkNorm = false;            ///< Gemma, Qwen3: per-head RMS norm of q and k
  bool rope = true;               ///< false for GPT-2 (learned positions)
  bool gatedMlp = true;           ///< false: up -> activation -> down (GPT-2)
  ActivationKind activation = ActivationKind::Silu;
  GatedKind gated = GatedKind::SwiGLU;
};

/// Stored weight names of one layer (`#` marks derived tensors).
struct LayerNames {
  std::string norm1, norm1Bias, q, k, v, qBias, kBias, vBias, o, oBias, qNorm, kNorm, postAttnNorm;
  std::string norm2, norm2Bias, gate, gateBias, up, upBias, down, downBias, postMlpNorm;
};

#if defined(__x86_64__) || defined(__i386__)
/// The 8 x 8 block at `in` (row stride inStride) transposed into `out` (row stride outStride).
__attribute__((target("avx2"))) void transpose8x8(const float *in, int64_t inStride, float *out,
                                                  int64_t outStride) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(in + i * inStride);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(out + i * outStride, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(out + (i + 4) * outStride, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

bool haveAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#endif

/// out[c][r] = in[r][c] for a rows x cols block of `in` (row stride inStride) into `out` (row
/// stride outStride): 8 x 8 blocks in registers with AVX2, else 16 x 16 tiles through a buffer;
/// either way whole cache lines are read and written, where a plain double loop reads a column
/// at a power-of-two stride (~6 ns a value).
void transposeBlock(const float *in, int64_t inStride, int64_t rows, int64_t cols, float *out,
                    int64_t outStride) {
  int64_t rows8 = 0, cols8 = 0;
#if defined(__x86_64__) || defined(__i386__)
  static const bool avx2 = haveAvx2();
  if (avx2) {
    rows8 = rows / 8 * 8;
    cols8 = cols / 8 * 8;
    for (int64_t c0 = 0; c0 < cols8; c0 += 8)
      for (int64_t r0 = 0; r0 < rows8; r0 += 8)
        transpose8x8(in + r0 * inStride + c0, inStride, out + c0 * outStride + r0, outStride);
  }
#endif
  // The rest: everything without AVX2; else the last rows % 8 columns of out and the last
  // cols % 8 rows.
  auto tiles = [&](int64_t rBegin, int64_t rEnd, int64_t cBegin, int64_t cEnd) {
    constexpr int64_t kTile = 16;
    float tile[kTile][kTile];
    for (int64_t c0 = cBegin; c0 < cEnd; c0 += kTile) {
      const int64_t cn = std::min(kTile, cEnd - c0);
      for (int64_t r0 = rBegin; r0 < rEnd; r0 += kTile) {
        const int64_t rn = std::min(kTile, rEnd - r0);
        for (int64_t i = 0; i < rn; ++i)
          for (int64_t j = 0; j < cn; ++j)
            tile[j][i] = in[(r0 + i) * inStride + c0 + j];
        for (int64_t j = 0; j < cn; ++j)
          std::copy(tile[j], tile[j] + rn, out + (c0 + j) * outStride + r0);
      }
    }
  };
  tiles(rows8, rows, 0, cols);  // rows past the 8-row blocks, every column
  tiles(0, rows8, cols8, cols); // the 8-row blocks' columns past the 8-column blocks
}

WeightTensor transposed(const WeightTensor &w, int64_t rowBegin, int64_t rows, int64_t colBegin,
                        int64_t cols, const std::string &from) {
  // Conv1D stores [in, out]; returns rows [rowBegin, +rows) x cols [colBegin, +cols) of the
  // [out, in] transpose, i.e. out index = colBegin + c, in index = rowBegin + r.
  WeightTensor t;
  t.shape = {cols, rows};
  t.file = "derived from " + from;
  const int64_t width = w.shape[1];
  if (w.source) {
    // Made on demand as well: rows [r0, r1) x columns [c0, c1) of the transpose are columns
    // [colBegin + r0, colBegin + r1) x rows [rowBegin + c0, rowBegin + c1) of the original.
    t.source = [source = w.source, rowBegin, colBegin](int64_t r0, int64_t r1, int64_t c0,
                                                       int64_t c1, float *out) {
      ScratchBuffer scratch; // pooled: no fresh pages per block
      std::vector<float> &block = scratch.get();
      block.resize(static_cast<size_t>((r1 - r0) * (c1 - c0)));
      source(rowBegin + c0, rowBegin + c1, colBegin + r0, colBegin + r1, block.data());
      transposeBlock(block.data(), r1 - r0, c1 - c0, r1 - r0, out, c1 - c0);
    };
    return t;
  }
  if (w.data.empty()) // shape-only store
    return t;
  t.data.resize(static_cast<size_t>(rows * cols));
  // Spread over the cores by 64 output rows.
  parallelForChunks(static_cast<size_t>(cols), 64, [&](size_t c0, size_t c1) {
    transposeBlock(w.data.data() + rowBegin * width + colBegin + static_cast<int64_t>(c0), width,
                   rows, static_cast<int64_t>(c1 - c0),
                   t.data.data() + static_cast<int64_t>(c0) * rows, rows);
  });
  return t;
}

WeightTensor slice(const WeightTensor &b, int64_t begin, int64_t n, const std::string &from) {
  WeightTensor t;
  t.shape = {n};
  t.file = "derived from " + from;
  if (b.hasValues()) {
    t.data.resize(static_cast<size_t>(n));
    b.readBlock(begin, begin + n, 0, 1, t.data.data());
  }
  return t;
}

/// Adds `derived` (made from the stored `from` by `make`) unless it is there already and `from`
/// holds no values (released by an earlier build of the same store).
template <typename Make>
void derive(WeightStore &w, const std::string &name, const WeightTensor &from, Make make) {
  if (from.hasValues() || !w.contains(name))
    w.add(name, make());
}

/// GPT-2: splits and transposes the Conv1D weights into [out, in] linear weights. The fused
/// originals' values are released once derived (only the derived tensors are bound), so the
/// store holds each weight once.
std::vector<LayerNames> gpt2LayerNames(const ModelConfig &c, WeightStore &w, const std::string &p) {
  const int64_t h = c.hiddenSize, inner = c.intermediateSize;
  std::vector<LayerNames> layers;
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const std::string b = p + "h." + std::to_string(l) + ".";
    LayerNames n;
    n.norm1 = b + "ln_1.weight";
    n.norm1Bias = b + "ln_1.bias";
    n.norm2 = b + "ln_2.weight";
    n.norm2Bias = b + "ln_2.bias";
    const std::string qkv = b + "attn.c_attn.weight", qkvBias = b + "attn.c_attn.bias";
    const WeightTensor &qkvW = w.require(qkv, {h, 3 * h});
    const WeightTensor &qkvB = w.require(qkvBias, {3 * h});
    const char *parts[3] = {"q", "k", "v"};
    std::string *weightNames[3] = {&n.q, &n.k, &n.v};
    std::string *biasNames[3] = {&n.qBias, &n.kBias, &n.vBias};
    for (int i = 0; i < 3; ++i) {
      *weightNames[i] = qkv + "#" + parts[i] + "^T";
      *biasNames[i] = qkvBias + "#" + parts[i];
      derive(w, *weightNames[i], qkvW, [&] { return transposed(qkvW, 0, h, i * h, h, qkv); });
      derive(w, *biasNames[i], qkvB, [&] { return slice(qkvB, i * h, h, qkvBias); });
    }
    w.releaseData(qkv);
    w.releaseData(qkvBias);
    const std::string proj = b + "attn.c_proj.weight";
    const WeightTensor &projW = w.require(proj, {h, h});
    derive(w, proj + "#^T", projW, [&] { return transposed(projW, 0, h, 0, h, proj); });
    w.releaseData(proj);
    n.o = proj + "#^T";
    n.oBias = b + "attn.c_proj.bias";
    const std::string fc = b + "mlp.c_fc.weight";
    const WeightTensor &fcW = w.require(fc, {h, inner});
    derive(w, fc + "#^T", fcW, [&] { return transposed(fcW, 0, h, 0, inner, fc); });
    w.releaseData(fc);
    n.up = fc + "#^T";
    n.upBias = b + "mlp.c_fc.bias";
    const std::string down = b + "mlp.c_proj.weight";
    const WeightTensor &downW = w.require(down, {inner, h});
    derive(w, down + "#^T", downW, [&] { return transposed(downW, 0, inner, 0, h, down); });
    w.releaseData(down);
    n.down = down + "#^T";
    n.downBias = b + "mlp.c_proj.bias";
    layers.push_back(n);
  }
  return layers;
}

std::vector<LayerNames> hfLayerNames(const ModelConfig &c) {
  std::vector<LayerNames> layers;
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const std::string b = "model.layers." + std::to_string(l) + ".";
    LayerNames n;
    n.norm1 = b + "input_layernorm.weight";
    n.q = b + "self_attn.q_proj.weight";
    n.k = b + "self_attn.k_proj.weight";
    n.v = b + "self_attn.v_proj.weight";
    n.o = b + "self_attn.o_proj.weight";
    if (c.attentionBias) {
      n.qBias = b + "self_attn.q_proj.bias";
      n.kBias = b + "self_attn.k_proj.bias";
      n.vBias = b + "self_attn.v_proj.bias";
    }
    if (c.outputBias)
      n.oBias = b + "self_attn.o_proj.bias";
    n.gate = b + "mlp.gate_proj.weight";
    n.up = b + "mlp.up_proj.weight";
    n.down = b + "mlp.down_proj.weight";
    if (c.mlpBias) {
      n.gateBias = b + "mlp.gate_proj.bias";
      n.upBias = b + "mlp.up_proj.bias";
      n.downBias = b + "mlp.down_proj.bias";
    }
    if (c.qkNorm) {
      n.qNorm = b + "self_attn.q_norm.weight";
      n.kNorm = b + "self_attn.k_norm.weight";
    }
    if (c.architecture == Architecture::Gemma3) {
      n.postAttnNorm = b + "post_attention_layernorm.weight";
      n.norm2 = b + "pre_feedforward_layernorm.weight";
      n.postMlpNorm = b + "post_feedforward_layernorm.weight";
    } else {
      n.norm2 = b + "post_attention_layernorm.weight";
    }
    layers.push_back(n);
  }
  return layers;
}

DecodeStage buildBlock(const ModelConfig &c, WeightStore &w, const BlockOptions &opt,
                       const std::vector<LayerNames> &names) {
  const int64_t h = c.hiddenSize, d = c.headDim, qw = c.numHeads * d, kvw = c.numKvHeads * d;
  const int64_t inner = c.intermediateSize;
  StageBuilder s("block", c.numLayers, w);
  auto bound = [&](std::string LayerNames::*field) {
    return [&names, field](int64_t l) { return names[static_cast<size_t>(l)].*field; };
  };
  auto linear = [&](const std::string &name, TensorId x, int64_t n, int64_t k,
                    std::string LayerNames::*weight, std::string LayerNames::*bias) {
    std::vector<TensorId> in = {x, s.constant(name + ".weight", {n, k}, bound(weight))};
    const bool hasBias = !(names[0].*bias).empty();
    if (hasBias)
      in.push_back(s.constant(name + ".bias", {n}, bound(bias)));
    return s.op(name, LinearAttrs{hasBias}, in, {n});
  };
  auto norm = [&](const std::string &name, TensorId x, int64_t width, int64_t groups,
                  std::string LayerNames::*gamma, std::string LayerNames::*beta) {
    NormAttrs a = opt.norm;
    a.groups = groups;
    std::vector<TensorId> in = {x, s.constant(name + ".gamma", {width / groups}, bound(gamma))};
    a.hasBeta = beta && !(names[0].*beta).empty();
    if (a.hasBeta)
      in.push_back(s.constant(name + ".beta", {width / groups}, bound(beta)));
    return s.op(name, a, in, {width});
  };

  TensorId x = s.input("x", {h});
  TensorId pos = s.input(DecodeProgram::kPositionInput, {1}, DType::I32);
  TensorId n1 = norm("attn_norm", x, h, 1, &LayerNames::norm1, &LayerNames::norm1Bias);
  TensorId q = linear("q_proj", n1, qw, h, &LayerNames::q, &LayerNames::qBias);
  TensorId k = linear("k_proj", n1, kvw, h, &LayerNames::k, &LayerNames::kBias);
  TensorId v = linear("v_proj", n1, kvw, h, &LayerNames::v, &LayerNames::vBias);
  if (opt.qkNorm) {
    q = norm("q_norm", q, qw, c.numHeads, &LayerNames::qNorm, nullptr);
    k = norm("k_norm", k, kvw, c.numKvHeads, &LayerNames::kNorm, nullptr);
  }
  auto layerRope = [&](int64_t l, int64_t heads) {
    const bool local = !c.layerIsSliding.empty() && c.layerIsSliding[static_cast<size_t>(l)];
    RopeAttrs r;
    r.numHeads = heads;
    r.headDim = d;
    const RopeSettings &settings = local ? c.ropeLocal : c.rope;
    r.base = settings.theta;
    r.inverseFrequencies = ropeFrequencies(d, r.base, settings.scaling);
    return r;
  };
  auto layerAttention = [&](int64_t l) {
    AttentionAttrs a;
    a.numHeads = c.numHeads;
    a.numKvHeads = c.numKvHeads;
    a.headDim = d;
    a.scale = c.attentionScale;
    const bool local = !c.layerIsSliding.empty() && c.layerIsSliding[static_cast<size_t>(l)];
    a.slidingWindow = local ? c.slidingWindow : 0;
    return a;
  };
  if (opt.rope) {
    q = s.op("rope_q", layerRope(0, c.numHeads), {q, pos}, {qw});
    k = s.op("rope_k", layerRope(0, c.numKvHeads), {k, pos}, {kvw});
  }
  TensorId kCache = s.state("k_cache", {c.maxPositions, kvw});
  TensorId vCache = s.state("v_cache", {c.maxPositions, kvw});
  TensorId a = s.op("attention", layerAttention(0), {q, k, v, kCache, vCache, pos}, {qw});
  if (!c.layerIsSliding.empty())
    for (int64_t l = 0; l < c.numLayers; ++l) {
      s.setAttributes(l, "attention", layerAttention(l));
      s.setAttributes(l, "rope_q", layerRope(l, c.numHeads));
      s.setAttributes(l, "rope_k", layerRope(l, c.numKvHeads));
    }
  TensorId o = linear("o_proj", a, h, qw, &LayerNames::o, &LayerNames::oBias);
  if (opt.postAttentionNorm)
    o = norm("post_attn_norm", o, h, 1, &LayerNames::postAttnNorm, nullptr);
  TensorId x2 = s.op("attn_residual", AddAttrs{}, {x, o}, {h});
  TensorId n2 = norm("mlp_norm", x2, h, 1, &LayerNames::norm2, &LayerNames::norm2Bias);
  TensorId m;
  if (opt.gatedMlp) {
    TensorId g = linear("gate_proj", n2, inner, h, &LayerNames::gate, &LayerNames::gateBias);
    TensorId u = linear("up_proj", n2, inner, h, &LayerNames::up, &LayerNames::upBias);
    TensorId f = s.op("gated", GatedAttrs{opt.gated}, {g, u}, {inner});
    m = linear("down_proj", f, h, inner, &LayerNames::down, &LayerNames::downBias);
  } else {
    TensorId u = linear("up_proj", n2, inner, h, &LayerNames::up, &LayerNames::upBias);
    TensorId f = s.op("activation", ActivationAttrs{opt.activation}, {u}, {inner});
    m = linear("down_proj", f, h, inner, &LayerNames::down, &LayerNames::downBias);
  }
  if (opt.postAttentionNorm)
    m = norm("post_mlp_norm", m, h, 1, &LayerNames::postMlpNorm, nullptr);
  s.op("x_next", AddAttrs{}, {x2, m}, {h}, TensorRole::Output);
  s.exportAs("x_next", "x");
  return s.take();
}

} // namespace

std::vector<double> ropeFrequencies(int64_t headDim, double base, const RopeScaling &scaling) {
  RopeAttrs plain;
  plain.headDim = headDim;
  plain.base = base;
  std::vector<double> f = ropeInverseFrequencies(plain);
  if (scaling.type == RopeScaling::Type::Linear) {
    for (double &v : f)
      v /= scaling.factor;
  } else if (scaling.type == RopeScaling::Type::Llama3) {
    // transformers' _compute_llama3_parameters.
    const double old = static_cast<double>(scaling.originalMaxPositions);
    const double lowWavelen = old / scaling.lowFreqFactor;
    const double highWavelen = old / scaling.highFreqFactor;
    for (double &v : f) {
      const double wavelen = 2 * M_PI / v;
      if (wavelen > lowWavelen) {
        v /= scaling.factor;
      } else if (wavelen >= highWavelen) {
        const double smooth = (old / wavelen - scaling.lowFreqFactor) /
                              (scaling.highFreqFactor - scaling.lowFreqFactor);
        v = (1 - smooth) * v / scaling.factor + smooth * v;
      }
    }
  }
  return f;
}

ir::DecodeProgram buildDecodeProgram(const ModelConfig &c, WeightStore &w) {
  DecodeProgram p;
  p.architecture = toString(c.architecture);
  p.vocabSize = c.vocabSize;
  p.maxPositions = c.maxPositions;
  const int64_t h = c.hiddenSize, v = c.vocabSize;
  const bool gpt2 = c.architecture == Architecture::Gpt2;
  const bool gemma = c.architecture == Architecture::Gemma3;
  std::string prefix =
      gpt2 ? (w.contains("transformer.wte.weight") ? "transformer." : "") : "model.";
  const std::string embedName = prefix + (gpt2 ? "wte.weight" : "embed_tokens.weight");

  // Prologue: token (and for GPT-2 position) embedding.
  {
    StageBuilder s("prologue", 1, w);
    TensorId token = s.input(DecodeProgram::kTokenInput, {1}, DType::I32);
    TensorId table = s.constant("embed_table", {v, h}, [&](int64_t) { return embedName; });
    EmbeddingAttrs e;
    // Gemma: hidden**0.5 as an fp32 tensor, as transformers' Gemma3TextScaledWordEmbedding.
    e.scale =
        gemma ? static_cast<double>(static_cast<float>(std::sqrt(static_cast<double>(h)))) : 1.0;
    if (gpt2) {
      TensorId pos = s.input(DecodeProgram::kPositionInput, {1}, DType::I32);
      TensorId posTable = s.constant("position_table", {c.maxPositions, h},
                                     [&](int64_t) { return prefix + "wpe.weight"; });
      TensorId te = s.op("token_embedding", e, {table, token}, {h});
      TensorId pe = s.op("position_embedding", EmbeddingAttrs{}, {posTable, pos}, {h});
      s.op("x", AddAttrs{}, {te, pe}, {h}, TensorRole::Output);
    } else {
      s.op("x", e, {table, token}, {h}, TensorRole::Output);
    }
    p.stages.push_back(s.take());
  }

  // Block.
  BlockOptions opt;
  std::vector<LayerNames> names;
  if (gpt2) {
    opt.norm = {NormKind::LayerNorm, c.normEps, false, 1, true};
    opt.rope = false;
    opt.gatedMlp = false;
    opt.activation = c.hiddenAct == "gelu" ? ActivationKind::GeluErf : ActivationKind::GeluTanh;
    names = gpt2LayerNames(c, w, prefix);
  } else {
    opt.norm = {NormKind::RmsNorm, c.normEps, gemma, 1, false};
    opt.postAttentionNorm = gemma;
    opt.qkNorm = c.qkNorm; // Gemma 3 and Qwen3; (1+w) on Gemma 3 only, as its other norms
    opt.gated = gemma ? GatedKind::GeGLUTanh : GatedKind::SwiGLU;
    names = hfLayerNames(c);
  }
  p.stages.push_back(buildBlock(c, w, opt, names));

  // Epilogue: final norm, LM head (tied to the embedding or its own), argmax.
  {
    StageBuilder s("epilogue", 1, w);
    TensorId x = s.input("x", {h});
    NormAttrs n = opt.norm;
    std::vector<TensorId> in = {x, s.constant("final_norm.gamma", {h}, [&](int64_t) {
                                  return prefix + (gpt2 ? "ln_f.weight" : "norm.weight");
                                })};
    if (gpt2)
      in.push_back(
          s.constant("final_norm.beta", {h}, [&](int64_t) { return prefix + "ln_f.bias"; }));
    TensorId xn = s.op("final_norm", n, in, {h});
    const std::string head = c.tiedEmbeddings ? embedName : "lm_head.weight";
    TensorId logits =
        s.op(DecodeProgram::kLogitsOutput, LinearAttrs{false},
             {xn, s.constant("lm_head.weight", {v, h}, [&](int64_t) { return head; })}, {v},
             TensorRole::Output);
    s.op(DecodeProgram::kNextTokenOutput, ArgmaxAttrs{}, {logits}, {}, TensorRole::Output,
         DType::I32);
    p.stages.push_back(s.take());
  }
  p.verify();
  return p;
}

LoadedModel loadModel(const std::string &modelDir, WeightSource source, uint64_t seed) {
  LoadedModel m;
  m.config = readModelConfig(modelDir);
  if (source == WeightSource::Checkpoint) {
    m.weights = readModelWeights(modelDir);
  } else {
    m.weights.setSource(source == WeightSource::Random ? "random weights" : "shape only");
    m.weights.synthesizeMissing(source == WeightSource::Random ? WeightStore::Missing::Random
                                                               : WeightStore::Missing::ShapeOnly,
                                seed);
  }
  m.program = buildDecodeProgram(m.config, m.weights);
  return m;
}

} // namespace st::frontend
