// Kernel bindings of the LLM accelerator (plan/llm_kernel_bindings): for every fixture at W4A8
// and W8A16, every kernel of every lowered stage gets sidebands for every run whose ports and
// widths are the RTL module's (parsed from rtl_templates/kernels/<module>.sv with the node's
// parameters) and whose values fit; its table parameters name files that exist and are
// parameters of the module; and the values are the right ones: each op's numerics golden kernel,
// run with a descriptor rebuilt only from the decoded port values, reproduces the
// GoldenExecutor's tap of that op bit for bit over a short decode.
#include "plan/llm_kernel_bindings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/calibration.h"
#include "frontend/decode_builder.h"
#include "frontend/golden_executor.h"
#include "gen/kernel_tables.h"
#include "llm/stage_lowering.h"
#include "support/error.h"

namespace st::plan {
namespace {

namespace num = st::numerics;

const char *const kFixtures[] = {"gpt2_tiny",   "llama_tiny_gqa", "qwen2_tiny_mqa",
                                 "gemma3_tiny", "qwen3_tiny",     "mistral_tiny"};

// ---- a reader of the kernel modules' headers ------------------------------------------------

/// Evaluates the integer expressions of port ranges and parameter defaults: + - * / ( ) ?: >
/// < >= <= == $clog2 and parameter names.
class ExprEval {
public:
  ExprEval(const std::string &text, const std::map<std::string, int64_t> &names)
      : s_(text), names_(names) {}
  int64_t run() {
    const int64_t v = ternary();
    skip();
    if (i_ != s_.size())
      throw std::runtime_error("trailing text in '" + s_ + "'");
    return v;
  }

private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
      ++i_;
  }
  bool eat(const std::string &tok) {
    skip();
    if (s_.compare(i_, tok.size(), tok) == 0) {
      i_ += tok.size();
      return true;
    }
    return false;
  }
  int64_t ternary() {
    const int64_t c = compare();
    if (!eat("?"))
      return c;
    const int64_t a = ternary();
    if (!eat(":"))
      throw std::runtime_error("':' expected in '" + s_ + "'");
    const int64_t b = ternary();
    return c ? a : b;
  }
  int64_t compare() {
    const int64_t a = additive();
    if (eat(">="))
      return a >= additive();
    if (eat("<="))
      return a <= additive();
    if (eat("=="))
      return a == additive();
    if (eat(">"))
      return a > additive();
    if (eat("<"))
      return a < additive();
    return a;
  }
  int64_t additive() {
    int64_t v = multiplicative();
    for (;;) {
      if (eat("+"))
        v += multiplicative();
      else if (eat("-"))
        v -= multiplicative();
      else
        return v;
    }
  }
  int64_t multiplicative() {
    int64_t v = unary();
    for (;;) {
      if (eat("*"))
        v *= unary();
      else if (eat("/"))
        v /= unary();
      else
        return v;
    }
  }
  int64_t unary() {
    skip();
    if (eat("-"))
      return -unary();
    if (eat("(")) {
      const int64_t v = ternary();
      if (!eat(")"))
        throw std::runtime_error("')' expected in '" + s_ + "'");
      return v;
    }
    if (eat("$clog2(")) {
      const int64_t v = ternary();
      if (!eat(")"))
        throw std::runtime_error("')' expected in '" + s_ + "'");
      int64_t n = 0;
      while ((int64_t(1) << n) < v)
        ++n;
      return n;
    }
    size_t j = i_;
    if (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) {
      while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j])))
        ++j;
      const int64_t v = std::stoll(s_.substr(i_, j - i_));
      i_ = j;
      return v;
    }
    while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_'))
      ++j;
    const std::string name = s_.substr(i_, j - i_);
    auto it = names_.find(name);
    if (name.empty() || it == names_.end())
      throw std::runtime_error("unknown name '" + name + "' in '" + s_ + "'");
    i_ = j;
    return it->second;
  }

  std::string s_;
  const std::map<std::string, int64_t> &names_;
  size_t i_ = 0;
};

