// Timing and resource model of st_layout_converter (rtl_templates/stream/), the ping-pong layout
// converter between two itensors (docs/itensor.md, "The converter RTL"). The timing comes from
// the program (compiler/ir/converter_program.h): per phase PT producer tokens in, CT consumer
// tokens out. tests/rtl/layout_converter asserts the cycle of every output token against
// layoutConverterOutputCycle and prints layoutConverterResources beside Yosys's counts.
#pragma once

#include <cstdint>

#include "ir/converter_program.h"
#include "model/kernel_timing.h"

namespace st::model {

/// One invocation = one tensor = `phases` phases. With ideal streams the writer fills phase 0
/// in PT cycles (cycles 0 .. PT-1), the reader issues the first read in cycle PT and output 0
/// leaves in cycle PT + 1 (the output register). Phase p's reads start at
/// PT + p * max(PT, CT): the slower side sets the pace, the faster one waits at the phase
/// boundary (the writer for a free bank, the reader for a full one). So:
///   D = PT + 1, L = PT + CT + (phases - 1) * max(PT, CT), outputTokens = phases * CT,
///   inputTokens = {phases * PT}, output k needs the whole phase floor(k / CT):
///   inputTokensNeeded(k) = (floor(k / CT) + 1) * PT.
/// ii = 1 is the interval inside a phase; when PT > CT each phase's CT outputs are followed by
/// a gap of PT - CT cycles (see layoutConverterOutputCycle for the exact schedule).
KernelTiming layoutConverterTiming(const ir::ConverterProgram &program);

/// The cycle (counted from the first input handshake) of output token k's handshake under
/// ideal streams: PT + 1 + floor(k / CT) * max(PT, CT) + k mod CT.
int64_t layoutConverterOutputCycle(const ir::ConverterProgram &program, int64_t k);

/// LUT/FF/BRAM estimate of one instance with these parameters (see converter_model.cpp). With
/// `program` (the tables the instance loads, which synthesis folds as constants) the write and
/// read multiplexers are sized from the tables: a word written by f distinct lanes needs an
/// f:1 data multiplexer, an output lane reading d distinct addresses a 2d:1 one (both banks),
/// and the table rows fold into that logic. Without it, every lane may address every word.
ResourceEstimate layoutConverterResources(const ir::ConverterLimits &limits,
                                          const ir::ConverterProgram *program = nullptr);

} // namespace st::model
