// Kernel parameters derived from a quantized op: the one place that decides how a
// QuantizedLinear maps onto st_linear's parameters (rows per block, K lanes, stream word width),
// so the HBM image writer and the e2e lowering produce and consume the same weight stream
// (docs/weight-stream.md, docs/hbm-image.md).
#pragma once

#include <cstdint>

#include "model/linear_model.h"
#include "numerics/quantization.h"

namespace st::model {

/// Width of one weight-stream word: the HBM port's 512 bits, so the read DMA's beats are the
/// kernel's words (no width converter).
constexpr int64_t kLinearStreamWordBits = 512;

/// st_linear parameters for `layer`: WordBits = 512; among the (Rows, KLanes) that satisfy
/// every rule of model::checkLinearParams (KLanes even, dividing K and the group size; Rows
/// dividing NOut; payload <= 512 bits; header words + K/KLanes >= 5) the one with the most
/// weight bits per word, then the larger KLanes. Lanes = the largest divisor of KLanes whose
/// x token fits 512 bits. Throws st::Error (naming "linear kernel parameters") when no
/// combination exists.
LinearParams linearKernelParamsFor(const numerics::QuantizedLinear &layer);

/// st_linear parameters for a stage of `lanes` codes per vector token (the e2e lowering's rule,
/// docs/accelerator.md: one function of (layer, stage lanes) for the lowering and the image):
/// Rows = Lanes = lanes; KLanes = the largest even divisor of K that is a multiple of lanes (and
/// divides the group size) whose payload fits 512 bits with header + K/KLanes >= 5 words;
/// WordBits = the power of two >= the payload (at least 8), so the DMA streams whole words per
/// beat. Throws st::Error naming the layer when no KLanes fits.
LinearParams linearKernelParamsForLanes(int64_t k, int64_t nOut, int64_t weightBits,
                                        int64_t activationBits, int64_t groupSize,
                                        int64_t outputBits, int64_t lanes);
LinearParams linearKernelParamsForLanes(const numerics::QuantizedLinear &layer, int64_t lanes);

/// Bits one norm parameter element occupies in HBM and in st_norm's ParamSlotBits: gamma s16
/// (+ beta s(outBits + 8) above it for LayerNorm), rounded up to a power of two so that the
/// image packs whole slots into bus words. The one rule of the image and the lowering.
int64_t normParamSlotBits(bool layerNorm, unsigned outBits);

} // namespace st::model
