// ITensorType: text parser and printer, verifier, derived tensor shape, stream enumeration,
// canonical stream form and itensor inference from tiled loop nests.
#include "ir/itensor_type.h"

#include <array>
#include <cctype>
#include <limits>

#include "support/error.h"

namespace st::ir {

namespace {

struct ElementTypeInfo {
  const char *name;
  unsigned bits;
};
constexpr std::array<ElementTypeInfo, 14> kElementTypes{{{"i1", 1},
                                                         {"i4", 4},
                                                         {"i8", 8},
                                                         {"i16", 16},
                                                         {"i32", 32},
                                                         {"i64", 64},
                                                         {"ui4", 4},
                                                         {"ui8", 8},
                                                         {"ui16", 16},
                                                         {"ui32", 32},
                                                         {"f16", 16},
                                                         {"bf16", 16},
                                                         {"f32", 32},
                                                         {"f64", 64}}};

/// Largest trip count, step or element size the parser accepts; products are checked too.
constexpr int64_t kMaxValue = int64_t(1) << 40;

std::string elementTypeList() {
  std::string s;
  for (const ElementTypeInfo &t : kElementTypes)
    s += (s.empty() ? "" : " ") + std::string(t.name);
  return s;
}

int64_t checkedMul(int64_t a, int64_t b, const std::string &what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error("itensor type", what, "a product that fits in 64 bits");
  return r;
}

std::string joinInts(const std::vector<int64_t> &v, const char *sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

/// Recursive-descent parser of the itensor text form; errors name the 1-based column.
class ITensorParser {
public:
  explicit ITensorParser(std::string_view text) : text_(text) {}

  ITensorType parse() {
    ITensorType t;
    expectWord("itensor");
    expect('<', "'<' after 'itensor'");
    parseElement(t);
    expect(',', "',' after the element type");
    expectWord("iter_space");
    expect(':', "':' after 'iter_space'");
    std::vector<int64_t> trips = parseIntList("trip count");
    expect('*', "'*' between the trip counts and the steps");
    size_t stepsColumn = skipSpace();
    std::vector<int64_t> steps = parseIntList("step");
    if (steps.size() != trips.size())
      failAt(stepsColumn, "as many steps as trip counts (" + std::to_string(trips.size()) + ")",
             std::to_string(steps.size()) + " steps");
    for (size_t k = 0; k < trips.size(); ++k)
      t.loops.push_back({trips[k], steps[k]});
    expect(',', "',' after the iteration space");
    expectWord("iter_map");
    expect(':', "':' after 'iter_map'");
    parseMap(t);
    expect('>', "'>' closing the itensor");
    skipSpace();
    if (pos_ != text_.size())
      fail("the end of the text");
    try {
      t.verify();
    } catch (const Error &e) {
      throw Error("itensor type '" + std::string(text_) + "'", e.field(), e.expected());
    }
    return t;
  }

private:
  size_t skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    return pos_;
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool accept(char c) {
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  void expect(char c, const std::string &what) {
    if (!accept(c))
      fail(what);
  }
  /// The identifier-like word at the cursor (letters, digits, '_'), not consumed.
  std::string_view word() {
    skipSpace();
    size_t end = pos_;
    while (end < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
      ++end;
    return text_.substr(pos_, end - pos_);
  }
  void expectWord(std::string_view w) {
    if (word() != w)
      fail("'" + std::string(w) + "'");
    pos_ += w.size();
  }
  std::string found() {
    skipSpace();
    if (pos_ >= text_.size())
      return "the end of the text";
    std::string_view w = word();
    return "'" + std::string(w.empty() ? text_.substr(pos_, 1) : w) + "'";
  }
  [[noreturn]] void fail(const std::string &expected) { failAt(skipSpace(), expected, found()); }
  [[noreturn]] void failAt(size_t column, const std::string &expected, const std::string &got) {
    throw Error("itensor type '" + std::string(text_) + "'", "column " + std::to_string(column + 1),
                expected + ", got " + got);
  }

  bool atDigit() { return std::isdigit(static_cast<unsigned char>(peek())) != 0; }
  int64_t parseInt(const std::string &what) {
    if (!atDigit())
      fail("a " + what + " (a positive integer)");
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_] - '0');
      ++pos_;
      if (v > kMaxValue)
        failAt(start, "a " + what + " of at most " + std::to_string(kMaxValue), "a larger number");
    }
    if (v == 0)
      failAt(start, "a " + what + " of at least 1", "0");
    return v;
  }

  /// `2x2xf32`: sizes separated by 'x', then the element type.
  void parseElement(ITensorType &t) {
    t.elementShape.push_back(parseInt("element size"));
    while (true) {
      // The 'x' separator is glued to what follows ("x2", "xf32"): split it off by hand.
      if (peek() != 'x')
        fail("'x' after an element size");
      ++pos_;
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        t.elementShape.push_back(parseInt("element size"));
        continue;
      }
      std::string_view w = word();
      if (!isITensorElementType(w))
        fail("an element size or an element type (" + elementTypeList() + ")");
      t.elementType = std::string(w);
      pos_ += w.size();
      return;
    }
  }

