// ConverterBufferShape: the layout converter between a producer's and a consumer's itensor
// (docs/itensor.md; the paper's Algorithm 1, docs/sources.md §1). Equal streams need no converter
// (a FIFO connects them); otherwise a ping-pong buffer is written in the producer's order and read
// in the consumer's. Loops the two streams share from the outermost inwards surround the buffer,
// which then holds only the footprint of the remaining inner loops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/itensor_type.h"

namespace st::ir {

/// A loop around the converter buffer, shared by producer and consumer at the same position.
struct SharedLoop {
  int64_t tripCount = 1;
  int64_t step = 1;
  /// The data dimension both sides map this loop to, or nullopt for a reuse loop of both.
  std::optional<unsigned> dataDim;
  /// The loop indices (d0, d1, ...) in the original producer / consumer types this loop stands
  /// for (a merged run of reuse loops gives several; see canonicalStream).
  std::vector<unsigned> producerLoops;
  std::vector<unsigned> consumerLoops;
};

struct ConverterBufferShape {
  /// False if both types stream the same tokens in the same order: connect by a FIFO.
  bool converterNeeded = false;
  /// The tensor both types stream, and its element type.
  std::vector<int64_t> tensorShape;
  std::string elementType;
  /// Buffer extent per data dimension (empty without a converter).
  std::vector<int64_t> shape;
  /// Elements the buffer holds, ping-pong excluded (0 without a converter).
  int64_t elements = 0;
  /// Loops around the buffer, outermost first.
  std::vector<SharedLoop> sharedLoops;

  /// How many times the buffer is filled and drained: the product of the shared trip counts.
  int64_t phases() const;
};

/// Infers the converter between `producer` and `consumer`. Both are reduced to their canonical
/// stream form first (canonicalStream). Then, walking loop positions from the outermost, loop k
/// is shared while both types have a loop at position k with the same trip count that either
/// (a) maps to the same data dimension with the same step (so the same element size there), or
/// (b) is a reuse loop on both sides; every loop outside a shared loop is shared. Per data dim
/// the buffer extent is the larger of the two sides' footprints within one iteration of the
/// shared loops: the element size if the dim's loop is shared or the dim maps to the constant 0,
/// the full tensor dim otherwise. Throws st::Error if the types stream different tensors
/// (shape or element type); the error's field names the consumer type.
ConverterBufferShape inferConverterBuffer(const ITensorType &producer, const ITensorType &consumer);

} // namespace st::ir
