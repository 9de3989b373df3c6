// The weight stream of the linear kernel st_linear (docs/weight-stream.md): the one
// implementation of the word layout, used by the HBM image writer and by the Verilator test
// (tests/rtl/linear). A QuantizedLinear (the golden model's integer fields) and the kernel's
// parameters (model::LinearParams) fix every bit of every word.
#pragma once

#include "model/linear_model.h"
#include "quantization.h"

#include <cstdint>
#include <vector>

namespace st::numerics {

/// Bits of one row record in a block's header: bias s48, multiplier mantissa u24, shift u6, 2 zero.
constexpr int64_t kLinearRowRecordBits = 80;
/// Bits of one group mantissa in a weight word (group mode).
constexpr int64_t kLinearGroupScaleBits = 16;

/// One stream word, WordBits wide, as little-endian 32-bit limbs (limb 0 holds bits 0..31; the
/// layout of Verilator's VlWide and of tb::Bits), bits above WordBits zero.
using StreamWord = std::vector<uint32_t>;

/// Bits of one weight word that carry data: Rows*KLanes*WBits codes (+ Rows*16 mantissas).
int64_t linearStreamPayloadBits(const model::LinearParams &params);
/// Header words per row block: ceil(Rows * 80 / WordBits).
int64_t linearStreamHeaderWords(const model::LinearParams &params);

/// The words of one invocation in stream order: per block of Rows rows, the header words, then
/// K/KLanes weight words. Throws st::Error (file "weight stream", naming the field) when the
/// layer does not match the parameters (shape, weight bits, group size, row counts of bias and
/// multipliers, a shift or bias outside its field) or the parameters break a layout rule.
std::vector<StreamWord> linearWeightStreamWords(const QuantizedLinear &layer,
                                                const model::LinearParams &params);

/// The same stream as bytes for the HBM image: each word as WordBits/8 bytes, little endian
/// (bit 0 of a word is bit 0 of its first byte), words back to back. WordBits must be a
/// multiple of 8.
std::vector<uint8_t> linearWeightStreamBytes(const QuantizedLinear &layer,
                                             const model::LinearParams &params);

} // namespace st::numerics
