// Resource model of st_axi_lite_ctrl (see axi_lite_ctrl_resources.h).
#include "model/axi_lite_ctrl_resources.h"

#include <algorithm>

namespace st::model {

ResourceEstimate axiLiteCtrlResources(int64_t numArgs, uint64_t argIs64) {
  int64_t argWords = 0;
  for (int64_t i = 0; i < numArgs; ++i)
    argWords += (i < 64 && ((argIs64 >> i) & 1)) ? 2 : 1;
  const int64_t words = argWords + 4; // + AP_CTRL, GIE, IER, ISR
  ResourceEstimate r;
  // Argument registers, plus 91 flip-flops of control state, the registered read data, the
  // latched write address and the handshake flags (the same at both calibration points), plus
  // the read's first stage: a 32-bit partial OR per group of 8 arguments, the control word's 5
  // live bits and the pending flag.
  const int64_t readGroups = (numArgs + 7) / 8;
  r.ff = 32 * argWords + 91 + 32 * readGroups + 6;
  // Per register word: its share of the 32-bit read multiplexer and its write enable/strobe
  // logic; minus what the smallest map shares.
  r.lut = std::max<int64_t>(27 * words - 51, 0);
  return r;
}

} // namespace st::model
