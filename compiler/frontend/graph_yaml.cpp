// Graph YAML reader (docs/graph-yaml.md): tensors, ops with optional tiling, forced layouts.
#include "frontend/graph_yaml.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "support/error.h"

namespace st::frontend {

namespace {

class ExprParser {
public:
  ExprParser(const std::string &text, const std::string &file, const std::string &field)
      : text_(text), file_(file), field_(field) {}

  ir::ScalarExpr parseAll() {
    ir::ScalarExpr e = parse();
    skipSpace();
    if (pos_ != text_.size())
      fail("the end of the expression");
    return e;
  }

private:
  [[noreturn]] void fail(const std::string &what) {
    std::string got = pos_ < text_.size() ? "'" + text_.substr(pos_, 12) + "'" : "the end";
    throw Error(file_, field_,
                what + " at column " + std::to_string(pos_ + 1) + " of '" + text_ + "', got " +
                    got);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  void expect(char c) {
    skipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c)
      fail(std::string("'") + c + "'");
    ++pos_;
  }
  int64_t integer() {
    skipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-')
      ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    if (pos_ == start || (pos_ == start + 1 && text_[start] == '-'))
      fail("an integer");
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (error != std::errc() || end != text_.data() + pos_) {
      pos_ = start;
      fail("an integer within 64 bits");
    }
    return value;
  }
  ir::ScalarExpr parse() {
    skipSpace();
    if (pos_ < text_.size() &&
        (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-'))
      return ir::ScalarExpr::constant(integer());
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string word = text_.substr(start, pos_ - start);
    if (word.empty())
      fail("an input (in0, in1, ...), an integer or an operation such as add(...)");
    if (word.size() > 2 && word.rfind("in", 0) == 0 &&
        word.find_first_not_of("0123456789", 2) == std::string::npos) {
      unsigned index = 0;
      const char *digits = word.data() + 2, *last = word.data() + word.size();
      const auto [end, error] = std::from_chars(digits, last, index);
      if (error != std::errc() || end != last) {
        pos_ = start;
        fail("an input inN with N a 32-bit index");
      }
      return ir::ScalarExpr::input(index);
    }
    ir::ScalarExpr::Kind kind;
    if (!ir::parseScalarOpKind(word, kind)) {
      pos_ = start;
      fail("one of add, sub, mul, max, min, neg, abs, relu, shr_round, an input inN or an integer");
    }
    expect('(');
    ir::ScalarExpr a = parse();
    ir::ScalarExpr result;
    using K = ir::ScalarExpr::Kind;
    switch (kind) {
    case K::Add:
    case K::Sub:
    case K::Mul:
    case K::Max:
    case K::Min:
      expect(',');
      result = ir::ScalarExpr::binary(kind, a, parse());
      break;
    case K::ShiftRightRound: {
      expect(',');
      int64_t shift = integer();
      if (shift < 0 || shift > 62)
        fail("a shift amount in 0..62");
      result = ir::ScalarExpr::unary(kind, a, shift);
      break;
    }
    default:
      result = ir::ScalarExpr::unary(kind, a);
      break;
    }
    expect(')');
    return result;
  }

  const std::string &text_;
  const std::string &file_;
  const std::string &field_;
  size_t pos_ = 0;
};

struct Reader {
  std::string file;

  [[noreturn]] void fail(const std::string &field, const std::string &expected) const {
    throw Error(file, field, expected);
  }
  YAML::Node require(const YAML::Node &map, const std::string &key,
                     const std::string &where) const {
    if (!map.IsMap() || !map[key])
      fail(where + (where.empty() ? "" : ".") + key, "a key '" + key + "'");
    return map[key];
  }
  std::string str(const YAML::Node &n, const std::string &field) const {
    if (!n.IsScalar())
      fail(field, "a string");
    return n.as<std::string>();
  }
  int64_t integer(const YAML::Node &n, const std::string &field) const {
    try {
      if (n.IsScalar())
        return n.as<int64_t>();
    } catch (const YAML::Exception &) {
    }
    fail(field, "an integer");
  }
  std::vector<int64_t> intList(const YAML::Node &n, const std::string &field) const {
    if (!n.IsSequence())
      fail(field, "a list of integers");
    std::vector<int64_t> out;
    for (size_t i = 0; i < n.size(); ++i)
      out.push_back(integer(n[i], field + "[" + std::to_string(i) + "]"));
    return out;
  }
  ir::TensorId tensor(const ir::TensorGraph &g, const YAML::Node &n,
                      const std::string &field) const {
    std::string name = str(n, field);
    auto t = g.findTensor(name);
    if (!t)
      fail(field, "a tensor declared under 'tensors', got '" + name + "'");
    return *t;
  }
};

void readTensors(const Reader &r, const YAML::Node &root, GraphSpec &spec) {
  YAML::Node tensors = r.require(root, "tensors", "");
  if (!tensors.IsMap() || tensors.size() == 0)
    r.fail("tensors", "a map from tensor names to {shape, dtype[, role][, layout]}");
  for (const auto &kv : tensors) {
    const std::string name = kv.first.as<std::string>();
    const std::string where = "tensors." + name;
    const YAML::Node &t = kv.second;
    ir::TensorInfo info;
    info.name = name;
    info.shape = r.intList(r.require(t, "shape", where), where + ".shape");
    if (info.shape.empty())
      r.fail(where + ".shape", "at least one dimension");
    for (int64_t d : info.shape)
      if (d < 1)
        r.fail(where + ".shape", "dimensions >= 1");
    const std::string dtype = r.str(r.require(t, "dtype", where), where + ".dtype");
    if (!ir::parseDType(dtype, info.dtype) || !ir::isInteger(info.dtype))
      r.fail(where + ".dtype",
             "an integer type (i1, i4, i8, i16, i32, i64, ui4, ui8, ui16, ui32), got '" + dtype +
                 "'");
    info.role = ir::TensorRole::Intermediate;
    if (t["role"]) {
      const std::string role = r.str(t["role"], where + ".role");
      if (role == "input")
        info.role = ir::TensorRole::Input;
      else if (role == "constant")
        info.role = ir::TensorRole::Constant;
      else if (role == "output")
        info.role = ir::TensorRole::Output;
      else if (role != "intermediate")
        r.fail(where + ".role", "one of input, constant, intermediate, output, got '" + role + "'");
    }
    if (t["layout"]) {
      const std::string text = r.str(t["layout"], where + ".layout");
      try {
        spec.layouts.emplace(name, ir::parseITensorType(text));
      } catch (const Error &e) {
        r.fail(where + ".layout", "an itensor type (" + e.field() + ": " + e.expected() + ")");
      }
    }
    spec.graph.addTensor(std::move(info));
  }
}

void readOps(const Reader &r, const YAML::Node &root, GraphSpec &spec) {
  YAML::Node ops = r.require(root, "ops", "");
  if (!ops.IsSequence() || ops.size() == 0)
    r.fail("ops", "a list of ops");
  ir::TensorGraph &g = spec.graph;
  for (size_t i = 0; i < ops.size(); ++i) {
    const YAML::Node &o = ops[i];
    const std::string where = "ops[" + std::to_string(i) + "]";
    const std::string name = r.str(r.require(o, "name", where), where + ".name");
    const std::string kind = r.str(r.require(o, "op", where), where + ".op");
    const ir::TensorId out = r.tensor(g, r.require(o, "output", where), where + ".output");
    std::vector<ir::TensorId> inputs;
    const YAML::Node ins = r.require(o, "inputs", where);
    if (!ins.IsSequence() || ins.size() == 0)
      r.fail(where + ".inputs", "a list of tensor names");
    for (size_t k = 0; k < ins.size(); ++k)
      inputs.push_back(r.tensor(g, ins[k], where + ".inputs[" + std::to_string(k) + "]"));
    auto arity = [&](size_t n) {
      if (inputs.size() != n)
        r.fail(where + ".inputs", std::to_string(n) + " input(s) for " + kind);
    };
    try {
      if (kind == "matmul") {
        arity(2);
        ir::addMatmul(g, name, inputs[0], inputs[1], out);
      } else if (kind == "elementwise") {
        ir::ScalarExpr body = parseScalarExpr(r.str(r.require(o, "body", where), where + ".body"),
                                              r.file, where + ".body");
        if (body.numInputsUsed() > inputs.size())
          r.fail(where + ".body", "inputs in0..in" + std::to_string(inputs.size() - 1) + " only");
        ir::addElementwise(g, name, inputs, out, body);
      } else if (kind == "reduce") {
        arity(1);
        const int64_t dim = r.integer(r.require(o, "dim", where), where + ".dim");
        const std::string comb = r.str(r.require(o, "combiner", where), where + ".combiner");
        if (comb != "sum" && comb != "max")
          r.fail(where + ".combiner", "sum or max, got '" + comb + "'");
        if (dim < 0)
          r.fail(where + ".dim", "a dimension >= 0");
        ir::addReduce(g, name, inputs[0], out, static_cast<unsigned>(dim),
                      comb == "sum" ? ir::Combiner::Sum : ir::Combiner::Max);
      } else if (kind == "transpose") {
        arity(1);
        std::vector<unsigned> perm;
        for (int64_t p : r.intList(r.require(o, "perm", where), where + ".perm"))
          perm.push_back(static_cast<unsigned>(p));
        ir::addTranspose(g, name, inputs[0], out, perm);
      } else if (kind == "reshape") {
        arity(1);
        ir::addReshape(g, name, inputs[0], out);
      } else {
        r.fail(where + ".op",
               "one of matmul, elementwise, reduce, transpose, reshape, got '" + kind + "'");
      }
    } catch (const Error &e) {
      if (e.file() == r.file)
        throw;
      r.fail(where, e.expected() + " (" + e.field() + ")");
    }
    passes::OpTiling tiling;
    if (o["tile"])
      tiling.tileSizes = r.intList(o["tile"], where + ".tile");
    if (o["order"])
      for (int64_t d : r.intList(o["order"], where + ".order")) {
        if (d < 0)
          r.fail(where + ".order", "loop indices >= 0");
        tiling.loopOrder.push_back(static_cast<unsigned>(d));
      }
    if (!tiling.tileSizes.empty() || !tiling.loopOrder.empty())
      spec.tilings.emplace(name, tiling);
  }
}

} // namespace

ir::ScalarExpr parseScalarExpr(const std::string &text, const std::string &file,
                               const std::string &field) {
  return ExprParser(text, file, field).parseAll();
}

GraphSpec parseGraphYaml(const std::string &text, const std::string &file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception &e) {
    throw Error(file, "line " + std::to_string(e.mark.line + 1), "valid YAML (" + e.msg + ")");
  }
  Reader r{file};
  if (!root.IsMap())
    r.fail("top level", "a map with 'tensors' and 'ops'");
  GraphSpec spec;
  spec.name = root["name"] ? r.str(root["name"], "name") : "graph";
  readTensors(r, root, spec);
  readOps(r, root, spec);
  try {
    spec.graph.verify();
  } catch (const Error &e) {
    throw Error(file, e.field(), e.expected());
  }
  return spec;
}

GraphSpec loadGraphYaml(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw Error(path, "file", "a readable graph YAML file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parseGraphYaml(buffer.str(), path);
}

} // namespace st::frontend
