// ITensorType: the iterative tensor type that types every stream (docs/itensor.md).
// A stream of tokens (tiles or vectors) over one full tensor, described by the token's shape and
// element type, a loop nest (trip count and step per loop, outermost first) and an iteration map
// that sends each data dimension of the tensor to the loop that sets its tile offset (or to the
// constant 0). Text form, parsed and printed byte-exactly:
//   itensor<4x2xf32, iter_space: [4,2,2]*[2,1,4], iter_map: (d0,d1,d2)->(d2,d0)>
// Also here: the verifier, the derived tensor shape, stream enumeration, the canonical stream
// form used to decide whether two types stream the same tokens, and itensor inference from a
// tiled loop nest.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace st::ir {

/// One loop of an itensor's iteration space: `tripCount` trips, the index advancing by `step`.
struct ITensorLoop {
  int64_t tripCount = 1;
  int64_t step = 1;
  bool operator==(const ITensorLoop &o) const { return tripCount == o.tripCount && step == o.step; }
  bool operator!=(const ITensorLoop &o) const { return !(*this == o); }
};

struct ITensorType {
  /// Shape of one token (a tile or a vector), one size per tensor data dimension.
  std::vector<int64_t> elementShape;
  /// Element type name: i1 i4 i8 i16 i32 i64 ui4 ui8 ui16 ui32 f16 bf16 f32 f64.
  std::string elementType;
  /// The iteration space, outermost loop first.
  std::vector<ITensorLoop> loops;
  /// The iteration map, one result per data dimension: the loop whose index (already scaled by
  /// its step) is the token's offset in that dimension, or nullopt for the constant 0. A loop no
  /// result uses re-streams the same data on each trip (reuse).
  std::vector<std::optional<unsigned>> iterMap;

  unsigned rank() const { return static_cast<unsigned>(elementShape.size()); }
  unsigned numLoops() const { return static_cast<unsigned>(loops.size()); }
  /// The data dimension loop `loop` is mapped to, or nullopt for a reuse loop.
  std::optional<unsigned> dataDimOfLoop(unsigned loop) const;
  /// The full tensor covered: dim j is tripCount*step of the loop mapped to j, or the element
  /// size if j maps to the constant 0. Call on verified types.
  std::vector<int64_t> tensorShape() const;
  /// Number of tokens in the stream (product of trip counts, reuse included).
  int64_t numTokens() const;
  /// Number of scalar elements in one token.
  int64_t elementsPerToken() const;

  /// Throws st::Error naming the field unless: element sizes, trip counts and steps are >= 1;
  /// the element type is known; the map has one result per element dimension and arity equal to
  /// the loop count; each loop is used at most once; a mapped loop's step equals the element
  /// size of its data dimension (tiles abut exactly: overlapping or gapped tiles are rejected).
  void verify() const;

  /// The text form, e.g. `itensor<2x2xf32, iter_space: [4,4]*[2,2], iter_map: (d0,d1)->(d0,d1)>`.
  std::string toString() const;

  /// Structural (textual) equality.
  bool operator==(const ITensorType &o) const {
    return elementShape == o.elementShape && elementType == o.elementType && loops == o.loops &&
           iterMap == o.iterMap;
  }
  bool operator!=(const ITensorType &o) const { return !(*this == o); }
};

/// True if `name` is an element type the itensor syntax accepts.
bool isITensorElementType(std::string_view name);
/// Bits of one element of an element type (i8 -> 8, bf16 -> 16); throws st::Error for an unknown
/// name.
unsigned elementBits(std::string_view elementType);

/// Parses and verifies the text form. Whitespace between tokens is allowed; the printed form is
/// canonical. Throws st::Error with field "column N" and what was expected there.
ITensorType parseITensorType(std::string_view text);

/// `<shape>x<type>`, e.g. "8x8xf32": the tensor an itensor streams.
std::string tensorTypeString(const std::vector<int64_t> &shape, const std::string &elementType);

/// Throws st::Error unless `type` covers exactly a tensor of shape `tensorShape`.
void checkCoversTensor(const ITensorType &type, const std::vector<int64_t> &tensorShape);

/// Calls `visit(tokenIndex, offsets)` for every token in stream order; offsets[j] is the token's
/// first index in data dim j.
void forEachToken(const ITensorType &type,
                  const std::function<void(int64_t, const std::vector<int64_t> &)> &visit);
/// Token offsets in stream order.
std::vector<std::vector<int64_t>> enumerateTokenOffsets(const ITensorType &type);
/// Row-major linear indices (into the full tensor) of the elements of the token at `offsets`,
/// in row-major order within the token.
std::vector<int64_t> tokenElements(const ITensorType &type, const std::vector<int64_t> &offsets);
/// Element-level stream order: tokenElements of every token, concatenated.
std::vector<int64_t> enumerateElementOrder(const ITensorType &type);

/// The canonical form of the stream a type describes: loops of trip count 1 dropped, reuse
/// loops given step 1, adjacent reuse loops merged into one. Two verified types stream the same
/// tokens in the same order iff their canonical forms are equal. `origin`, if given, receives
/// for every canonical loop the original loop indices it stands for.
ITensorType canonicalStream(const ITensorType &type,
                            std::vector<std::vector<unsigned>> *origin = nullptr);
/// True if both types stream the same tokens in the same order (a FIFO connects them).
bool sameStream(const ITensorType &a, const ITensorType &b);

/// One slice offset of a tiled loop nest: a loop's induction variable (which runs over
/// 0, step, 2*step, ...) or a constant.
struct SliceOffset {
  std::optional<unsigned> loop;
  int64_t constant = 0;
  static SliceOffset loopIndex(unsigned loop) { return {loop, 0}; }
  static SliceOffset constantValue(int64_t value) { return {std::nullopt, value}; }
};

/// itensor inference from a tiled loop nest (the paper's, docs/sources.md §1): the loops give the
/// iteration space, the slice offsets (one per data dim) give the map, the slice sizes give the
/// element shape. Offsets [iv2, iv0] inside loops d0,d1,d2 give (d0,d1,d2)->(d2,d0). A constant
/// offset must be 0; the result is verified, and checked against `tensorShape` if one is given.
ITensorType inferITensorType(const std::vector<ITensorLoop> &loops,
                             const std::vector<SliceOffset> &offsets,
                             const std::vector<int64_t> &sliceSizes, const std::string &elementType,
                             const std::optional<std::vector<int64_t>> &tensorShape = std::nullopt);

} // namespace st::ir