struct ModuleHeader {
  std::vector<std::pair<std::string, std::string>> params;  ///< name, default expression
  std::vector<std::pair<std::string, std::string>> inputs;  ///< name, range text ("" = 1 bit)
  std::vector<std::pair<std::string, std::string>> outputs; ///< the same for output ports
  std::vector<std::string> allPorts;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The parameter and port lists of `module` (comments stripped).
ModuleHeader readModuleHeader(const std::string &module) {
  std::string text = readFile(std::string(ST_KERNEL_DIR) + "/" + module + ".sv");
  std::string clean;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n')
        ++i;
    }
    if (i < text.size())
      clean += text[i];
  }
  const size_t start = clean.find("module " + module);
  EXPECT_NE(start, std::string::npos) << module;
  const size_t portsStart = clean.find(") (", start);
  const size_t end = clean.find(");", portsStart);
  ModuleHeader h;
  // Parameters: "parameter [int unsigned] Name = expr" separated by commas at depth 0.
  auto splitTopLevel = [](const std::string &s) {
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : s) {
      if (c == '(' || c == '[')
        ++depth;
      if (c == ')' || c == ']')
        --depth;
      if (c == ',' && depth == 0) {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    parts.push_back(cur);
    return parts;
  };
  const size_t paramsStart = clean.find("#(", start) + 2;
  for (const std::string &p : splitTopLevel(clean.substr(paramsStart, portsStart - paramsStart))) {
    const size_t kw = p.find("parameter");
    const size_t eq = p.find('=');
    if (kw == std::string::npos || eq == std::string::npos)
      continue;
    std::stringstream decl(p.substr(kw, eq - kw));
    std::string word, last;
    while (decl >> word)
      last = word;
    h.params.push_back({last, p.substr(eq + 1)});
  }
  for (const std::string &p : splitTopLevel(clean.substr(portsStart + 3, end - portsStart - 3))) {
    std::stringstream decl(p);
    std::string word, last;
    while (decl >> word)
      last = word;
    h.allPorts.push_back(last);
    const bool input = p.find("input") != std::string::npos;
    if (!input && p.find("output") == std::string::npos)
      continue;
    const size_t lb = p.find('['), rb = p.rfind(']');
    (input ? h.inputs : h.outputs)
        .push_back({last, lb == std::string::npos ? "" : p.substr(lb + 1, rb - lb - 1)});
  }
  return h;
}

/// Port widths of `ports` (h.inputs or h.outputs) of `node`'s module for the node's parameters
/// (defaults for the rest).
std::map<std::string, unsigned>
portWidths(const ir::DataflowNode &node, const ModuleHeader &h,
           const std::vector<std::pair<std::string, std::string>> &ports) {
  std::map<std::string, int64_t> names;
  for (const auto &[name, expr] : h.params) {
    if (auto v = node.param(name)) {
      names[name] = *v;
      continue;
    }
    if (expr.find('"') != std::string::npos)
      continue; // string parameter
    names[name] = ExprEval(expr, names).run();
  }
  std::map<std::string, unsigned> widths;
  for (const auto &[port, range] : ports) {
    if (range.empty()) {
      widths[port] = 1;
      continue;
    }
    const size_t colon = range.rfind(':');
    const int64_t hi = ExprEval(range.substr(0, colon), names).run();
    const int64_t lo = ExprEval(range.substr(colon + 1), names).run();
    widths[port] = static_cast<unsigned>(hi - lo + 1);
  }
  return widths;
}

// ---- decoding the bindings back into descriptors -------------------------------------------

const SidebandValue &port(const std::vector<SidebandValue> &b, const std::string &name) {
  for (const SidebandValue &s : b)
    if (s.port == name)
      return s;
  throw std::runtime_error("no sideband " + name);
}

uint64_t constantOf(const std::vector<SidebandValue> &b, const std::string &name) {
  const SidebandValue &s = port(b, name);
  EXPECT_EQ(s.source, SidebandSource::Constant) << name;
  return s.value;
}

