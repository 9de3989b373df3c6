// Emitter of generated element-wise kernels (see elementwise_module.h).
//
// Every output element calls one SystemVerilog function `element` on the input elements it
// reads; the function evaluates the body node by node, each node in a signed variable of its
// analysed width:
//   - add, sub, mul, neg compute in the node's width from operands sign-extended or truncated to
//     it (exact: these are ring operations and the exact result fits the width);
//   - max and min compare in the wider operand width, abs and relu test the operand's sign bit;
//   - shr_round(x, s) takes |x| in a width holding |x| + 2^(s-1), shifts, and restores the sign
//     (half away from zero, as ScalarExpr::evaluate);
//   - the saturation compares with the output type's bounds only where the range exceeds them.
#include "gen/elementwise_module.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <sstream>

#include "support/error.h"

namespace st::gen {

using ir::ElementwiseDatapath;
using ir::elementwiseInputsRead;
using ir::ElementwiseNode;

namespace {

using Kind = ir::ScalarExpr::Kind;
using i128 = __int128;

/// `width`'sh<hex>: the two's complement bits of v in `width` bits.
std::string literal(i128 v, unsigned width, bool isSigned = true) {
  unsigned __int128 bits = static_cast<unsigned __int128>(v);
  if (width < 128)
    bits &= (static_cast<unsigned __int128>(1) << width) - 1;
  std::string hex;
  do {
    hex.insert(hex.begin(), "0123456789abcdef"[static_cast<unsigned>(bits & 15)]);
    bits >>= 4;
  } while (bits != 0);
  return std::to_string(width) + (isSigned ? "'sh" : "'h") + hex;
}

std::string cast(unsigned width, const std::string &expr) {
  return std::to_string(width) + "'(" + expr + ")";
}

std::string nodeName(unsigned i) {
  return "n" + std::to_string(i);
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

/// The statement computing node i from its operands (see the file comment).
std::string nodeStatement(const std::vector<ElementwiseNode> &nodes, unsigned i,
                          const std::vector<ir::DType> &types) {
  const ElementwiseNode &n = nodes[i];
  const unsigned w = n.width;
  auto op = [&](size_t k) { return nodeName(n.operands[k]); };
  auto opWidth = [&](size_t k) { return nodes[n.operands[k]].width; };
  auto sign = [&](size_t k) { return op(k) + "[" + std::to_string(opWidth(k) - 1) + "]"; };
  // Ring operations (add, sub, mul, neg) and abs/relu compute in the width of their widest
  // operand or result, then keep the result's width: exact, and every operand bit is read.
  unsigned cw = w;
  for (size_t k = 0; k < n.operands.size(); ++k)
    cw = std::max(cw, opWidth(k));
  auto wide = [&](size_t k) { return cast(cw, op(k)); };
  auto neg = [&](const std::string &e) { return "-(" + e + ")"; }; // Yosys reads -8'(x) as a cast
  const std::string lhs = "    " + nodeName(i) + " = ";
  switch (n.kind) {
  case Kind::Input: {
    const ir::DType t = types[static_cast<size_t>(n.value)];
    const std::string x = "x" + std::to_string(n.value);
    return lhs + (ir::isSigned(t) ? "$signed(" + x + ")" : "$signed({1'b0, " + x + "})") + ";\n";
  }
  case Kind::Constant:
    return lhs + literal(n.value, w) + ";\n";
  case Kind::Add:
    return lhs + cast(w, wide(0) + " + " + wide(1)) + ";\n";
  case Kind::Sub:
    return lhs + cast(w, wide(0) + " - " + wide(1)) + ";\n";
  case Kind::Mul:
    return lhs + cast(w, wide(0) + " * " + wide(1)) + ";\n";
  case Kind::Neg:
    return lhs + cast(w, neg(wide(0))) + ";\n";
  case Kind::Max:
  case Kind::Min: {
    const char *cmp = n.kind == Kind::Max ? " > " : " < ";
    return lhs + cast(w, "(" + wide(0) + cmp + wide(1) + ") ? " + wide(0) + " : " + wide(1)) +
           ";\n";
  }
  case Kind::Abs:
    return lhs + cast(w, sign(0) + " ? " + neg(wide(0)) + " : " + wide(0)) + ";\n";
  case Kind::Relu:
    return lhs + cast(w, sign(0) + " ? " + literal(0, cw) + " : " + wide(0)) + ";\n";
  case Kind::ShiftRightRound: {
    if (n.value == 0)
      return lhs + cast(w, wide(0)) + ";\n";
    const unsigned sw = std::max<unsigned>(opWidth(0), static_cast<unsigned>(n.value)) + 2;
    const std::string mag =
        "(" + sign(0) + " ? " + neg(cast(sw, op(0))) + " : " + cast(sw, op(0)) + ")";
    const std::string shifted = "((" + mag + " + " + literal(i128(1) << (n.value - 1), sw) +
                                ") >>> " + std::to_string(n.value) + ")";
    return lhs + sign(0) + " ? " + neg(cast(w, shifted)) + " : " + cast(w, shifted) + ";\n";
  }
  }
  return {};
}

} // namespace

std::string emitElementwiseFunction(const std::string &functionName, const ir::ScalarExpr &body,
                                    const std::vector<ir::DType> &inputTypes,
                                    ir::DType outputType) {
  if (!isIdentifier(functionName))
    throw Error("elementwise function '" + functionName + "'", "name",
                "a SystemVerilog identifier (letters, digits, _)");
  const ElementwiseDatapath d = ir::analyzeElementwise(functionName, body, inputTypes, outputType);
  const unsigned outBits = ir::bitWidth(outputType);
  const std::string &f = functionName;
  std::ostringstream o;
  o << "  // One output element from the input elements it reads; node widths from the body's\n"
    << "  // exact value ranges.\n"
    << "  function automatic logic [" << outBits - 1 << ":0] " << f << "(";
  bool firstArg = true;
  for (unsigned i : elementwiseInputsRead(body)) {
    o << (firstArg ? "" : ", ") << "input logic [" << ir::bitWidth(inputTypes[i]) - 1 << ":0] x"
      << i;
    firstArg = false;
  }
  o << ");\n";
  // The result's sign bit is never read when its range is non-negative and fits the unsigned
  // output type unclamped: the only bits a generated module leaves unread.
  const bool unreadSign = d.nodes.back().width > outBits && !d.clampHigh && !d.clampLow;
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    const auto &n = d.nodes[i];
    const bool last = i + 1 == d.nodes.size();
    if (last && unreadSign)
      o << "    // verilator lint_off UNUSEDSIGNAL\n";
    o << "    logic signed [" << n.width - 1 << ":0] " << nodeName(unsigned(i)) << ";  // ["
      << static_cast<long long>(n.lo) << ", " << static_cast<long long>(n.hi) << "]\n";
    if (last && unreadSign)
      o << "    // verilator lint_on UNUSEDSIGNAL\n";
  }
  for (size_t i = 0; i < d.nodes.size(); ++i)
    o << nodeStatement(d.nodes, unsigned(i), inputTypes);
  const unsigned root = unsigned(d.nodes.size() - 1);
  const unsigned rw = d.nodes[root].width;
  const std::string r = nodeName(root);
  std::string prefix = "    ";
  if (d.clampHigh) {
    o << prefix << "if (" << r << " > " << literal(ir::maxValue(outputType), rw) << ") " << f
      << " = " << literal(ir::maxValue(outputType), outBits, false) << ";\n";
    prefix = "    else ";
  }
  if (d.clampLow) {
    o << prefix << "if (" << r << " < " << literal(ir::minValue(outputType), rw) << ") " << f
      << " = " << literal(ir::minValue(outputType), outBits, false) << ";\n";
    prefix = "    else ";
  }
  o << prefix << f << " = " << cast(outBits, r) << ";\n"
    << "  endfunction\n";
  return o.str();
}

std::string emitElementwiseModule(const std::string &name, const ir::ScalarExpr &body,
                                  const std::vector<int64_t> &outputTileShape,
                                  const std::vector<std::vector<int64_t>> &inputTileShapes,
                                  const std::vector<ir::DType> &inputTypes, ir::DType outputType) {
  const std::string where = "elementwise module '" + name + "'";
  if (!isIdentifier(name))
    throw Error(where, "name", "a SystemVerilog identifier (letters, digits, _)");
  if (inputTileShapes.empty())
    throw Error(where, "inputs", "at least one input");
  if (inputTileShapes.size() != inputTypes.size())
    throw Error(where, "input types",
                std::to_string(inputTileShapes.size()) + " types (one per input tile shape), got " +
                    std::to_string(inputTypes.size()));
  for (auto d : outputTileShape)
    if (d < 1)
      throw Error(where, "output tile shape " + shapeText(outputTileShape), "extents >= 1");
  const size_t rank = outputTileShape.size();
  for (size_t i = 0; i < inputTileShapes.size(); ++i) {
    const auto &s = inputTileShapes[i];
    const std::string field = "input " + std::to_string(i) + " tile shape " + shapeText(s);
    if (s.size() > rank)
      throw Error(where, field, "rank <= " + std::to_string(rank) + " (the output tile's)");
    for (size_t j = 0; j < s.size(); ++j) {
      const int64_t out = outputTileShape[rank - s.size() + j];
      if (s[j] != 1 && s[j] != out)
        throw Error(where, field,
                    "extent 1 or " + std::to_string(out) + " in dimension " + std::to_string(j) +
                        " (numpy broadcast against output tile " + shapeText(outputTileShape) +
                        "), got " + std::to_string(s[j]));
    }
  }
  ir::analyzeElementwise(name, body, inputTypes, outputType); // errors name the module
  const std::vector<unsigned> read = elementwiseInputsRead(body);
  const std::set<unsigned> used(read.begin(), read.end());

  const size_t inputs = inputTileShapes.size();
  const unsigned outBits = ir::bitWidth(outputType);
  const int64_t outElems = elementCount(outputTileShape);
  std::vector<unsigned> inBits;
  std::vector<int64_t> inElems;
  for (size_t i = 0; i < inputs; ++i) {
    inBits.push_back(ir::bitWidth(inputTypes[i]));
    inElems.push_back(elementCount(inputTileShapes[i]));
  }

  std::ostringstream o;
  o << "// " << name
    << ": element-wise kernel generated by streamtensor (gen/elementwise_module.cpp).\n"
    << "//   out = sat_" << ir::toString(outputType) << "(" << body.toString() << ")\n"
    << "// Output tile " << shapeText(outputTileShape) << " of " << ir::toString(outputType);
  for (size_t i = 0; i < inputs; ++i)
    o << "; in" << i << " tile " << shapeText(inputTileShapes[i]) << " of "
      << ir::toString(inputTypes[i]);
  o << " (numpy broadcast).\n"
    << "// Tokens are tiles, elements row-major, element 0 at bits [0 +: Bits]. All inputs are\n"
    << "// taken together; one register stage and an output register slice: II = 1, first\n"
    << "// output 2 cycles after its inputs. Bit-exact with ScalarExpr::evaluate + saturation.\n"
    << "`default_nettype none\n\n"
    << "module " << name << " (\n"
    << "    input  wire clk_i,\n"
    << "    input  wire rst_ni,  // synchronous, active low\n";
  for (size_t i = 0; i < inputs; ++i) {
    const std::string p = "in" + std::to_string(i);
    o << "    input  wire " << p << "_valid_i,\n"
      << "    output logic " << p << "_ready_o,\n"
      << "    input  wire [" << inElems[i] * inBits[i] - 1 << ":0] " << p << "_data_i,\n";
  }
  o << "    output logic valid_o,\n"
    << "    input  wire ready_i,\n"
    << "    output logic [" << outElems * outBits - 1 << ":0] data_o\n"
    << ");\n\n";

  o << emitElementwiseFunction("element", body, inputTypes, outputType) << "\n";

  // ---- control: all inputs together, one register stage ----
  o << "  logic advance;  // the output register slice can take a token this cycle\n"
    << "  wire all_valid = ";
  for (size_t i = 0; i < inputs; ++i)
    o << (i ? " && " : "") << "in" << i << "_valid_i";
  o << ";\n";
  for (size_t i = 0; i < inputs; ++i) {
    o << "  assign in" << i << "_ready_o = advance";
    for (size_t j = 0; j < inputs; ++j)
      if (j != i)
        o << " && in" << j << "_valid_i";
    o << ";\n";
  }
  for (size_t i = 0; i < inputs; ++i)
    if (!used.count(unsigned(i)))
      o << "  wire unused_in" << i << " = ^in" << i << "_data_i;  // not read by the body\n";
  o << "\n  logic [" << outElems * outBits - 1 << ":0] result_d, result_q;\n";
  std::vector<int64_t> index(rank, 0);
  for (int64_t e = 0; e < outElems; ++e) {
    o << "  assign result_d[" << e * outBits << " +: " << outBits << "] = element(";
    bool firstArg = true;
    for (unsigned i : used) {
      const auto &s = inputTileShapes[i];
      int64_t lin = 0;
      for (size_t j = 0; j < s.size(); ++j)
        lin = lin * s[j] + (s[j] == 1 ? 0 : index[rank - s.size() + j]);
      o << (firstArg ? "" : ", ") << "in" << i << "_data_i[" << lin * inBits[i]
        << " +: " << inBits[i] << "]";
      firstArg = false;
    }
    o << ");\n";
    for (size_t j = rank; j-- > 0;) {
      if (++index[j] < outputTileShape[j])
        break;
      index[j] = 0;
    }
  }
  o << "\n  logic valid_q;\n"
    << "  always_ff @(posedge clk_i) begin\n"
    << "    if (!rst_ni) valid_q <= 1'b0;\n"
    << "    else if (advance) valid_q <= all_valid;\n"
    << "  end\n"
    << "  always_ff @(posedge clk_i) begin\n"
    << "    if (advance && all_valid) result_q <= result_d;\n"
    << "  end\n\n"
    << "  st_skid_buffer #(\n"
    << "      .Width(" << outElems * outBits << ")\n"
    << "  ) u_output_slice (\n"
    << "      .clk_i  (clk_i),\n"
    << "      .rst_ni (rst_ni),\n"
    << "      .valid_i(valid_q),\n"
    << "      .ready_o(advance),\n"
    << "      .data_i (result_q),\n"
    << "      .valid_o(valid_o),\n"
    << "      .ready_i(ready_i),\n"
    << "      .data_o (data_o)\n"
    << "  );\n\n"
    << "endmodule\n\n"
    << "`default_nettype wire\n";
  return o.str();
}

} // namespace st::gen
