// Design defaults (see design_defaults.h).
#include "llm/design_defaults.h"

#include <algorithm>

namespace st::llm {

int64_t defaultMaxContext(const ir::DecodeProgram &program) {
  return std::min(program.maxPositions, kDefaultMaxContext);
}

model::ResourceEstimate designBudget(const passes::DeviceConstraints &device) {
  auto share = [](int64_t available) {
    return static_cast<int64_t>(kResourceShare * static_cast<double>(available));
  };
  model::ResourceEstimate budget;
  budget.lut = share(device.availableLut);
  budget.ff = share(device.availableFf);
  budget.dsp = share(device.availableDsp);
  budget.bram36 = kResourceShare * static_cast<double>(device.availableBram36);
  budget.uram = share(device.availableUram);
  return budget;
}

} // namespace st::llm
