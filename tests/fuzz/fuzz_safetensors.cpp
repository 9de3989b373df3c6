// Fuzz harness: the safetensors reader (frontend/safetensors_reader.h) on one file: the 8-byte
// header length, the JSON header (dtype, shape, data_offsets) and the data section they index.
#include "frontend/safetensors_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = st::fuzz::writeInputFile(data, size, "model.safetensors");
  st::fuzz::expectOnlyStError("fuzz_safetensors", [&] {
    st::frontend::WeightStore store;
    st::frontend::readSafetensorsFile(path, store);
  });
  return 0;
}
