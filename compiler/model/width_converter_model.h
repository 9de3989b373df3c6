// Timing and resource model of st_width_converter (rtl_templates/stream/st_width_converter.sv)
// splitting each wide token into Ratio narrow ones, lowest bits first: a KV cache read wider than
// attention's token (llm/kv_striping.h, kvReadStripingOf) reaches st_attention through one.
// The template holds one wide token and sends one part a cycle, the first the cycle after the
// token came; the next token is taken in the cycle its last part leaves (exact: one output a
// cycle while the producer keeps up and the consumer is ready).
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

struct WidthConverterParams {
  int64_t inWidth = 512; ///< InWidth: bits of a wide input token
  int64_t outWidth = 64; ///< OutWidth: bits of a narrow output token (divides InWidth)
};

/// `inputTokens` tokens of `inWidth` bits split into tokens of `outWidth` bits (a divisor).
/// Throws std::invalid_argument when outWidth does not divide inWidth.
KernelTiming widthConverterTiming(int64_t inWidth, int64_t outWidth, int64_t inputTokens);

/// The held wide token, its part counter and the Ratio:1 part multiplexer (a LUT6 is a 4:1 mux
/// bit). Yosys (synth.width_converter.down512to64): 199 LUTs and 516 FFs, as estimated.
ResourceEstimate widthConverterResources(int64_t inWidth, int64_t outWidth);

} // namespace st::model
