// The kernel templates' descriptors (see kernel_templates.h). Each list is in the order the
// lowering has always written the node's parameters, so the emitted designs keep their text.
#include "model/kernel_templates.h"

namespace st::model {

const TemplateDescriptor<LinearParams> &linearTemplate() {
  using P = LinearParams;
  static const TemplateDescriptor<P> d(
      "st_linear",
      {templateParam("K", &P::k), templateParam("NOut", &P::nOut), templateParam("Rows", &P::rows),
       templateParam("KLanes", &P::kLanes), templateParam("Lanes", &P::lanes),
       templateParam("WBits", &P::weightBits), templateParam("ABits", &P::activationBits),
       templateParam("GroupSize", &P::groupSize), templateParam("OutBits", &P::outputBits),
       templateParam("WordBits", &P::wordBits)});
  return d;
}

const TemplateDescriptor<NormParams> &normTemplate() {
  using P = NormParams;
  static const TemplateDescriptor<P> d(
      "st_norm",
      {templateParam("LayerNorm", &P::layerNorm), templateParam("N", &P::n),
       templateParam("Lanes", &P::lanes), templateParam("InBits", &P::inBits),
       templateParam("OutBits", &P::outBits), templateParam("ParamSlotBits", &P::paramSlotBits)});
  return d;
}

const TemplateDescriptor<RopeParams> &ropeTemplate() {
  using P = RopeParams;
  static const TemplateDescriptor<P> d(
      "st_rope", {templateParam("NumHeads", &P::numHeads), templateParam("HeadDim", &P::headDim),
                  templateParam("Lanes", &P::lanes), templateParam("InBits", &P::inBits),
                  templateParam("OutBits", &P::outBits), templateParam("PosBits", &P::posBits),
                  templateParam("NumTables", &P::numTables)});
  return d;
}

const TemplateDescriptor<AttentionParams> &attentionTemplate() {
  using P = AttentionParams;
  static const TemplateDescriptor<P> d(
      "st_attention",
      {templateParam("NumHeads", &P::numHeads), templateParam("NumKvHeads", &P::numKvHeads),
       templateParam("HeadDim", &P::headDim), templateParam("MaxContext", &P::maxContext),
       templateParam("Lanes", &P::lanes), templateParam("CacheLanes", &P::cacheLanes),
       templateParam("OutBits", &P::outBits),
       optionalTemplateParam("BlockMajor", &P::blockMajor, 0),
       optionalTemplateParam("CacheRound", &P::cacheRound, 1),
       optionalTemplateParam("OnePass", &P::onePass, 0),
       // The tile is written whenever the pass is one, even at the template's default.
       optionalTemplateParam("TilePositions", &P::tilePositions, 64,
                             [](const P &p) { return !p.onePass; })});
  return d;
}

const TemplateDescriptor<EmbeddingParams> &embeddingTemplate() {
  using P = EmbeddingParams;
  static const TemplateDescriptor<P> d(
      "st_embedding_gather",
      {templateParam("Dim", &P::dim), templateParam("Lanes", &P::lanes),
       templateParam("OutBits", &P::outBits), templateParam("AddrWidth", &P::addrWidth),
       templateParam("IdWidth", &P::idWidth), templateParam("MaxBurstLen", &P::maxBurstLen),
       templateParam("MaxOutstanding", &P::maxOutstanding)});
  return d;
}

const TemplateDescriptor<ActivationParams> &activationTemplate() {
  using P = ActivationParams;
  static const TemplateDescriptor<P> d("st_activation", {templateParam("Function", &P::function),
                                                         templateParam("Lanes", &P::lanes),
                                                         templateParam("InBits", &P::inBits),
                                                         templateParam("OutBits", &P::outBits)});
  return d;
}

const TemplateDescriptor<GatedActivationParams> &gatedActivationTemplate() {
  using P = GatedActivationParams;
  static const TemplateDescriptor<P> d(
      "st_gated_activation",
      {templateParam("Function", &P::function), templateParam("Lanes", &P::lanes),
       templateParam("InBits", &P::inBits), templateParam("OutBits", &P::outBits)});
  return d;
}

const TemplateDescriptor<ResidualAddParams> &residualAddTemplate() {
  using P = ResidualAddParams;
  static const TemplateDescriptor<P> d("st_residual_add", {templateParam("Lanes", &P::lanes),
                                                           templateParam("ABits", &P::aBits),
                                                           templateParam("BBits", &P::bBits),
                                                           templateParam("OutBits", &P::outBits)});
  return d;
}

const TemplateDescriptor<ArgmaxParams> &argmaxTemplate() {
  using P = ArgmaxParams;
  static const TemplateDescriptor<P> d("st_argmax", {templateParam("Lanes", &P::lanes),
                                                     templateParam("ElemBits", &P::elemBits),
                                                     templateParam("MaxLen", &P::maxLen)});
  return d;
}

const TemplateDescriptor<WidthConverterParams> &widthConverterTemplate() {
  using P = WidthConverterParams;
  static const TemplateDescriptor<P> d(
      "st_width_converter",
      {templateParam("InWidth", &P::inWidth), templateParam("OutWidth", &P::outWidth)});
  return d;
}

const TemplateDescriptor<numerics::GemvEngineShape> &gemvEngineTemplate() {
  using P = numerics::GemvEngineShape;
  static const TemplateDescriptor<P> d(
      "st_gemv_engine",
      {templateParam("Channels", &P::channels), templateParam("KLanes", &P::kLanes),
       templateParam("SegLanes", &P::segLanes), templateParam("Lanes", &P::lanes),
       templateParam("WBits", &P::weightBits), templateParam("ABits", &P::activationBits),
       templateParam("MaxK", &P::maxK), templateParam("OutBits", &P::outputBits),
       templateParam("NumX", &P::numX), templateParam("NumY", &P::numY),
       optionalTemplateParam("PackedPairs", &P::packedPairs, 0)});
  return d;
}

const TemplateDescriptor<GemvCallParams> &gemvCallTemplate() {
  using P = GemvCallParams;
  static const TemplateDescriptor<P> d(
      "st_gemv_engine",
      {templateParam("K", &P::k), templateParam("NOut", &P::nOut),
       templateParam("NDeliver", &P::nDeliver), templateParam("WBits", &P::weightBits),
       templateParam("ABits", &P::activationBits), templateParam("GroupSize", &P::groupSize),
       templateParam("OutBits", &P::outputBits), templateParam("Lanes", &P::lanes),
       templateParam("Channels", &P::channels), templateParam("KLanes", &P::kLanes),
       templateParam("SegLanes", &P::segLanes)});
  return d;
}

const TemplateDescriptor<MatmulParams> &matmulTemplate() {
  using P = MatmulParams;
  static const TemplateDescriptor<P> d(
      "st_matmul",
      {templateParam("TM", &P::tm), templateParam("TN", &P::tn), templateParam("TK", &P::tk),
       templateParam("KTiles", &P::kTiles), templateParam("ABits", &P::aBits),
       templateParam("BBits", &P::bBits), templateParam("OutBits", &P::outBits),
       templateParam("ASigned", &P::aSigned), templateParam("BSigned", &P::bSigned),
       templateParam("OutSigned", &P::outSigned)});
  return d;
}

const TemplateDescriptor<ReduceParams> &reduceTemplate() {
  using P = ReduceParams;
  static const TemplateDescriptor<P> d(
      "st_reduce",
      {templateParam("OuterLanes", &P::outerLanes), templateParam("ReduceLanes", &P::reduceLanes),
       templateParam("InnerLanes", &P::innerLanes), templateParam("Tokens", &P::tokens),
       templateParam("InBits", &P::inBits), templateParam("OutBits", &P::outBits),
       templateParam("Combiner", &P::combiner), templateParam("InSigned", &P::inSigned),
       templateParam("OutSigned", &P::outSigned)});
  return d;
}

const TemplateDescriptor<ForkParams> &forkTemplate() {
  using P = ForkParams;
  static const TemplateDescriptor<P> d(
      "st_fork", {templateParam("N", &P::branches), templateParam("Width", &P::width)});
  return d;
}

const TemplateDescriptor<LayerLoopParams> &layerLoopTemplate() {
  using P = LayerLoopParams;
  static const TemplateDescriptor<P> d("st_layer_loop", {templateParam("Width", &P::width),
                                                         templateParam("VecTokens", &P::vecTokens),
                                                         templateParam("Layers", &P::layers)});
  return d;
}

const TemplateDescriptor<ir::ConverterLimits> &layoutConverterTemplate() {
  using P = ir::ConverterLimits;
  static const TemplateDescriptor<P> d("st_layout_converter",
                                       {templateParam("ElemBits", &P::elementBits),
                                        templateParam("MaxProdElems", &P::maxProducerElements),
                                        templateParam("MaxConsElems", &P::maxConsumerElements),
                                        templateParam("MaxBufferElems", &P::maxBufferElements),
                                        templateParam("MaxProdTokens", &P::maxProducerTokens),
                                        templateParam("MaxConsTokens", &P::maxConsumerTokens)});
  return d;
}

} // namespace st::model
