// AffineMap: construction, evaluation, printing and parsing of Linalg-style indexing maps.
#include "ir/affine_map.h"

#include <cctype>
#include <set>

#include "support/error.h"

namespace st::ir {

AffineExpr AffineExpr::dim(unsigned numDims, unsigned d) {
  AffineExpr e;
  e.coeffs.assign(numDims, 0);
  e.coeffs.at(d) = 1;
  return e;
}

AffineExpr AffineExpr::constantExpr(unsigned numDims, int64_t c) {
  AffineExpr e;
  e.coeffs.assign(numDims, 0);
  e.constant = c;
  return e;
}

std::optional<unsigned> AffineExpr::singleDim() const {
  if (constant != 0)
    return std::nullopt;
  std::optional<unsigned> found;
  for (unsigned d = 0; d < coeffs.size(); ++d) {
    if (coeffs[d] == 0)
      continue;
    if (coeffs[d] != 1 || found)
      return std::nullopt;
    found = d;
  }
  return found;
}

bool AffineExpr::isConstant() const {
  for (auto c : coeffs)
    if (c != 0)
      return false;
  return true;
}

int64_t AffineExpr::evaluate(const std::vector<int64_t> &point) const {
  int64_t v = constant;
  for (size_t d = 0; d < coeffs.size(); ++d)
    v += coeffs[d] * point.at(d);
  return v;
}

AffineMap AffineMap::identity(unsigned numDims) {
  AffineMap m{numDims, {}};
  for (unsigned d = 0; d < numDims; ++d)
    m.results.push_back(AffineExpr::dim(numDims, d));
  return m;
}

AffineMap AffineMap::projection(unsigned numDims, const std::vector<unsigned> &dims) {
  AffineMap m{numDims, {}};
  for (unsigned d : dims)
    m.results.push_back(AffineExpr::dim(numDims, d));
  return m;
}

std::vector<int64_t> AffineMap::evaluate(const std::vector<int64_t> &point) const {
  std::vector<int64_t> out;
  out.reserve(results.size());
  for (const auto &r : results)
    out.push_back(r.evaluate(point));
  return out;
}

bool AffineMap::isProjectedPermutation() const {
  std::set<unsigned> seen;
  for (const auto &r : results) {
    auto d = r.singleDim();
    if (!d || !seen.insert(*d).second)
      return false;
  }
  return true;
}

static std::string exprToString(const AffineExpr &e) {
  std::string s;
  for (size_t d = 0; d < e.coeffs.size(); ++d) {
    int64_t c = e.coeffs[d];
    if (c == 0)
      continue;
    if (!s.empty())
      s += c < 0 ? "-" : "+";
    else if (c < 0)
      s += "-";
    int64_t a = c < 0 ? -c : c;
    if (a != 1)
      s += std::to_string(a) + "*";
    s += "d" + std::to_string(d);
  }
  if (e.constant != 0 || s.empty()) {
    if (!s.empty())
      s += e.constant < 0 ? "-" : "+";
    else if (e.constant < 0)
      s += "-";
    s += std::to_string(e.constant < 0 ? -e.constant : e.constant);
  }
  return s;
}

std::string AffineMap::toString() const {
  std::string s = "(";
  for (unsigned d = 0; d < numDims; ++d)
    s += (d ? ",d" : "d") + std::to_string(d);
  s += ")->(";
  for (size_t i = 0; i < results.size(); ++i)
    s += (i ? "," : "") + exprToString(results[i]);
  return s + ")";
}

namespace {
class MapParser {
public:
  explicit MapParser(std::string_view text) : text_(text) {}

  AffineMap parse() {
    AffineMap m;
    expect('(');
    skipSpace();
    if (peek() != ')') {
      do {
        unsigned d = parseDimName();
        if (d != m.numDims)
          fail("loop dims must be d0, d1, ... in order");
        ++m.numDims;
      } while (accept(','));
    }
    expect(')');
    expect('-');
    expect('>');
    expect('(');
    skipSpace();
    if (peek() != ')') {
      do
        m.results.push_back(parseExpr(m.numDims));
      while (accept(','));
    }
    expect(')');
    skipSpace();
    if (pos_ != text_.size())
      fail("end of map");
    return m;
  }

private:
  AffineExpr parseExpr(unsigned numDims) {
    AffineExpr e = AffineExpr::constantExpr(numDims, 0);
    bool first = true;
    for (;;) {
      skipSpace();
      int64_t sign = 1;
      if (accept('-'))
        sign = -1;
      else if (!first && !accept('+'))
        break;
      else if (first)
        accept('+');
      first = false;
      skipSpace();
      int64_t coeff = 1;
      bool hasNumber = false;
      if (std::isdigit(static_cast<unsigned char>(peek()))) {
        coeff = parseNumber();
        hasNumber = true;
        if (!accept('*')) {
          e.constant += sign * coeff;
          continue;
        }
      }
      skipSpace();
      unsigned d = parseDimName();
      if (d >= numDims)
        fail("a loop dim below d" + std::to_string(numDims));
      e.coeffs[d] += sign * coeff;
      (void)hasNumber;
    }
    return e;
  }

  unsigned parseDimName() {
    skipSpace();
    if (peek() != 'd')
      fail("a loop dim such as d0");
    ++pos_;
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      fail("a loop dim number");
    return static_cast<unsigned>(parseNumber());
  }

  int64_t parseNumber() {
    int64_t v = 0;
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      v = v * 10 + (text_[pos_++] - '0');
    if (pos_ == start)
      fail("a number");
    return v;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool accept(char c) {
    skipSpace();
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c))
      fail(std::string("'") + c + "'");
  }
  [[noreturn]] void fail(const std::string &expected) {
    throw Error("affine map '" + std::string(text_) + "'", "column " + std::to_string(pos_ + 1),
                expected);
  }

  std::string_view text_;
  size_t pos_ = 0;
};
} // namespace

AffineMap parseAffineMap(std::string_view text) { return MapParser(text).parse(); }

} // namespace st::ir
