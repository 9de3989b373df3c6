// Fuzz harness: the calibration.json reader (frontend/calibration.h readCalibrationSequences),
// token ids checked against a 96-token vocabulary as the fixtures have.
#include "frontend/calibration.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = st::fuzz::writeInputFile(data, size, "calibration.json");
  st::fuzz::expectOnlyStError("fuzz_calibration",
                              [&] { st::frontend::readCalibrationSequences(path, 96); });
  return 0;
}
