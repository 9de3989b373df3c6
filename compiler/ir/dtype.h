// DType: the element types of tensor-graph values: signed/unsigned integers of the datapath
// and f32 for the float reference. Parsed and printed as MLIR spells them (i8, ui8, f32).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace st::ir {

enum class DType { I1, I4, I8, I16, I32, I64, U4, U8, U16, U32, F32 };

unsigned bitWidth(DType t);
bool isInteger(DType t);
bool isSigned(DType t);
std::string toString(DType t);
/// Returns false if `text` names no DType.
bool parseDType(std::string_view text, DType &out);

/// The range of an integer type, for saturation.
int64_t minValue(DType t);
int64_t maxValue(DType t);
/// Saturate an integer result to the type's range.
int64_t saturate(int64_t value, DType t);

} // namespace st::ir
