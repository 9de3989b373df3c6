// Fuzz harness: the Hugging Face config.json reader (frontend/model_config.h), which validates
// every hyper-parameter of the four families.
#include <string>

#include "frontend/model_config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  st::fuzz::expectOnlyStError("fuzz_model_config",
                              [&] { st::frontend::parseModelConfig(text, "config.json"); });
  return 0;
}
