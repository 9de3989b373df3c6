// Kernel bindings of the LLM accelerator: sidebands, table-file parameters and port ties of the
// lowered kernels (see llm_kernel_bindings.h).
#include "plan/llm_kernel_bindings.h"

#include "model/kernel_templates.h"
#include "numerics/table_export.h"
#include "support/error.h"

namespace st::plan {

namespace {

using frontend::QuantizedModel;

uint64_t maskOf(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

SidebandValue constant(const std::string &port, unsigned bits, uint64_t value) {
  if ((value & ~maskOf(bits)) != 0)
    throw Error("kernel bindings", "sideband '" + port + "'",
                "a value that fits " + std::to_string(bits) + " bits, got " +
                    std::to_string(value));
  return {port, bits, SidebandSource::Constant, value};
}

/// A FixedScale as the pair of ports <prefix>mantissa_i / <prefix>shift_i.
void addScale(std::vector<SidebandValue> &out, const std::string &prefix,
              numerics::FixedScale scale) {
  out.push_back(constant(prefix + "mantissa_i", kMantissaPortBits, scale.mantissa));
  out.push_back(constant(prefix + "shift_i", kShiftPortBits, scale.shift));
}

std::string where(const ir::DataflowNode &node) {
  return "kernel '" + node.name + "' (" + node.module + ")";
}

/// The descriptor of `node`'s op for (stage, run), of type T, or an error naming the node.
template <typename T>
const T &descriptorOf(const ir::DataflowNode &node, const QuantizedModel &q,
                      const std::string &stage, int64_t run) {
  const frontend::QuantizedOp &op = q.op(stage, run, node.name);
  if (const T *d = std::get_if<T>(&op.descriptor))
    return *d;
  throw Error("kernel bindings", where(node),
              "the descriptor of " + node.module + " for " +
                  QuantizedModel::key(stage, run, node.name));
}

/// Runs of `op` in `stage` that the QuantizedModel holds (0, 1, ... without gaps).
int64_t runsOf(const QuantizedModel &q, const std::string &stage, const std::string &op) {
  int64_t runs = 0;
  while (q.ops.count(QuantizedModel::key(stage, runs, op)))
    ++runs;
  return runs;
}

/// st_activation's or st_gated_activation's Function for an activation or gated op.
template <typename Kind> int64_t functionCode(Kind kind) {
  return static_cast<int64_t>(model::elementwiseFunctionOf(kind));
}

const char *residualTableOf(int64_t function) {
  switch (function) {
  case 0:
    return "gelu_erf_residual";
  case 1:
    return "gelu_tanh_residual";
  default:
    return "silu_residual";
  }
}

/// Adds `table` to `tables` unless a table of its file name is there.
void addTable(std::vector<KernelTable> &tables, KernelTable table) {
  for (const KernelTable &t : tables)
    if (t.file == table.file)
      return;
  tables.push_back(std::move(table));
}

/// The parameter naming fixed table `name`, which it adds to `tables`.
ir::NodeParam fixedTableParam(const std::string &param, const std::string &name,
                              std::vector<KernelTable> &tables, const std::string &prefix) {
  for (const numerics::NamedTable &t : numerics::fixedTables())
    if (t.name == name) {
      addTable(tables, {name + ".mem", t.table, {}});
      return {param, 0, prefix + name + ".mem"};
    }
  throw Error("kernel bindings", "table '" + name + "'", "one of numerics::fixedTables()");
}

} // namespace

std::string toString(SidebandSource source) {
  switch (source) {
  case SidebandSource::Constant:
    return "constant";
  case SidebandSource::Position:
    return "position";
  case SidebandSource::CacheLength:
    return "cache_length";
  case SidebandSource::TableBase:
    return "table_base";
  }
  return "?";
}

uint64_t sidebandValueAt(const SidebandValue &s, const SidebandRuntime &runtime) {
  uint64_t v = s.value;
  switch (s.source) {
  case SidebandSource::Constant:
    break;
  case SidebandSource::Position:
    v = static_cast<uint64_t>(runtime.position);
    break;
  case SidebandSource::CacheLength:
    v = static_cast<uint64_t>(runtime.cacheLength);
    break;
  case SidebandSource::TableBase:
    v = runtime.tableBase;
    break;
  }
  if ((v & ~maskOf(s.bits)) != 0)
    throw Error("kernel bindings", "sideband '" + s.port + "' (" + toString(s.source) + ")",
                "a value that fits " + std::to_string(s.bits) + " bits, got " + std::to_string(v));
  return v;
}

// ---- descriptor -> ports --------------------------------------------------------------------

std::vector<SidebandValue> normSidebands(const numerics::QuantizedNorm &norm) {
  if (norm.epsilonTerm < 0)
    throw Error("kernel bindings", "norm epsilonTerm", "a non-negative value");
  std::vector<SidebandValue> out = {
      constant("epsilon_i", 48, static_cast<uint64_t>(norm.epsilonTerm))};
  addScale(out, "mult_", norm.outputMultiplier);
  return out;
}

unsigned ropeTableSelectBits(int64_t numTables) {
  return numTables > 1 ? numerics::ceilLog2(static_cast<uint64_t>(numTables)) : 1;
}

std::vector<SidebandValue> ropeSidebands(numerics::FixedScale multiplier, uint64_t tableSelect,
                                         unsigned tableSelectBits, unsigned posBits) {
  std::vector<SidebandValue> out = {{"pos_i", posBits, SidebandSource::Position, 0},
                                    constant("table_sel_i", tableSelectBits, tableSelect)};
  addScale(out, "mult_", multiplier);
  return out;
}

std::vector<SidebandValue> attentionSidebands(const numerics::AttentionScales &scales,
                                              unsigned cacheLenBits) {
  std::vector<SidebandValue> out = {{"cache_len_i", cacheLenBits, SidebandSource::CacheLength, 0}};
  addScale(out, "score_", scales.scoreToLog2);
  addScale(out, "out_", scales.output);
  return out;
}

std::vector<SidebandValue> activationSidebands(const numerics::ActivationScales &scales) {
  std::vector<SidebandValue> out;
  addScale(out, "in_", scales.inputToFixed);
  addScale(out, "out_", scales.fixedToOutput);
  return out;
}

std::vector<SidebandValue> gatedSidebands(const numerics::GatedScales &scales) {
  std::vector<SidebandValue> out;
  addScale(out, "gate_", scales.gateToFixed);
  addScale(out, "up_", scales.upToFixed);
  addScale(out, "product_", scales.productToOutput);
  return out;
}

std::vector<SidebandValue> residualAddSidebands(const numerics::ResidualAddScales &scales) {
  std::vector<SidebandValue> out;
  addScale(out, "a_", scales.a);
  addScale(out, "b_", scales.b);
  return out;
}

std::vector<SidebandValue> embeddingSidebands(numerics::FixedScale outputScale, unsigned addrBits) {
  std::vector<SidebandValue> out = {{"table_base_i", addrBits, SidebandSource::TableBase, 0}};
  addScale(out, "mult_", outputScale);
  return out;
}

// ---- lowered node -> ports ------------------------------------------------------------------

std::vector<numerics::RopeTable> ropeTables(const QuantizedModel &q, const std::string &stage,
                                            const std::string &op) {
  std::vector<numerics::RopeTable> tables;
  const int64_t runs = runsOf(q, stage, op);
  for (int64_t r = 0; r < runs; ++r) {
    const auto *rope = std::get_if<frontend::QuantizedRopeOp>(&q.op(stage, r, op).descriptor);
    if (!rope)
      throw Error("kernel bindings", "op '" + op + "' of stage '" + stage + "'",
                  "a RoPE descriptor for run " + std::to_string(r));
    bool known = false;
    for (const numerics::RopeTable &t : tables)
      known = known ||
              (t.headDim == rope->table.headDim && t.phaseIncrement == rope->table.phaseIncrement);
    if (!known)
      tables.push_back(rope->table);
  }
  return tables;
}

int64_t ropeTableIndex(const QuantizedModel &q, const std::string &stage, const std::string &op,
                       int64_t run) {
  const std::vector<numerics::RopeTable> tables = ropeTables(q, stage, op);
  const numerics::RopeTable &mine = q.get<frontend::QuantizedRopeOp>(stage, run, op).table;
  for (size_t i = 0; i < tables.size(); ++i)
    if (tables[i].headDim == mine.headDim && tables[i].phaseIncrement == mine.phaseIncrement)
      return static_cast<int64_t>(i);
  throw Error("kernel bindings", "op '" + op + "' of stage '" + stage + "'",
              "run " + std::to_string(run) + " among the op's runs");
}

std::vector<SidebandValue> kernelSidebands(const ir::DataflowNode &node, const QuantizedModel &q,
                                           const std::string &stage, int64_t run) {
  const std::string &m = node.module;
  if (m == model::widthConverterTemplate()
               .module()) // a KV cache read's token split for attention: no op of its own
    return {};
  if (m == model::normTemplate().module()) {
    const auto &d = descriptorOf<frontend::QuantizedNormOp>(node, q, stage, run);
    if (static_cast<int64_t>(d.norm.size) != model::normTemplate().decode(node).n)
      throw Error("kernel bindings", where(node),
                  "N = the norm's group size " + std::to_string(d.norm.size));
    return normSidebands(d.norm);
  }
  if (m == model::ropeTemplate().module()) {
    const auto &d = descriptorOf<frontend::QuantizedRopeOp>(node, q, stage, run);
    const model::RopeParams p = model::ropeTemplate().decode(node);
    const int64_t numTables = p.numTables;
    const int64_t index = ropeTableIndex(q, stage, node.name, run);
    if (index >= numTables)
      throw Error("kernel bindings", where(node),
                  "at most NumTables = " + std::to_string(numTables) + " RoPE variants, run " +
                      std::to_string(run) + " uses variant " + std::to_string(index));
    return ropeSidebands(d.multiplier, static_cast<uint64_t>(index), ropeTableSelectBits(numTables),
                         static_cast<unsigned>(p.posBits));
  }
  if (m == model::attentionTemplate().module()) {
    const auto &d = descriptorOf<frontend::QuantizedAttentionOp>(node, q, stage, run);
    const model::AttentionParams p = model::attentionTemplate().decode(node);
    if (static_cast<int64_t>(d.scales.outputBits) != p.outBits)
      throw Error("kernel bindings", where(node),
                  "OutBits = the descriptor's " + std::to_string(d.scales.outputBits));
    return attentionSidebands(d.scales, numerics::ceilLog2(static_cast<uint64_t>(p.maxContext)));
  }
  if (m == model::activationTemplate().module()) {
    const auto &d = descriptorOf<frontend::QuantizedActivationOp>(node, q, stage, run);
    if (functionCode(d.kind) !=
        static_cast<int64_t>(model::activationTemplate().decode(node).function))
      throw Error("kernel bindings", where(node),
                  "Function " + std::to_string(functionCode(d.kind)) + " for run " +
                      std::to_string(run));
    return activationSidebands(d.scales);
  }
  if (m == model::gatedActivationTemplate().module()) {
    const auto &d = descriptorOf<frontend::QuantizedGatedOp>(node, q, stage, run);
    if (functionCode(d.kind) !=
        static_cast<int64_t>(model::gatedActivationTemplate().decode(node).function))
      throw Error("kernel bindings", where(node),
                  "Function " + std::to_string(functionCode(d.kind)) + " for run " +
                      std::to_string(run));
    return gatedSidebands(d.scales);
  }
  if (m == model::residualAddTemplate().module())
    return residualAddSidebands(descriptorOf<numerics::ResidualAddScales>(node, q, stage, run));
  if (m == model::embeddingTemplate().module()) {
    const auto &d = descriptorOf<frontend::QuantizedEmbeddingOp>(node, q, stage, run);
    return embeddingSidebands(
        d.table.outputScale,
        static_cast<unsigned>(model::embeddingTemplate().decode(node).addrWidth));
  }
  if (m == model::linearTemplate().module()) {
    descriptorOf<numerics::QuantizedLinear>(node, q, stage, run);
    return {};
  }
  if (m == model::argmaxTemplate().module()) {
    descriptorOf<frontend::QuantizedArgmaxOp>(node, q, stage, run);
    return {};
  }
  throw Error("kernel bindings", where(node), "an LLM kernel module (st_norm, st_rope, ...)");
}

std::vector<ir::NodeParam> kernelTableParams(const ir::DataflowNode &node, const QuantizedModel &q,
                                             const ir::DecodeStage &stage,
                                             const std::string &pathPrefix,
                                             std::vector<KernelTable> &tables) {
  const std::string &m = node.module;
  if (m == model::linearTemplate().module() || m == model::residualAddTemplate().module() ||
      m == model::embeddingTemplate().module() || m == model::argmaxTemplate().module() ||
      m == model::widthConverterTemplate().module())
    return {};
  if (m == model::normTemplate().module())
    return {fixedTableParam("TableFile", "rsqrt", tables, pathPrefix)};
  if (m == model::attentionTemplate().module())
    return {fixedTableParam("ExpTableFile", "exp2_neg_frac", tables, pathPrefix),
            fixedTableParam("ReciprocalTableFile", "reciprocal", tables, pathPrefix)};
  if (m == model::activationTemplate().module() || m == model::gatedActivationTemplate().module()) {
    // The table is a parameter: every run must use the kernel's Function.
    const int64_t function =
        static_cast<int64_t>(m == model::activationTemplate().module()
                                 ? model::activationTemplate().decode(node).function
                                 : model::gatedActivationTemplate().decode(node).function);
    for (int64_t run = 0; run < stage.repeat; ++run) {
      const int64_t wanted =
          m == model::activationTemplate().module()
              ? functionCode(
                    descriptorOf<frontend::QuantizedActivationOp>(node, q, stage.name, run).kind)
              : functionCode(
                    descriptorOf<frontend::QuantizedGatedOp>(node, q, stage.name, run).kind);
      if (wanted != function)
        throw Error("kernel bindings", where(node),
                    "the same function in every run (Function " + std::to_string(function) +
                        "), run " + std::to_string(run) + " needs " + std::to_string(wanted));
    }
    return {fixedTableParam("TableFile", residualTableOf(function), tables, pathPrefix)};
  }
  if (m == model::ropeTemplate().module()) {
    std::vector<numerics::RopeTable> ropePhases = ropeTables(q, stage.name, node.name);
    const model::RopeParams p = model::ropeTemplate().decode(node);
    const int64_t numTables = p.numTables;
    if (static_cast<int64_t>(ropePhases.size()) > numTables)
      throw Error("kernel bindings", where(node),
                  "at most NumTables = " + std::to_string(numTables) + " RoPE variants over the " +
                      "stage's runs, got " + std::to_string(ropePhases.size()));
    if (ropePhases.empty() || static_cast<int64_t>(ropePhases[0].headDim) != p.headDim)
      throw Error("kernel bindings", where(node), "RoPE tables of the kernel's HeadDim");
    while (static_cast<int64_t>(ropePhases.size()) < numTables)
      ropePhases.push_back(ropePhases.back()); // never selected: table_sel_i < the variants used
    const std::string file = stage.name + "_" + node.name + "_phase.mem";
    addTable(tables, {file, nullptr, std::move(ropePhases)});
    return {{"PhaseTableFile", 0, pathPrefix + file},
            fixedTableParam("SineTableFile", "quarter_sine", tables, pathPrefix)};
  }
  throw Error("kernel bindings", where(node), "an LLM kernel module (st_norm, st_rope, ...)");
}

KernelPorts kernelPorts(const ir::DataflowNode &node) {
  KernelPorts ports;
  if (node.module == model::argmaxTemplate().module()) {
    const int64_t maxLen = model::argmaxTemplate().decode(node).maxLen;
    const unsigned lenBits = numerics::ceilLog2(static_cast<uint64_t>(maxLen) + 1);
    ports.ties = {".cfg_valid_i(1'b1)", ".cfg_ready_o()",
                  ".cfg_data_i(" + std::to_string(lenBits) + "'d" + std::to_string(maxLen) + ")"};
    ports.narrowOutputBits =
        maxLen > 1 ? numerics::ceilLog2(static_cast<uint64_t>(maxLen)) : 1; // st_argmax IndexBits
    ports.narrowOutputWire = "index";
  } else if (node.module == model::embeddingTemplate().module()) {
    ports.ownAxiMaster = true;
  }
  return ports;
}

} // namespace st::plan
