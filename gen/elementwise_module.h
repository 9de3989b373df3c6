// Emitter of element-wise kernels for synthetic tensor graphs: turns an op's scalar body
// (ir::ScalarExpr), its output tile shape, the tile shapes of its inputs (numpy broadcast: 1 on
// broadcast dims, aligned to the right) and the element types into one SystemVerilog module.
//
// The module computes, for every output element of a tile, exactly ScalarExpr::evaluate (64-bit
// integer arithmetic) followed by saturation to the output type, as ir::interpretGraph does. It
// never builds 64-bit datapaths it does not need: the interval analysis of
// ir/elementwise_datapath.h gives every node the width of its exact value range (at most 64 bits;
// a node whose range exceeds 64 bits wraps at 64 bits, as the C++ reference does). Interface
// (valid/ready streams):
//   clk_i, rst_ni (synchronous, active low),
//   in<i>_valid_i, in<i>_ready_o, in<i>_data_i[InElems_i*InBits_i]   for every input i,
//   valid_o, ready_i, data_o[OutElems*OutBits],
// tokens are tiles with elements row-major, element 0 at bits [0 +: Bits]; unsigned inputs are
// zero-extended, signed ones sign-extended; outputs are the output type's bits. All inputs are
// consumed together (one token from each in the same cycle), the result goes through one
// register stage and an st_skid_buffer: one token per cycle, first output 2 cycles after its
// inputs (compiler/model/elementwise_generated_model.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/elementwise_datapath.h"
#include "ir/tensor_graph.h"

namespace st::gen {

/// The SystemVerilog function computing one output element: `function automatic
/// logic [OutBits-1:0] <functionName>(input logic [Bits_i-1:0] x<i>, ...)` over the inputs of
/// elementwiseInputsRead(body) (raw element bits), returning the output type's bits of
/// sat(body). emitElementwiseModule calls it per output element; tests call it directly.
std::string emitElementwiseFunction(const std::string &functionName, const ir::ScalarExpr &body,
                                    const std::vector<ir::DType> &inputTypes, ir::DType outputType);

/// The SystemVerilog text of module `name` (see the file comment). Throws st::Error naming the
/// module and the field on a bad name, shape, type or body.
std::string emitElementwiseModule(const std::string &name, const ir::ScalarExpr &body,
                                  const std::vector<int64_t> &outputTileShape,
                                  const std::vector<std::vector<int64_t>> &inputTileShapes,
                                  const std::vector<ir::DType> &inputTypes, ir::DType outputType);

} // namespace st::gen