num::FixedScale scaleOf(const std::vector<SidebandValue> &b, const std::string &prefix) {
  num::FixedScale f;
  f.mantissa = static_cast<uint32_t>(constantOf(b, prefix + "mantissa_i"));
  f.shift = static_cast<uint8_t>(constantOf(b, prefix + "shift_i"));
  return f;
}

struct Loaded {
  frontend::LoadedModel model;
  frontend::QuantizedModel q;
};

Loaded load(const std::string &fixture, num::Precision precision) {
  const std::string dir = std::string(ST_FIXTURE_DIR) + "/" + fixture;
  Loaded l{frontend::loadModel(dir), {}};
  l.q = frontend::quantizeModel(
      l.model.program, l.model.weights, precision,
      frontend::calibrate(l.model.program, l.model.weights,
                          frontend::readCalibrationSequences(dir + "/calibration.json",
                                                             l.model.program.vocabSize)));
  return l;
}

llm::StageLoweringOptions loweringOptions(const Loaded &l) {
  llm::StageLoweringOptions o;
  o.precision = l.q.precision;
  o.maxContext = l.model.program.maxPositions;
  return o;
}

class LlmKernelBindingsTest
    : public ::testing::TestWithParam<std::tuple<const char *, num::Precision>> {};

// Every kernel of every stage and run: bindings on existing input ports of the RTL width, values
// that fit, and every non-stream input of the module driven by a sideband or a tie.
TEST_P(LlmKernelBindingsTest, EveryKernelRunGetsBindingsOfTheRtlWidths) {
  const auto [fixture, precision] = GetParam();
  const Loaded l = load(fixture, precision);
  // One directory per test: ctest runs the parameter sets in parallel.
  const std::string tableDir =
      ::testing::TempDir() + "/bindings_" + fixture + "_" + frontend::precisionName(precision);
  std::filesystem::remove_all(tableDir);
  std::map<std::string, ModuleHeader> headers;
  int64_t checked = 0;
  for (const ir::DecodeStage &stage : l.model.program.stages) {
    const llm::LoweredStage lowered = llm::lowerStage(stage, loweringOptions(l));
    for (ir::NodeId id : lowered.dataflow.nodes()) {
      const ir::DataflowNode &node = lowered.dataflow.node(id);
      if (node.kind != ir::NodeKind::Kernel)
        continue;
      SCOPED_TRACE(stage.name + "/" + node.name + " " + node.module);
      if (!headers.count(node.module))
        headers[node.module] = readModuleHeader(node.module);
      ModuleHeader &h = headers[node.module];
      const std::map<std::string, unsigned> widths = portWidths(node, h, h.inputs);
      // Ports fed by streams: <name>_valid_i / _data_i / _ready_o, or valid_i / data_i.
      std::set<std::string> streamPorts = {"clk_i", "rst_ni", "ready_i"};
      for (const ir::NodePort &in : node.inputs)
        for (const char *suffix : {"_valid_i", "_data_i"})
          streamPorts.insert(in.name + suffix);
      streamPorts.insert({"valid_i", "data_i"}); // the first input of some kernels
      const KernelPorts ports = kernelPorts(node);
      if (ports.ownAxiMaster)
        for (const auto &[p, w] : widths)
          if (p.rfind("m_axi_", 0) == 0)
            streamPorts.insert(p); // its own AXI master
      std::set<std::string> driven;
      // The port description against the RTL: an own AXI master exactly where the module has
      // m_axi_ ports; a narrow output exactly as wide as the module's data_o.
      EXPECT_EQ(ports.ownAxiMaster,
                std::any_of(h.allPorts.begin(), h.allPorts.end(),
                            [](const std::string &p) { return p.rfind("m_axi_", 0) == 0; }));
      if (ports.narrowOutputBits > 0) {
        const std::map<std::string, unsigned> outputs = portWidths(node, h, h.outputs);
        ASSERT_TRUE(outputs.count("data_o")) << node.module;
        EXPECT_EQ(ports.narrowOutputBits, outputs.at("data_o"));
        EXPECT_FALSE(ports.narrowOutputWire.empty());
      }
      for (const std::string &tie : ports.ties) {
        const std::string p = tie.substr(1, tie.find('(') - 1);
        EXPECT_NE(std::find(h.allPorts.begin(), h.allPorts.end(), p), h.allPorts.end()) << tie;
        driven.insert(p);
        if (widths.count(p) && tie.find("'d") != std::string::npos)
          EXPECT_EQ(std::to_string(widths.at(p)),
                    tie.substr(tie.find('(') + 1, tie.find('\'') - tie.find('(') - 1))
              << tie;
      }
      for (int64_t run = 0; run < stage.repeat; ++run) {
        const std::vector<SidebandValue> b = kernelSidebands(node, l.q, stage.name, run);
        std::set<std::string> sidebandPorts;
        for (const SidebandValue &s : b) {
          ASSERT_TRUE(widths.count(s.port)) << s.port << " is not an input of " << node.module;
          EXPECT_EQ(s.bits, widths.at(s.port)) << s.port;
          if (s.bits < 64)
            EXPECT_LT(s.value, uint64_t(1) << s.bits) << s.port;
          sidebandPorts.insert(s.port);
          ++checked;
        }
        for (const auto &[p, w] : widths)
          EXPECT_TRUE(streamPorts.count(p) || sidebandPorts.count(p) || driven.count(p))
              << "input " << p << " of " << node.module << " is not driven";
      }
      std::vector<KernelTable> tables;
      const std::vector<ir::NodeParam> params =
          kernelTableParams(node, l.q, stage, "tables/", tables);
      gen::writeKernelTables(tables, tableDir);
      for (const ir::NodeParam &p : params) {
        ASSERT_TRUE(p.text) << p.name;
        EXPECT_TRUE(std::any_of(h.params.begin(), h.params.end(), [&](const auto &hp) {
          return hp.first == p.name;
        })) << p.name;
        EXPECT_EQ(p.text->rfind("tables/", 0), 0u) << *p.text;
        EXPECT_TRUE(std::filesystem::exists(tableDir + "/" + p.text->substr(7))) << *p.text;
        if (p.name != "PhaseTableFile")
          continue;
        // NumTables tables of HeadDim/2 increments; run r's table at its table_sel_i.
        std::ifstream in(tableDir + "/" + p.text->substr(7));
        std::vector<uint64_t> entries;
        for (std::string line; std::getline(in, line);)
          if (line.rfind("//", 0) != 0)
            entries.push_back(std::stoull(line, nullptr, 16));
        const size_t half = static_cast<size_t>(*node.param("HeadDim") / 2);
        ASSERT_EQ(entries.size(), static_cast<size_t>(*node.param("NumTables")) * half);
        for (int64_t run = 0; run < stage.repeat; ++run) {
          const uint64_t sel =
              constantOf(kernelSidebands(node, l.q, stage.name, run), "table_sel_i");
          const auto &table = l.q.get<frontend::QuantizedRopeOp>(stage.name, run, node.name).table;
          EXPECT_EQ(std::vector<uint64_t>(entries.begin() + sel * half,
                                          entries.begin() + (sel + 1) * half),
                    table.phaseIncrement)
              << "run " << run;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// The values: every op with sidebands, run with a descriptor whose sideband-carried fields come
// only from the decoded bindings (the rest from the QuantizedModel), reproduces the
// GoldenExecutor's tap over the first steps of a decode. Attention reads the rows
// [t - cache_len, t) of its own K/V history, cache_len decoded from the binding.
TEST_P(LlmKernelBindingsTest, DecodedBindingsReproduceTheGoldenTaps) {
  const auto [fixture, precision] = GetParam();
  const Loaded l = load(fixture, precision);
  const ir::DecodeProgram &program = l.model.program;
  frontend::GoldenExecutor golden(program, l.q);
  golden.recordTaps(true);
  std::map<std::string, int64_t> checkedByModule;
  // The cases the brief names: several RoPE tables, a window that limits the cache, per-head
  // norms.
  std::set<uint64_t> tableSelects;
  int64_t windowLimited = 0, perHeadNorms = 0;
  // K/V history per attention op and run: row t = the new token's k/v at step t.
  std::map<std::string, std::vector<std::vector<int32_t>>> kRows, vRows;
  constexpr int64_t kSteps = 7;
  for (int64_t t = 0; t < kSteps; ++t) {
    const int64_t token = (t * 37 + 11) % program.vocabSize;
    const frontend::GoldenExecutor::StepResult r = golden.step(token, t);
    std::map<std::string, std::vector<int32_t>> exchanged = {
        {ir::DecodeProgram::kTokenInput, {static_cast<int32_t>(token)}},
        {ir::DecodeProgram::kPositionInput, {static_cast<int32_t>(t)}}};
    for (const ir::DecodeStage &stage : program.stages) {
      const llm::LoweredStage lowered = llm::lowerStage(stage, loweringOptions(l));
      std::map<std::string, const ir::DataflowNode *> kernels;
      for (ir::NodeId id : lowered.dataflow.nodes())
        if (lowered.dataflow.node(id).kind == ir::NodeKind::Kernel)
          kernels[lowered.dataflow.node(id).name] = &lowered.dataflow.node(id);
      const ir::TensorGraph &g = stage.graph;
      for (int64_t run = 0; run < stage.repeat; ++run) {
        auto valueOf = [&](ir::TensorId tensor) -> std::vector<int32_t> {
          if (auto p = g.producer(tensor))
            return r.taps.at(frontend::QuantizedModel::key(stage.name, run, g.op(*p).name));
          return exchanged.at(g.tensor(tensor).name);
        };
        for (ir::OpId o : g.topologicalOrder()) {
          const ir::Op &op = g.op(o);
          const std::string key = frontend::QuantizedModel::key(stage.name, run, op.name);
          SCOPED_TRACE(key + " step " + std::to_string(t));
          const ir::DataflowNode &node = *kernels.at(op.name);
          const std::vector<SidebandValue> b = kernelSidebands(node, l.q, stage.name, run);
          const frontend::QuantizedOp &qop = l.q.op(stage.name, run, op.name);
          const std::vector<int32_t> &tap = r.taps.at(key);
          std::vector<int32_t> out;
          if (node.module == "st_norm") {
            frontend::QuantizedNormOp n = std::get<frontend::QuantizedNormOp>(qop.descriptor);
            n.norm.epsilonTerm = static_cast<int64_t>(constantOf(b, "epsilon_i"));
            n.norm.outputMultiplier = scaleOf(b, "mult_");
            // One invocation per head of a per-head norm, each sampling the same sidebands.
            const std::vector<int32_t> x = valueOf(op.inputs[0].tensor);
            const size_t width = static_cast<size_t>(*node.param("N"));
            perHeadNorms += x.size() > width;
            for (size_t start = 0; start < x.size(); start += width) {
              std::vector<int32_t> y = num::normalize(
                  std::vector<int32_t>(x.begin() + start, x.begin() + start + width), n.norm);
              out.insert(out.end(), y.begin(), y.end());
            }
          } else if (node.module == "st_rope") {
            const num::RopeTable table =
                ropeTables(l.q, stage.name, op.name).at(constantOf(b, "table_sel_i"));
            const uint64_t pos = sidebandValueAt(port(b, "pos_i"), {t, 0, 0});
            tableSelects.insert(constantOf(b, "table_sel_i"));
            const std::vector<int32_t> x = valueOf(op.inputs[0].tensor);
            const size_t headDim = static_cast<size_t>(*node.param("HeadDim"));
            for (size_t start = 0; start < x.size(); start += headDim) {
              std::vector<int32_t> y = num::rope(
                  std::vector<int32_t>(x.begin() + start, x.begin() + start + headDim), pos, table,
                  scaleOf(b, "mult_"), static_cast<unsigned>(*node.param("OutBits")));
              out.insert(out.end(), y.begin(), y.end());
            }
          } else if (node.module == "st_attention") {
            const auto &d = std::get<frontend::QuantizedAttentionOp>(qop.descriptor);
            num::AttentionScales scales;
            scales.scoreToLog2 = scaleOf(b, "score_");
            scales.output = scaleOf(b, "out_");
            scales.outputBits = static_cast<unsigned>(*node.param("OutBits"));
            const int64_t cacheLen = static_cast<int64_t>(
                sidebandValueAt(port(b, "cache_len_i"), {t, frontend::cacheRowsAt(d, t), 0}));
            // The window rule spelled out: the whole cache, or the window minus the new token.
            EXPECT_EQ(cacheLen, d.slidingWindow > 0 ? std::min(t, d.slidingWindow - 1) : t);
            windowLimited += cacheLen < t;
            num::AttentionInputs in;
            in.q = valueOf(op.inputs[0].tensor);
            in.kNew = valueOf(op.inputs[1].tensor);
            in.vNew = valueOf(op.inputs[2].tensor);
            for (int64_t row = t - cacheLen; row < t; ++row) {
              in.kCache.insert(in.kCache.end(), kRows[key].at(row).begin(), kRows[key][row].end());
              in.vCache.insert(in.vCache.end(), vRows[key].at(row).begin(), vRows[key][row].end());
            }
            in.cacheLength = static_cast<size_t>(cacheLen);
            out = num::attention(in, d.shape, scales);
            kRows[key].push_back(in.kNew);
            vRows[key].push_back(in.vNew);
          } else if (node.module == "st_activation") {
            num::ActivationScales s;
            s.inputToFixed = scaleOf(b, "in_");
            s.fixedToOutput = scaleOf(b, "out_");
            s.outputBits = static_cast<unsigned>(*node.param("OutBits"));
            const std::vector<int32_t> x = valueOf(op.inputs[0].tensor);
            const int64_t function = *node.param("Function");
            out = function == 2
                      ? num::silu(x, s)
                      : num::gelu(x, s, function == 0 ? num::GeluForm::Erf : num::GeluForm::Tanh);
          } else if (node.module == "st_gated_activation") {
            num::GatedScales s;
            s.gateToFixed = scaleOf(b, "gate_");
            s.upToFixed = scaleOf(b, "up_");
            s.productToOutput = scaleOf(b, "product_");
            s.outputBits = static_cast<unsigned>(*node.param("OutBits"));
            const std::vector<int32_t> gate = valueOf(op.inputs[0].tensor);
            const std::vector<int32_t> up = valueOf(op.inputs[1].tensor);
            const int64_t function = *node.param("Function");
            out = function == 2
                      ? num::swiglu(gate, up, s)
                      : num::geglu(gate, up, s,
                                   function == 0 ? num::GeluForm::Erf : num::GeluForm::Tanh);
          } else if (node.module == "st_residual_add") {
            num::ResidualAddScales s{scaleOf(b, "a_"), scaleOf(b, "b_")};
            out = num::residualAdd(valueOf(op.inputs[0].tensor), valueOf(op.inputs[1].tensor), s,
                                   static_cast<unsigned>(*node.param("OutBits")));
          } else if (node.module == "st_embedding_gather") {
            num::QuantizedEmbedding e =
                std::get<frontend::QuantizedEmbeddingOp>(qop.descriptor).table;
            e.outputScale = scaleOf(b, "mult_");
            EXPECT_EQ(port(b, "table_base_i").source, SidebandSource::TableBase);
            out =
                num::embeddingGather(e, static_cast<uint32_t>(valueOf(op.inputs[1].tensor).at(0)));
          } else {
            EXPECT_TRUE(b.empty()) << node.module;
            continue; // st_linear, st_argmax: no sidebands
          }
          ASSERT_EQ(out, tap) << node.module << " with the decoded bindings differs from the "
                              << "golden executor's tap";
          ++checkedByModule[node.module];
          for (const char *variant : {"LayerNorm", "Function"})
            if (auto v = node.param(variant))
              ++checkedByModule[node.module + "/" + variant + "=" + std::to_string(*v)];
        }
        for (ir::TensorId tensor = 0; tensor < g.numTensors(); ++tensor)
          if (g.tensor(tensor).role == ir::TensorRole::Output)
            exchanged[stage.exportedName(g.tensor(tensor).name)] = valueOf(tensor);
      }
    }
  }
  for (const char *module :
       {"st_norm", "st_rope", "st_attention", "st_residual_add", "st_embedding_gather"})
    if (std::string(fixture) != "gpt2_tiny" || std::string(module) != "st_rope")
      EXPECT_GT(checkedByModule[module], 0) << module;
  EXPECT_GT(checkedByModule["st_activation"] + checkedByModule["st_gated_activation"], 0);
  if (std::string(fixture) == "gemma3_tiny") {
    EXPECT_EQ(tableSelects.size(), 2u) << "local and global RoPE tables";
    EXPECT_GT(windowLimited, 0) << "a sliding window shorter than the decode";
    EXPECT_GT(perHeadNorms, 0) << "per-head q/k norms";
  }
  // GPT-2: LayerNorm and GELU (tanh form); Gemma 3: GeGLU; Llama / Qwen2: SwiGLU.
  const std::string f = fixture;
  if (f == "gpt2_tiny") {
    EXPECT_GT(checkedByModule["st_norm/LayerNorm=1"], 0);
    EXPECT_GT(checkedByModule["st_activation/Function=1"], 0);
  } else {
    EXPECT_GT(checkedByModule["st_norm/LayerNorm=0"], 0);
    EXPECT_GT(checkedByModule[f == "gemma3_tiny" ? "st_gated_activation/Function=1"
                                                 : "st_gated_activation/Function=2"],
              0);
  }
}

/// Expects st::Error whose message names `what`.
template <typename F> void expectErrorNaming(F f, const std::string &what) {
  try {
    f();
    ADD_FAILURE() << "no error naming " << what;
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

// Bad requests name the node: an unknown module, a kernel whose Function disagrees with the
// op's descriptor, more RoPE variants than the kernel's NumTables.
TEST(LlmKernelBindings, ErrorsNameTheNode) {
  const Loaded l = load("gemma3_tiny", num::Precision::W4A8);
  const ir::DecodeStage *block = nullptr;
  for (const ir::DecodeStage &stage : l.model.program.stages)
    if (stage.repeat > 1)
      block = &stage;
  ASSERT_NE(block, nullptr);
  const llm::LoweredStage lowered = llm::lowerStage(*block, loweringOptions(l));
  std::vector<KernelTable> tables;
  int64_t ropes = 0, gated = 0;
  for (ir::NodeId id : lowered.dataflow.nodes()) {
    ir::DataflowNode node = lowered.dataflow.node(id);
    if (node.kind != ir::NodeKind::Kernel)
      continue;
    if (node.module == "st_rope") {
      for (ir::NodeParam &p : node.params)
        if (p.name == "NumTables")
          p.value = 1;
      expectErrorNaming([&] { kernelTableParams(node, l.q, *block, "", tables); }, node.name);
      expectErrorNaming([&] { kernelSidebands(node, l.q, block->name, 1); }, node.name);
      ++ropes;
    }
    if (node.module == "st_gated_activation") {
      for (ir::NodeParam &p : node.params)
        if (p.name == "Function")
          p.value = 2; // Gemma's GeGLU is Function 1
      expectErrorNaming([&] { kernelTableParams(node, l.q, *block, "", tables); }, node.name);
      expectErrorNaming([&] { kernelSidebands(node, l.q, block->name, 0); }, node.name);
      ++gated;
    }
    node.module = "st_unknown";
    expectErrorNaming([&] { kernelSidebands(node, l.q, block->name, 0); }, node.name);
    expectErrorNaming([&] { kernelTableParams(node, l.q, *block, "", tables); }, node.name);
  }
  EXPECT_GT(ropes, 0);
  EXPECT_GT(gated, 0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LlmKernelBindingsTest,
                         ::testing::Combine(::testing::ValuesIn(kFixtures),
                                            ::testing::Values(num::Precision::W4A8,
                                                              num::Precision::W8A16)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param)) + "_" +
                                  frontend::precisionName(std::get<1>(info.param));
                         });

} // namespace
} // namespace st::plan
