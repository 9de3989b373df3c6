// The HBM capacity check from a model's shapes alone (docs/hbm-image.md, "Capacity"): before any
// weight is read, calibrated or quantized, compile adds up lower bounds of the bytes the HBM
// image will hold (the weights' codes at the precision's width, every embedding table's rows, the
// KV caches' codes at the max context) and stops with one error when they exceed the device's
// HBM. A design that passes may still find no room in the plan (plan/hbm_plan.h), whose error
// then comes after quantization; one that fails here never fits.
#pragma once

#include <cstdint>
#include <string>

#include "ir/decode_program.h"
#include "numerics/quantization.h"
#include "plan/hbm_plan.h"

namespace st::plan {

/// Lower bounds of the HBM bytes of a model's image, by what grows with the context.
struct HbmCapacityNeed {
  int64_t weightBytes = 0;        ///< every linear's weight codes, all layers (no scales, headers)
  int64_t tableBytes = 0;         ///< every embedding table's rows
  int64_t kvBytesPerPosition = 0; ///< the K and V codes of one position, all layers
  std::string kvBuffer;           ///< the first K cache's buffer name ("block/attention.k_cache")
  std::string largestFixed;       ///< the largest fixed-size buffer's name
  int64_t largestFixedBytes = 0;
  int64_t maxPositions = 0; ///< the program's (the largest --max-context to suggest)
  int64_t fixedBytes() const { return weightBytes + tableBytes; }
  int64_t bytesAt(int64_t maxContext) const {
    return fixedBytes() + kvBytesPerPosition * maxContext;
  }
};

/// The lower bounds of `program` at `precision` (the program's shapes only: its weights are
/// not read).
HbmCapacityNeed hbmCapacityNeed(const ir::DecodeProgram &program, numerics::Precision precision);

/// Throws st::Error ("hbm capacity", one line naming the buffer that does not fit, its size, the
/// room the device leaves for it and the --max-context that fits, or the precision when the
/// weights alone do not fit) when `need` at `maxContext` exceeds the device's HBM.
void checkHbmCapacity(const HbmCapacityNeed &need, const HbmDevice &device, int64_t maxContext);

} // namespace st::plan
