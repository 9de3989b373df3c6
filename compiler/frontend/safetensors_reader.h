// Reads Hugging Face safetensors weights into a WeightStore: one `model.safetensors`, or shards
// listed by `model.safetensors.index.json`. Tensors in F32, F16 or BF16 are converted to fp32.
// Every malformed input (short file, bad header, unsupported dtype, offsets outside the data,
// a shard or tensor the index names but that is absent) ends in one st::Error naming the file
// and the field.
#pragma once

#include <string>

#include "frontend/weight_store.h"

namespace st::frontend {

/// Adds every tensor of one safetensors file to `store`.
void readSafetensorsFile(const std::string &path, WeightStore &store);

/// Reads a model directory's weights: model.safetensors if present, else the shards of
/// model.safetensors.index.json. Sets the store's source to the file read (for error messages).
WeightStore readModelWeights(const std::string &modelDir);

/// IEEE half and bfloat16 bit patterns to float.
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

} // namespace st::frontend
