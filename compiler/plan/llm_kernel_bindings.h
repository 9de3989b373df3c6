// Kernel bindings of the LLM accelerator (docs/accelerator.md §1 "Sidebands"): what the top
// drives into each kernel's non-stream inputs (the sidebands: FixedScale multipliers, norm
// epsilon, RoPE position and table select, attention cache length, embedding table base), which
// table files each kernel takes as parameters, and how the top wires the ports that are neither
// streams nor sidebands (kernelPorts: st_argmax's tied cfg stream and narrow index output,
// st_embedding_gather's own AXI master). Every value comes from the QuantizedModel, the
// descriptors the GoldenExecutor runs, so the RTL computes the golden bits.
//
// Two layers:
//  - descriptor -> ports (normSidebands, ropeSidebands, ...): the one mapping from a numerics::
//    descriptor to a kernel's port values; the kernels' Verilator testbenches use it too;
//  - (lowered node, QuantizedModel, stage, run) -> ports (kernelSidebands, kernelTableParams,
//    kernelPorts): what the LLM top emitter calls for every kernel node of llm::lowerStage.
//
// The top gives each kernel a counter of the vectors on its input port 0 (st_vector_counter: step
// t, layer/run l) and drives each sideband with a pure function of (t, l): a Constant of the run,
// the Position t, the CacheLength cacheRowsAt(t), or the TableBase of the run's table in HBM.
// Sampling points (from the RTL): st_norm, st_rope and st_attention sample with the first token
// of an input vector on port 0 (data_i, data_i, q); st_activation, st_gated_activation and
// st_residual_add sample with every token (pair) on port 0 (so the values must be held for the
// whole vector); st_embedding_gather samples with every id (one per step). A per-head norm
// (groups > 1) runs one st_norm vector per head, each sampling the same values, so counting the
// whole input vector (all heads) is right. st_linear and st_argmax have no sidebands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/quantized_model.h"
#include "ir/dataflow_graph.h"
#include "ir/decode_program.h"
#include "numerics/attention_golden.h"
#include "numerics/golden_ops.h"
#include "numerics/table_export.h"

