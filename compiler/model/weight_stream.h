// The weight stream of the linear kernel st_linear (docs/weight-stream.md): the one
// implementation of the word layout, used by the HBM image writer and by the Verilator test
// (tests/rtl/linear). A numerics::QuantizedLinear (the golden model's integer fields) and the
// kernel's parameters (LinearParams) fix every bit of every word.
#pragma once

#include "model/linear_model.h"
#include "numerics/quantization.h"
#include "numerics/stream_word.h"

#include <cstdint>
#include <vector>

namespace st::model {

/// Bits of one row record in a block's header: bias s48, multiplier mantissa u24, shift u6, 2 zero.
constexpr int64_t kLinearRowRecordBits = 80;
/// Bits of one group mantissa in a weight word (group mode).
constexpr int64_t kLinearGroupScaleBits = 16;

/// Bits of one weight word that carry data: Rows*KLanes*WBits codes (+ Rows*16 mantissas).
int64_t linearStreamPayloadBits(const LinearParams &params);
/// Header words per row block: ceil(Rows * 80 / WordBits).
int64_t linearStreamHeaderWords(const LinearParams &params);

/// The words of one invocation in stream order: per block of Rows rows, the header words, then
/// K/KLanes weight words. Throws st::Error (file "weight stream", naming the field) when the
/// layer does not match the parameters (shape, weight bits, group size, row counts of bias and
/// multipliers, a shift or bias outside its field) or the parameters break a layout rule.
std::vector<numerics::StreamWord> linearWeightStreamWords(const numerics::QuantizedLinear &layer,
                                                          const LinearParams &params);

/// The same stream as bytes for the HBM image: each word as WordBits/8 bytes, little endian
/// (bit 0 of a word is bit 0 of its first byte), words back to back. WordBits must be a
/// multiple of 8.
std::vector<uint8_t> linearWeightStreamBytes(const numerics::QuantizedLinear &layer,
                                             const LinearParams &params);

} // namespace st::model
