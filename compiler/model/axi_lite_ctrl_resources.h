// Resource model of st_axi_lite_ctrl (rtl_templates/axi/st_axi_lite_ctrl.sv), the Vitis
// ap_ctrl_hs control slave of every generated top: the argument registers (32 or 64 bits each)
// plus the control/GIE/IER/ISR state and the AXI4-Lite handshake registers in flip-flops; the
// 32-bit read multiplexer over every register word and the write decode in LUTs. Calibrated on
// Yosys runs at NumArgs=2 (LUT 165, FF 219) and NumArgs=8 with five 64-bit args (LUT 405,
// FF 507); synth.axi_lite_ctrl.args8.vs_model prints the comparison.
#pragma once

#include <cstdint>

#include "model/kernel_timing.h"

namespace st::model {

/// One st_axi_lite_ctrl #(.NumArgs(numArgs), .ArgIs64(argIs64)) (bit i of argIs64: argument i
/// is 64 bits wide).
ResourceEstimate axiLiteCtrlResources(int64_t numArgs, uint64_t argIs64);

} // namespace st::model