namespace st::plan {

/// Where a sideband's value comes from.
enum class SidebandSource {
  Constant,    ///< `value`, the same for every step of the run
  Position,    ///< the decode step t (the new token's position)
  CacheLength, ///< cached rows attention reads at step t: frontend::cacheRowsAt(op, t)
  TableBase,   ///< HBM byte address of the run's table (node.tensor) in the image's layout
};
std::string toString(SidebandSource source);

struct SidebandValue {
  std::string port;  ///< the RTL input port, e.g. "mult_mantissa_i"
  unsigned bits = 0; ///< its width
  SidebandSource source = SidebandSource::Constant;
  uint64_t value = 0; ///< Constant: the value (unsigned, fits `bits`)
};

/// The runtime values of the non-constant sources at one invocation.
struct SidebandRuntime {
  int64_t position = 0;    ///< step t
  int64_t cacheLength = 0; ///< frontend::cacheRowsAt(op, t)
  uint64_t tableBase = 0;  ///< the table's HBM byte address
};
/// The value driven on `s`'s port: `value` for a Constant, else the runtime value of its source
/// (throws st::Error naming the port when it does not fit `bits`).
uint64_t sidebandValueAt(const SidebandValue &s, const SidebandRuntime &runtime);

// ---- descriptor -> ports (shared with the kernels' testbenches) ----------------------------
/// Width of every FixedScale mantissa port (24) and shift port (6).
constexpr unsigned kMantissaPortBits = 24;
constexpr unsigned kShiftPortBits = 6;

/// st_norm: epsilon_i (48), mult_mantissa_i, mult_shift_i. Throws when epsilonTerm >= 2^48.
std::vector<SidebandValue> normSidebands(const numerics::QuantizedNorm &norm);
/// st_rope: pos_i (Position, posBits), table_sel_i (tableSelectBits), mult_mantissa_i/shift_i.
std::vector<SidebandValue> ropeSidebands(numerics::FixedScale multiplier, uint64_t tableSelect,
                                         unsigned tableSelectBits, unsigned posBits);
/// st_attention: cache_len_i (CacheLength, cacheLenBits), score_mantissa_i/score_shift_i
/// (scoreToLog2), out_mantissa_i/out_shift_i (output).
std::vector<SidebandValue> attentionSidebands(const numerics::AttentionScales &scales,
                                              unsigned cacheLenBits);
/// st_activation: in_mantissa_i/in_shift_i (inputToFixed), out_mantissa_i/out_shift_i.
std::vector<SidebandValue> activationSidebands(const numerics::ActivationScales &scales);
/// st_gated_activation: gate_*, up_*, product_* mantissa/shift.
std::vector<SidebandValue> gatedSidebands(const numerics::GatedScales &scales);
/// st_residual_add: a_mantissa_i/a_shift_i, b_mantissa_i/b_shift_i.
std::vector<SidebandValue> residualAddSidebands(const numerics::ResidualAddScales &scales);
/// st_embedding_gather: table_base_i (TableBase, addrBits), mult_mantissa_i/mult_shift_i.
std::vector<SidebandValue> embeddingSidebands(numerics::FixedScale outputScale, unsigned addrBits);

/// st_rope's table_sel_i width: ceil(log2(numTables)), at least 1.
unsigned ropeTableSelectBits(int64_t numTables);

// ---- lowered node -> ports (the LLM top emitter) ------------------------------------------
/// The sidebands of kernel `node` (a kernel node of llm::lowerStage(stage, ...).dataflow, so
/// node.name is the op name) for run (layer) `run` of stage `stage` of `q`, in port order.
/// Widths are the RTL port widths for the node's parameters. st_linear and st_argmax have none.
/// Throws st::Error naming the node for an unknown module or a descriptor of the wrong kind.
std::vector<SidebandValue> kernelSidebands(const ir::DataflowNode &node,
                                           const frontend::QuantizedModel &q,
                                           const std::string &stage, int64_t run);

/// The RoPE variants of op `op` of `stage` in table_sel order: the distinct phase tables of its
/// runs in order of first use. Run r selects ropeTableIndex(...) into this list.
std::vector<numerics::RopeTable> ropeTables(const frontend::QuantizedModel &q,
                                            const std::string &stage, const std::string &op);
int64_t ropeTableIndex(const frontend::QuantizedModel &q, const std::string &stage,
                       const std::string &op, int64_t run);

/// A $readmemh table file that a kernel parameter names (gen/kernel_tables writes it): one of
/// numerics::fixedTables(), or st_rope's phase tables.
struct KernelTable {
  std::string file; ///< the file name, e.g. "rsqrt.mem"
  const numerics::PiecewiseLinearTable *fixed = nullptr;
  std::vector<numerics::RopeTable> ropePhases; ///< when `fixed` is null
};

/// The table-file parameters of `node`, valid for every run of `stage`: st_norm TableFile
/// (rsqrt), st_activation / st_gated_activation TableFile (the residual table of its Function),
/// st_rope PhaseTableFile (<stage>_<op>_phase.mem: ropeTables padded to NumTables with the last
/// table) and SineTableFile, st_attention ExpTableFile and ReciprocalTableFile. The parameters
/// name the files as `pathPrefix` + file name; the tables they name are added to `tables`
/// (once per file name). Other kernels have none. Throws st::Error naming the op when a run
/// needs a different table (activation kind) or when its RoPE variants exceed NumTables.
std::vector<ir::NodeParam> kernelTableParams(const ir::DataflowNode &node,
                                             const frontend::QuantizedModel &q,
                                             const ir::DecodeStage &stage,
                                             const std::string &pathPrefix,
                                             std::vector<KernelTable> &tables);

/// How the top wires a kernel's ports beyond its streams and sidebands; the LLM top emitter
/// follows it and has no per-kernel branches.
struct KernelPorts {
  /// Constant ties of handshake ports the top does not stream, as ".port(value)" connection
  /// text: st_argmax's cfg stream (valid 1, data = the vector length, ready open), so every
  /// vector is the whole logits vector.
  std::vector<std::string> ties;
  /// When narrowOutputBits > 0, data_o is that narrower than the output stream's token: the top
  /// declares "<instance>_<narrowOutputWire>" of that width for it and zero-extends it onto the
  /// stream (st_argmax's index, ceil(log2(MaxLen)) bits, onto the 32-bit id stream).
  unsigned narrowOutputBits = 0;
  std::string narrowOutputWire;
  /// The kernel reads HBM through its own AXI master (st_embedding_gather's table): the top gives
  /// it a pointer argument and the m_axi pins, leaves error_o open, and ties that master's
  /// command / done counters to 0 (no step sequencer drives it).
  bool ownAxiMaster = false;
};

/// The KernelPorts of `node` (empty for kernels with streams and sidebands only, and for
/// non-kernel nodes). Throws st::Error naming the node when st_argmax has no MaxLen.
KernelPorts kernelPorts(const ir::DataflowNode &node);

} // namespace st::plan
