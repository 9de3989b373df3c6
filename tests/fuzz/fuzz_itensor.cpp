// Fuzz harness: the itensor text syntax (ir/itensor_type.h). Besides not crashing, a text that
// parses must print to a text that parses back to the same type (docs/itensor.md: parse and print
// exactly); a difference aborts.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "ir/itensor_type.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  st::fuzz::expectOnlyStError("fuzz_itensor", [&] {
    const st::ir::ITensorType type = st::ir::parseITensorType(text);
    const std::string printed = type.toString();
    st::ir::ITensorType again;
    try {
      again = st::ir::parseITensorType(printed);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "fuzz_itensor: '%s' printed as '%s', which does not parse: %s\n",
                   text.c_str(), printed.c_str(), e.what());
      std::abort();
    }
    if (!(again == type) || again.toString() != printed) {
      std::fprintf(stderr, "fuzz_itensor: '%s' printed as '%s' parses to '%s'\n", text.c_str(),
                   printed.c_str(), again.toString().c_str());
      std::abort();
    }
  });
  return 0;
}