  /// `[4,2,2]`, possibly empty.
  std::vector<int64_t> parseIntList(const std::string &what) {
    std::vector<int64_t> v;
    expect('[', "'[' opening the " + what + "s");
    if (accept(']'))
      return v;
    do
      v.push_back(parseInt(what));
    while (accept(','));
    expect(']', "',' or ']' after a " + what);
    return v;
  }

  /// `(d0,d1,d2)->(d2,d0)`: dims must be d0..d{n-1} with n the loop count; results dK or 0.
  void parseMap(ITensorType &t) {
    expect('(', "'(' opening the map's loop dims");
    unsigned n = 0;
    if (!accept(')')) {
      do {
        std::string want = "d" + std::to_string(n);
        if (word() != want)
          fail("loop dim '" + want + "'");
        pos_ += want.size();
        ++n;
      } while (accept(','));
      expect(')', "',' or ')' after a loop dim");
    }
    if (n != t.numLoops())
      failAt(pos_ - 1, "as many map dims as loops (" + std::to_string(t.numLoops()) + ")",
             std::to_string(n) + " dims");
    if (peek() != '-' || text_.substr(pos_, 2) != "->")
      fail("'->'");
    pos_ += 2;
    expect('(', "'(' opening the map's results");
    if (peek() == ')')
      fail("a map result (one per element dimension)");
    do {
      std::string_view w = word();
      if (w == "0") {
        t.iterMap.push_back(std::nullopt);
        pos_ += 1;
        continue;
      }
      bool isDim = w.size() >= 2 && w[0] == 'd';
      for (size_t i = 1; isDim && i < w.size(); ++i)
        isDim = std::isdigit(static_cast<unsigned char>(w[i])) != 0;
      if (!isDim || w.size() > 10)
        fail("a map result (a loop dim d0..d" + std::to_string(n ? n - 1 : 0) +
             " or the constant 0)");
      unsigned d = static_cast<unsigned>(std::stoul(std::string(w.substr(1))));
      if (d >= n)
        fail("a loop dim below d" + std::to_string(n));
      t.iterMap.push_back(d);
      pos_ += w.size();
    } while (accept(','));
    expect(')', "',' or ')' after a map result");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

} // namespace

bool isITensorElementType(std::string_view name) {
  for (const ElementTypeInfo &t : kElementTypes)
    if (name == t.name)
      return true;
  return false;
}

unsigned elementBits(std::string_view elementType) {
  for (const ElementTypeInfo &t : kElementTypes)
    if (elementType == t.name)
      return t.bits;
  throw Error("itensor", "element type",
              "one of " + elementTypeList() + ", got '" + std::string(elementType) + "'");
}

std::optional<unsigned> ITensorType::dataDimOfLoop(unsigned loop) const {
  for (unsigned j = 0; j < iterMap.size(); ++j)
    if (iterMap[j] == loop)
      return j;
  return std::nullopt;
}

std::vector<int64_t> ITensorType::tensorShape() const {
  std::vector<int64_t> shape(rank());
  for (unsigned j = 0; j < rank(); ++j)
    shape[j] = iterMap[j] ? checkedMul(loops[*iterMap[j]].tripCount, loops[*iterMap[j]].step,
                                       "tensor dim " + std::to_string(j))
                          : elementShape[j];
  return shape;
}

int64_t ITensorType::numTokens() const {
  int64_t n = 1;
  for (const auto &l : loops)
    n = checkedMul(n, l.tripCount, "token count");
  return n;
}

int64_t ITensorType::elementsPerToken() const {
  int64_t n = 1;
  for (int64_t s : elementShape)
    n = checkedMul(n, s, "element count");
  return n;
}

void ITensorType::verify() const {
  const std::string file = "itensor type";
  if (elementShape.empty())
    throw Error(file, "element shape", "at least one dimension");
  for (unsigned j = 0; j < rank(); ++j)
    if (elementShape[j] < 1)
      throw Error(file, "element size " + std::to_string(j), "a size >= 1");
  if (!isITensorElementType(elementType))
    throw Error(file, "element type",
                "one of " + elementTypeList() + ", got '" + elementType + "'");
  for (unsigned k = 0; k < numLoops(); ++k) {
    if (loops[k].tripCount < 1)
      throw Error(file, "iter_space loop d" + std::to_string(k), "a trip count >= 1");
    if (loops[k].step < 1)
      throw Error(file, "iter_space loop d" + std::to_string(k), "a step >= 1");
  }
  if (iterMap.size() != elementShape.size())
    throw Error(file, "iter_map",
                "one result per element dimension (" + std::to_string(rank()) + "), got " +
                    std::to_string(iterMap.size()));
  std::vector<bool> used(numLoops(), false);
  for (unsigned j = 0; j < rank(); ++j) {
    if (!iterMap[j])
      continue;
    unsigned k = *iterMap[j];
    std::string field = "iter_map result " + std::to_string(j);
    if (k >= numLoops())
      throw Error(file, field, "a loop dim below d" + std::to_string(numLoops()));
    if (used[k])
      throw Error(file, field, "each loop used at most once, got d" + std::to_string(k) + " again");
    used[k] = true;
    if (loops[k].step != elementShape[j])
      throw Error(file, field,
                  "loop d" + std::to_string(k) + " to step by the element size " +
                      std::to_string(elementShape[j]) + " of data dim " + std::to_string(j) +
                      " (tiles abut exactly), got step " + std::to_string(loops[k].step));
  }
  tensorShape(); // overflow check
  numTokens();
}

std::string ITensorType::toString() const {
  std::string s = "itensor<" + joinInts(elementShape, "x") + "x" + elementType + ", iter_space: [";
  std::vector<int64_t> trips, steps;
  for (const auto &l : loops) {
    trips.push_back(l.tripCount);
    steps.push_back(l.step);
  }
  s += joinInts(trips, ",") + "]*[" + joinInts(steps, ",") + "], iter_map: (";
  for (unsigned k = 0; k < numLoops(); ++k)
    s += (k ? ",d" : "d") + std::to_string(k);
  s += ")->(";
  for (unsigned j = 0; j < iterMap.size(); ++j)
    s += (j ? "," : "") + (iterMap[j] ? "d" + std::to_string(*iterMap[j]) : std::string("0"));
  return s + ")>";
}

ITensorType parseITensorType(std::string_view text) {
  return ITensorParser(text).parse();
}

std::string tensorTypeString(const std::vector<int64_t> &shape, const std::string &elementType) {
  return joinInts(shape, "x") + "x" + elementType;
}

void checkCoversTensor(const ITensorType &type, const std::vector<int64_t> &tensorShape) {
  std::vector<int64_t> covered = type.tensorShape();
  if (covered != tensorShape)
    throw Error(type.toString(), "covered tensor",
                "shape " + joinInts(tensorShape, "x") + ", got " + joinInts(covered, "x"));
}

void forEachToken(const ITensorType &type,
                  const std::function<void(int64_t, const std::vector<int64_t> &)> &visit) {
  const unsigned n = type.numLoops();
  std::vector<int64_t> iv(n, 0);
  std::vector<int64_t> offsets(type.rank(), 0);
  const int64_t tokens = type.numTokens();
  for (int64_t t = 0; t < tokens; ++t) {
    for (unsigned j = 0; j < type.rank(); ++j)
      offsets[j] = type.iterMap[j] ? iv[*type.iterMap[j]] * type.loops[*type.iterMap[j]].step : 0;
    visit(t, offsets);
    for (int k = static_cast<int>(n) - 1; k >= 0; --k) { // odometer, innermost loop fastest
      if (++iv[k] < type.loops[k].tripCount)
        break;
      iv[k] = 0;
    }
  }
}

std::vector<std::vector<int64_t>> enumerateTokenOffsets(const ITensorType &type) {
  std::vector<std::vector<int64_t>> out;
  forEachToken(type, [&](int64_t, const std::vector<int64_t> &off) { out.push_back(off); });
  return out;
}

std::vector<int64_t> tokenElements(const ITensorType &type, const std::vector<int64_t> &offsets) {
  const std::vector<int64_t> shape = type.tensorShape();
  const unsigned r = type.rank();
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(type.elementsPerToken()));
  std::vector<int64_t> idx(r, 0);
  for (int64_t e = 0; e < type.elementsPerToken(); ++e) {
    int64_t linear = 0;
    for (unsigned j = 0; j < r; ++j)
      linear = linear * shape[j] + offsets[j] + idx[j];
    out.push_back(linear);
    for (int j = static_cast<int>(r) - 1; j >= 0; --j) {
      if (++idx[j] < type.elementShape[j])
        break;
      idx[j] = 0;
    }
  }
  return out;
}

std::vector<int64_t> enumerateElementOrder(const ITensorType &type) {
  std::vector<int64_t> out;
  forEachToken(type, [&](int64_t, const std::vector<int64_t> &off) {
    std::vector<int64_t> e = tokenElements(type, off);
    out.insert(out.end(), e.begin(), e.end());
  });
  return out;
}

ITensorType canonicalStream(const ITensorType &type, std::vector<std::vector<unsigned>> *origin) {
  ITensorType c;
  c.elementShape = type.elementShape;
  c.elementType = type.elementType;
  c.iterMap.assign(type.rank(), std::nullopt);
  std::vector<std::vector<unsigned>> from;
  for (unsigned k = 0; k < type.numLoops(); ++k) {
    if (type.loops[k].tripCount == 1)
      continue; // a single trip streams nothing new; a mapped one covers just the element
    std::optional<unsigned> dim = type.dataDimOfLoop(k);
    bool prevIsReuse = !c.loops.empty() && !c.dataDimOfLoop(c.numLoops() - 1);
    if (!dim && prevIsReuse) { // adjacent reuse loops stream like one: merge
      c.loops.back().tripCount =
          checkedMul(c.loops.back().tripCount, type.loops[k].tripCount, "merged reuse loop");
      from.back().push_back(k);
      continue;
    }
    if (dim)
      c.iterMap[*dim] = c.numLoops();
    c.loops.push_back({type.loops[k].tripCount, dim ? type.loops[k].step : 1});
    from.push_back({k});
  }
  if (origin)
    *origin = std::move(from);
  return c;
}

bool sameStream(const ITensorType &a, const ITensorType &b) {
  return canonicalStream(a) == canonicalStream(b);
}

ITensorType inferITensorType(const std::vector<ITensorLoop> &loops,
                             const std::vector<SliceOffset> &offsets,
                             const std::vector<int64_t> &sliceSizes, const std::string &elementType,
                             const std::optional<std::vector<int64_t>> &tensorShape) {
  const std::string file = "itensor inference";
  if (offsets.size() != sliceSizes.size())
    throw Error(file, "slice offsets",
                "one offset per slice size (" + std::to_string(sliceSizes.size()) + "), got " +
                    std::to_string(offsets.size()));
  ITensorType t;
  t.elementShape = sliceSizes;
  t.elementType = elementType;
  t.loops = loops;
  for (unsigned j = 0; j < offsets.size(); ++j) {
    const SliceOffset &o = offsets[j];
    if (o.loop) {
      if (*o.loop >= loops.size())
        throw Error(file, "slice offset " + std::to_string(j),
                    "a loop index below " + std::to_string(loops.size()) + ", got iv" +
                        std::to_string(*o.loop));
      t.iterMap.push_back(*o.loop);
    } else {
      if (o.constant != 0)
        throw Error(file, "slice offset " + std::to_string(j),
                    "a loop index or the constant 0 (the stream covers the whole tensor), got " +
                        std::to_string(o.constant));
      t.iterMap.push_back(std::nullopt);
    }
  }
  try {
    t.verify();
  } catch (const Error &e) {
    throw Error(file, e.field(), e.expected());
  }
  if (tensorShape)
    checkCoversTensor(t, *tensorShape);
  return t;
}

} // namespace st::ir
