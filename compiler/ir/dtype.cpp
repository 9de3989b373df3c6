// DType: element types, their widths, ranges and text names.
#include "ir/dtype.h"

#include <algorithm>
#include <array>
#include <utility>

namespace st::ir {

namespace {
struct DTypeInfo {
  DType type;
  const char *name;
  unsigned bits;
  bool isSigned;
  bool isInteger;
};
constexpr std::array<DTypeInfo, 11> kInfo{{
    {DType::I1, "i1", 1, false, true},
    {DType::I4, "i4", 4, true, true},
    {DType::I8, "i8", 8, true, true},
    {DType::I16, "i16", 16, true, true},
    {DType::I32, "i32", 32, true, true},
    {DType::I64, "i64", 64, true, true},
    {DType::U4, "ui4", 4, false, true},
    {DType::U8, "ui8", 8, false, true},
    {DType::U16, "ui16", 16, false, true},
    {DType::U32, "ui32", 32, false, true},
    {DType::F32, "f32", 32, true, false},
}};
const DTypeInfo &info(DType t) { return kInfo[static_cast<size_t>(t)]; }
} // namespace

unsigned bitWidth(DType t) { return info(t).bits; }
bool isInteger(DType t) { return info(t).isInteger; }
bool isSigned(DType t) { return info(t).isSigned; }
std::string toString(DType t) { return info(t).name; }

bool parseDType(std::string_view text, DType &out) {
  for (const auto &i : kInfo)
    if (text == i.name) {
      out = i.type;
      return true;
    }
  return false;
}

int64_t minValue(DType t) {
  const auto &i = info(t);
  if (!i.isSigned || !i.isInteger)
    return 0;
  return i.bits == 64 ? INT64_MIN : -(int64_t{1} << (i.bits - 1));
}

int64_t maxValue(DType t) {
  const auto &i = info(t);
  if (i.bits == 64)
    return INT64_MAX;
  if (i.isSigned)
    return (int64_t{1} << (i.bits - 1)) - 1;
  return (int64_t{1} << i.bits) - 1;
}

int64_t saturate(int64_t value, DType t) {
  return std::clamp(value, minValue(t), maxValue(t));
}

} // namespace st::ir
